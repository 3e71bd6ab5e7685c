// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "pstored archive": every crash in pstore goes into the store (durably),
 * then into the journal, and only then are its records erased. A run
 * interrupted anywhere and run again finds the crash by its id (derived from
 * the key record, which is erased last) in the store and in the journal, and
 * does only what is left.
 *
 * Memory: one record at a time, plus one crash's log.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "analyse/analyse.h"
#include "archive-journal.h"
#include "archive-metrics.h"
#include "config/config.h"
#include "cper/cper.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "pstore-mount.h"
#include "pstore/pstore.h"
#include "pstored.h"
#include "sha256-util.h"
#include "store/last-archive.h"
#include "store/retention.h"
#include "store/store.h"
#include "time-util.h"

/*
 * A crash's log in memory, for its analysis and its journal entry: assembled
 * (or read back from the store) right after the name of its journal field,
 * so that the entry sends it without a copy. Read, not mapped: unmapping a
 * file costs a TLB shootdown on every CPU the process ran on. One buffer
 * serves every crash of the run: a fresh one per crash would fault its pages
 * in, and give them back with the same shootdown, each time.
 */
typedef struct LogBuffer {
	char *field;	       /* JOURNAL_LOG_FIELD, then the log; NULL until something is in it */
	size_t len, allocated; /* of field */
} LogBuffer;

#define LOG_FIELD_PREFIX_LEN (sizeof(JOURNAL_LOG_FIELD) - 1)

static const char *log_text(const LogBuffer *b)
{
	return b->field ? b->field + LOG_FIELD_PREFIX_LEN : "";
}

static size_t log_text_len(const LogBuffer *b)
{
	return b->field ? b->len - LOG_FIELD_PREFIX_LEN : 0;
}

/* The journal field of the log: JOURNAL_LOG_FIELD alone for an empty one. */
static const char *log_field(const LogBuffer *b, size_t *ret_len)
{
	*ret_len = b->field ? b->len : LOG_FIELD_PREFIX_LEN;
	return b->field ?: JOURNAL_LOG_FIELD;
}

static void log_reset(LogBuffer *b)
{
	if (b->field)
		b->len = LOG_FIELD_PREFIX_LEN;
}

/* Makes room for more bytes of log after what is in b. */
static int log_reserve(LogBuffer *b, size_t more)
{
	size_t len = b->field ? b->len : LOG_FIELD_PREFIX_LEN, want;
	char *p;

	if (b->field && more <= b->allocated - len)
		return 0;
	if (more > SSIZE_MAX - len)
		return -EFBIG;
	want = MAX(MIN(b->allocated * 2, (size_t)SSIZE_MAX), len + more);
	p = realloc(b->field, want);
	if (!p)
		return -ENOMEM;
	if (!b->field)
		memcpy(p, JOURNAL_LOG_FIELD, LOG_FIELD_PREFIX_LEN);
	b->field = p;
	b->len = len;
	b->allocated = want;
	return 0;
}

/*
 * A crash written to the store's staging area in this run, waiting for the
 * commit of its batch before it is journaled and erased.
 */
typedef struct Staged {
	const PstoreCrash *crash;
	StoreTxn *txn;
	JournalCrashFields fields; /* of its journal entry but the log, which is in the store */
	char id[STORE_CRASH_ID_LEN + 1];
} Staged;

/*
 * Crashes committed together. Each commit waits for the disk twice (see
 * store_txns_commit()), which costs more than anything else a crash needs;
 * a staged crash holds a few KiB (its journal fields and index summary).
 */
#define STAGED_MAX 128

typedef struct Archive {
	PstoredConfig *config;
	const char *pstore_dir;
	int pstore_fd;
	PstoreScan *scan;
	Store *store;	   /* NULL unless Storage=both|store */
	json_t *summaries; /* of the store after the run, NULL until listed */
	bool store_failed; /* could not be opened: nowhere to record the run */
	bool journal;
	bool unlink;
	sd_journal *journal_reader;
	char boot_id[SD_ID128_STRING_MAX], machine_id[SD_ID128_STRING_MAX];
	usec_t started_at;
	unsigned archived, already, dropped, failed;
	unsigned erased; /* records */
	uint64_t run_records, run_bytes; /* taken from MaxRecordsPerRun=, MaxBytesPerRun= */
	int first_error; /* of the first crash that failed */
	char *error;	 /* the message of the failure that ended the run */
	Staged staged[STAGED_MAX];
	size_t n_staged;
	LogBuffer log; /* of the crash at hand */
} Archive;

static void archive_done(Archive *a)
{
	sd_journal_close(a->journal_reader);
	json_decref(a->summaries);
	store_free(a->store);
	pstore_scan_free(a->scan);
	if (a->pstore_fd >= 0)
		close(a->pstore_fd);
	pstored_config_free(a->config);
	free(a->error);
	free(a->log.field);
}

/*
 * Where a crash's log is assembled: in memory, and in its dmesg.txt if it is
 * stored; at most MaxLogSize= bytes of it, the rest is cut.
 */
typedef struct LogSink {
	StoreTxn *txn;
	LogBuffer *log;
	size_t left; /* of MaxLogSize= */
	bool cut;
} LogSink;

static int log_sink_write(LogSink *l, const char *buf, size_t len)
{
	int r;

	if (len > l->left) {
		l->cut = true;
		len = l->left;
	}
	if (len == 0)
		return 0;
	l->left -= len;
	if (l->txn) {
		r = store_txn_append(l->txn, "dmesg.txt", buf, len);
		if (r < 0)
			return r;
	}
	r = log_reserve(l->log, len);
	if (r < 0)
		return r;
	memcpy(l->log->field + l->log->len, buf, len);
	l->log->len += len;
	return 0;
}

static const char *dump_reason_to_reason(const char *dump_reason)
{
	static const char *const known[] = {"panic", "oops", "emergency", "shutdown"};

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (strcasecmp(dump_reason, known[i]) == 0)
			return known[i];
	return "unknown";
}

static const char *crash_reason(const PstoreCrash *c)
{
	const PstoreRecord *key = c->key;

	if (c->first->has_header)
		return dump_reason_to_reason(c->first->header.reason);
	if (c->kind == PSTORE_CRASH_HARDWARE_ERROR)
		return key->name_parsed && key->n.type == PSTORE_TYPE_MCE ? "mce" : "cper";
	if (key->name_parsed && pstore_type_is_log(key->n.type))
		return key->n.type_name;
	return "unknown";
}

/* What the log says a crash of each kind is. */
static const char *const crash_kind_descriptions[] = {
	[PSTORE_CRASH_KERNEL] = "kernel crash",
	[PSTORE_CRASH_HARDWARE_ERROR] = "hardware error",
	[PSTORE_CRASH_PREVIOUS_BOOT_LOG] = "previous-boot log",
};
DEFINE_PRIVATE_STRING_TABLE_TO_STRING(crash_kind_description, PstoreCrashKind,
				      crash_kind_descriptions, _PSTORE_CRASH_KIND_MAX)

static bool crash_is_logs_only(const PstoreCrash *c)
{
	for (size_t i = 0; i < c->n_records; i++)
		if (!c->records[i]->name_parsed || !pstore_type_is_log(c->records[i]->n.type))
			return false;
	return true;
}

/* Text records go into dmesg.txt; hardware errors and unknown binary records do not. */
static bool record_is_text(const PstoreCrash *c, const PstoreRecord *r)
{
	if (c->kind == PSTORE_CRASH_HARDWARE_ERROR || !r->name_parsed)
		return false;
	return r->n.type == PSTORE_TYPE_DMESG || pstore_type_is_log(r->n.type);
}

/* Says why a record stays in pstore, once: archive_crash() stops at the first failure. */
static void log_record_error(const Archive *a, const PstoreRecord *r, int error)
{
	if (error == -EFBIG)
		log_error("%s/%s: record is %" PRIu64 " bytes, more than MaxRecordSize=%" PRIu64
			  "; left in pstore (raise MaxRecordSize= in pstored.conf to archive it)",
			  a->pstore_dir, r->name, r->size, a->config->max_record_size);
	else
		log_error_errno(error, "%s/%s: cannot read record: %m; left in pstore",
				a->pstore_dir, r->name);
}

/* Reads a record, with its SHA-256. */
static int read_record(Archive *a, const PstoreRecord *r, char **ret_raw, size_t *ret_raw_len,
		       char hex[static SHA256_HEX_SIZE])
{
	_cleanup_free_ char *raw = NULL;
	size_t raw_len;
	int k;

	k = pstore_record_read(a->pstore_fd, r, a->config->max_record_size, &raw, &raw_len);
	if (k < 0)
		return k;
	k = sha256_hex(raw, raw_len, hex);
	if (k < 0)
		return k;
	*ret_raw = TAKE_PTR(raw);
	*ret_raw_len = raw_len;
	return 0;
}

/* Says in crash["truncated"] what a budget left out of the crash. */
_printf_(2, 3) static int crash_truncated(json_t *crash, const char *fmt, ...)
{
	_cleanup_free_ char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0 || json_array_append_new(json_object_get(crash, "truncated"), json_string(s)) < 0)
		return log_oom();
	return 0;
}

/*
 * The crash id: name-based UUID of the key record's name and SHA-256. The key
 * record (the lowest part) is erased last, so an interrupted run leaves it
 * and the rerun finds the same id.
 */
static int crash_id(Archive *a, const PstoreCrash *c, char id[static STORE_CRASH_ID_LEN + 1])
{
	_cleanup_free_ char *raw = NULL;
	char hex[SHA256_HEX_SIZE], name_hex[SHA256_HEX_SIZE];
	const char *digests[2] = {hex, name_hex};
	size_t raw_len;
	int r;

	r = read_record(a, c->key, &raw, &raw_len, hex);
	if (r < 0)
		return r;
	r = sha256_hex(c->key->name, strlen(c->key->name), name_hex);
	if (r < 0)
		return r;
	return store_crash_id_from_digests(digests, ARRAY_SIZE(digests), id);
}

static json_t *record_json(const PstoreRecord *r, const char *hex)
{
	json_t *o = json_pack("{s:s, s:I, s:s, s:I, s:b}", "name", r->name, "size",
			      (json_int_t)r->size, "sha256", hex, "time", (json_int_t)r->time,
			      "compressed", r->name_parsed && r->n.compressed);
	char id[24];

	if (!o || !r->name_parsed)
		return o;
	snprintf(id, sizeof(id), "%" PRIu64, r->n.id);
	if (json_object_set_new(o, "type", json_string(r->n.type_name)) < 0 ||
	    json_object_set_new(o, "backend", json_string(r->n.backend)) < 0 ||
	    json_object_set_new(o, "record_id", json_string(id)) < 0 ||
	    (r->has_header && json_object_set_new(o, "part", json_integer(r->header.part)) < 0)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int crash_json_new(Archive *a, const PstoreCrash *c, const char *id, json_t **ret)
{
	json_auto_t *crash = NULL, *missing = NULL, *upload = NULL;
	uint64_t time = 0;

	for (size_t i = 0; i < c->n_records + c->n_other_dump; i++)
		time = MAX(time, pstore_crash_record(c, i)->time);
	missing = json_array();
	upload = json_object();
	if (!missing || !upload)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_missing_parts; i++)
		if (json_array_append_new(missing,
					  json_pack("[I,I]", (json_int_t)c->missing_parts[i].first,
						    (json_int_t)c->missing_parts[i].last)) < 0)
			return -ENOMEM;

	/* Crashes wait for upload to every configured target; logs of clean boots do not. */
	for (size_t i = 0; c->kind != PSTORE_CRASH_PREVIOUS_BOOT_LOG && i < a->config->n_targets;
	     i++)
		if (json_object_set_new(
			    upload, a->config->targets[i].name,
			    json_pack("{s:s, s:i}", "state", "pending", "attempts", 0)) < 0)
			return -ENOMEM;

	crash = json_pack(
		"{s:i, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:b, s:O, s:[], s:[], s:[], s:O}",
		"schema_version", STORE_SCHEMA_VERSION, "id", id, "kind",
		pstore_crash_kind_to_string(c->kind), "reason", crash_reason(c), "time",
		(json_int_t)time, "archived_at", (json_int_t)now_usec(), "boot_id", a->boot_id,
		"machine_id", a->machine_id, "complete", c->n_missing_parts == 0, "parts_missing",
		missing, "truncated", "records", "logs", "upload", upload);
	if (!crash)
		return -ENOMEM;
	if (c->key->name_parsed &&
	    json_object_set_new(crash, "backend", json_string(c->key->n.backend)) < 0)
		return -ENOMEM;
	if (c->first->has_header &&
	    (json_object_set_new(crash, "pstore_reason", json_string(c->first->header.reason)) <
		     0 ||
	     json_object_set_new(crash, "dump_count", json_integer(c->first->header.count)) < 0))
		return -ENOMEM;
	*ret = TAKE_PTR(crash);
	return 0;
}

/*
 * Puts the analysis of a kernel crash's log into crash["analysis"]; its reason replaces the
 * pstore header's ("panic", "oops") when it says more ("bug", "hung-task", ...) or the header
 * has none; the header's own stays in "pstore_reason".
 */
static int crash_add_analysis(json_t *crash, const char *log, size_t len)
{
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *analysis = NULL;
	json_t *o;
	int r;

	r = dmesg_analyse(log, len, &analysis);
	if (r < 0)
		return r;
	r = dmesg_analysis_to_json(analysis, &o);
	if (r < 0)
		return r;
	if (json_object_set_new(crash, "analysis", o) < 0)
		return -ENOMEM;
	/* The kmsg_dump reasons name when the log was dumped, not what went wrong: the analysis
	 * refines them (an oops that is a "bug"), but does not turn the header's oops into a panic. */
	if (streq(analysis->reason, "unknown"))
		return 0;
	if (!streq(json_string_value(json_object_get(crash, "reason")), "unknown") &&
	    !streq(dump_reason_to_reason(analysis->reason), "unknown"))
		return 0;
	if (json_object_set_new(crash, "reason", json_string(analysis->reason)) < 0)
		return -ENOMEM;
	return 0;
}

/* The text of a document of cper_decode_json_budget(): each record, then the problems met. */
static int cper_doc_print_text(const json_t *doc, FILE *f)
{
	const json_t *rec;
	size_t i;
	int k;

	json_array_foreach(json_object_get(doc, "records"), i, rec) {
		k = cper_record_print_text(rec, NULL, f);
		if (k < 0)
			return k;
	}
	return cper_errors_print_text(json_object_get(doc, "errors"), NULL, f);
}

/*
 * Decodes an mce or CPER record into crash["hardware_error"], its text into the log. A CPER
 * record is decoded once, within MaxRecordSize= bytes of sections (see cper_decode_json_budget()).
 */
static int decode_hardware_error(Archive *a, const PstoreRecord *r, const char *buf, size_t len,
				 LogSink *sink, json_t *crash)
{
	_cleanup_free_ char *text = NULL, *summary = NULL;
	size_t text_len = 0;
	json_t *doc = NULL;
	const char *severity;
	bool mce = r->name_parsed && r->n.type == PSTORE_TYPE_MCE;
	FILE *f;
	int k;

	k = mce ? cper_mce_decode_json(buf, len, &doc)
		: cper_decode_json_budget(buf, len, a->config->max_record_size, &doc);
	if (k < 0)
		return log_error_errno(k, "Cannot decode %s: %m", r->name);
	if (json_object_set_new(crash, "hardware_error", doc) < 0)
		return log_oom();
	if (k > 0 && crash_truncated(crash,
				     "MaxRecordSize=%" PRIu64
				     ": the sections of %s beyond it are not decoded",
				     a->config->max_record_size, r->name) < 0)
		return -ENOMEM;
	severity = mce ? cper_mce_severity(buf, len)
		       : json_string_value(json_object_get(
				 json_array_get(json_object_get(doc, "records"), 0), "severity"));
	if (json_object_set_new(crash, "severity", json_string(severity ?: "unknown")) < 0)
		return log_oom();
	/* The one line that list, show and the journal print for it. */
	k = cper_summary(doc, &summary);
	if (k == -ENOMEM ||
	    (k >= 0 &&
	     json_object_set_new(crash, "analysis", json_pack("{s:s}", "message", summary)) < 0))
		return log_oom();

	f = open_memstream(&text, &text_len);
	if (!f)
		return log_oom();
	k = mce ? cper_mce_print_text(json_object_get(doc, "mce"), NULL, f)
		: cper_doc_print_text(doc, f);
	if (fclose(f) != 0 || k < 0)
		return log_error_errno(k < 0 ? k : ENOMEM, "Cannot decode %s: %m", r->name);
	k = log_sink_write(sink, text, text_len);
	if (k < 0)
		return log_error_errno(k, "Cannot write the log of %s: %m", r->name);
	return 0;
}

/* What a record of a crash is, and so what becomes of it. */
typedef enum RecordRole {
	RECORD_MAIN,	   /* its text or its decoding goes into the log */
	RECORD_OTHER_DUMP, /* a part of the dump that does not make the log: stored only */
	RECORD_LOG,	   /* a console, pmsg or ftrace log: stored, and listed in "logs" */
} RecordRole;

/*
 * Inflates a compressed record for the log, only as far as the log can take it: MaxRecordSize=,
 * and no more than MaxLogSize= leaves (and the header line) for text. Returns 1 with the data,
 * 0 if it does not inflate and stays out of the log, or <0 after logging.
 */
static int inflate_for_log(Archive *a, const PstoreRecord *r, bool text, const char *raw,
			   size_t raw_len, LogSink *sink, json_t *crash, char **ret,
			   size_t *ret_len)
{
	size_t max = text ? MIN(a->config->max_record_size, sink->left + PSTORE_HEADER_MAX)
			  : a->config->max_record_size;
	int k;

	k = pstore_record_inflate(raw, raw_len, max, ret, ret_len);
	if (k == -EBADMSG) {
		/* Stored byte for byte all the same: what it holds is for people to recover. */
		k = crash_truncated(crash,
				    "%s does not inflate: it is stored as it is, not in the log",
				    r->name);
		return k < 0 ? k : 0;
	}
	if (k < 0) {
		log_record_error(a, r, k);
		return k;
	}
	if (k > 0 && max < a->config->max_record_size)
		sink->cut = true;
	else if (k > 0 && crash_truncated(crash,
					  "MaxRecordSize=%" PRIu64 ": %s inflates to more, its "
					  "first %zu bytes are in the log",
					  a->config->max_record_size, r->name, *ret_len) < 0)
		return -ENOMEM;
	return 1;
}

/* Puts a record of the dump into the log: its text, or the decoding of a hardware error. */
static int log_record(Archive *a, const PstoreCrash *c, const PstoreRecord *r, const char *raw,
		      size_t raw_len, LogSink *sink, json_t *crash)
{
	_cleanup_free_ char *data = NULL;
	bool text = record_is_text(c, r);
	const char *buf = raw;
	size_t len = raw_len;
	int k;

	if (r->name_parsed && r->n.compressed) {
		k = inflate_for_log(a, r, text, raw, raw_len, sink, crash, &data, &len);
		if (k <= 0)
			return k;
		buf = data;
	}
	if (text) {
		const char *body;
		size_t body_len;

		pstore_record_body(r, buf, len, &body, &body_len);
		k = log_sink_write(sink, body, body_len);
		if (k < 0)
			return log_error_errno(k, "Cannot write the log of %s: %m", r->name);
	} else if (c->kind == PSTORE_CRASH_HARDWARE_ERROR)
		return decode_hardware_error(a, r, buf, len, sink, crash);
	return 0;
}

/* Copies one record into the crash (store and/or log), and lists it in crash.json. */
static int add_record(Archive *a, const PstoreCrash *c, const PstoreRecord *r, RecordRole role,
		      StoreTxn *txn, LogSink *sink, json_t *crash)
{
	_cleanup_free_ char *raw = NULL, *path = NULL;
	char hex[SHA256_HEX_SIZE];
	size_t raw_len;
	json_t *entry;
	int k;

	k = read_record(a, r, &raw, &raw_len, hex);
	if (k < 0) {
		log_record_error(a, r, k);
		return k;
	}
	if (txn) {
		if (asprintf(&path, "records/%s", r->name) < 0)
			return log_oom();
		k = store_txn_write_file(txn, path, raw, raw_len);
		if (k < 0)
			return log_error_errno(k, "%s: cannot write %s: %m", store_path(a->store),
					       path);
	}
	if (role == RECORD_MAIN) {
		k = log_record(a, c, r, raw, raw_len, sink, crash);
		if (k < 0)
			return k;
	}

	entry = record_json(r, hex);
	if (!entry || json_array_append_new(json_object_get(crash, "records"), entry) < 0 ||
	    (role == RECORD_LOG &&
	     json_array_append_new(json_object_get(crash, "logs"), json_string(r->name)) < 0))
		return log_oom();
	return 0;
}

/* Records oldest first, with a marker where a part is missing. */
static int add_records(Archive *a, const PstoreCrash *c, StoreTxn *txn, LogSink *sink,
		       json_t *crash)
{
	size_t m = 0;
	int r;

	for (size_t i = 0; i < c->n_records; i++) {
		const PstoreRecord *rec = c->records[i];

		while (rec->has_header && m < c->n_missing_parts &&
		       c->missing_parts[m].first > rec->header.part) {
			const PstorePartRange *p = &c->missing_parts[m++];
			char marker[64];
			int l = p->first == p->last
					? snprintf(marker, sizeof(marker), "<missing part %u>\n",
						   p->first)
					: snprintf(marker, sizeof(marker),
						   "<missing parts %u-%u>\n", p->first, p->last);

			r = log_sink_write(sink, marker, (size_t)l);
			if (r < 0)
				return log_error_errno(r, "Cannot write the log of %s: %m",
						       c->key->name);
		}
		r = add_record(a, c, rec, RECORD_MAIN, txn, sink, crash);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->n_other_dump; i++) {
		r = add_record(a, c, c->other_dump[i], RECORD_OTHER_DUMP, txn, sink, crash);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->n_logs; i++) {
		r = add_record(a, c, c->logs[i], RECORD_LOG, txn, sink, crash);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Puts the crash into the store (txn != NULL) or only builds its document, and its log in a->log. */
static int build_crash(Archive *a, const PstoreCrash *c, const char *id, StoreTxn *txn,
		       json_t **ret_crash)
{
	json_auto_t *crash = NULL;
	LogSink sink = {.txn = txn,
			.log = &a->log,
			.left = (size_t)MIN(a->config->max_log_size, (uint64_t)SIZE_MAX)};
	int r;

	log_reset(&a->log);
	r = crash_json_new(a, c, id, &crash);
	if (r < 0)
		return log_oom();
	if (c->n_parts_cut > 0 &&
	    crash_truncated(crash,
			    "MaxParts=%" PRIu64
			    ": the %zu oldest parts are stored, but not in the log",
			    a->config->max_parts, c->n_parts_cut) < 0)
		return -ENOMEM;
	r = add_records(a, c, txn, &sink, crash);
	if (r < 0)
		return r;
	/* Every crash has its dmesg.txt: empty when no record held any text. */
	if (txn && log_text_len(&a->log) == 0) {
		r = store_txn_write_file(txn, "dmesg.txt", "", 0);
		if (r < 0)
			return log_error_errno(r, "%s: cannot write dmesg.txt of crash %s: %m",
					       store_path(a->store), id);
	}
	if (sink.cut &&
	    crash_truncated(crash,
			    "MaxLogSize=%" PRIu64 ": the log holds its first %" PRIu64 " bytes",
			    a->config->max_log_size, a->config->max_log_size) < 0)
		return -ENOMEM;
	if (c->kind == PSTORE_CRASH_KERNEL) {
		r = crash_add_analysis(crash, log_text(&a->log), log_text_len(&a->log));
		if (r < 0)
			return log_oom();
	}

	if (txn) {
		r = store_txn_prepare(txn, crash);
		if (r < 0)
			return log_error_errno(r,
					       "%s: cannot store crash %s: %m; its records stay in "
					       "pstore",
					       store_path(a->store), id);
	}
	*ret_crash = TAKE_PTR(crash);
	return 0;
}

/* Reads the log of a crash that is in the store into a->log. */
static int read_stored_log(Archive *a, const char *id)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t n;
	int r;

	log_reset(&a->log);
	r = store_crash_path(a->store, id, "dmesg.txt", &path);
	if (r < 0)
		return log_oom();
	fd = open_regular_at(AT_FDCWD, path, O_RDONLY, 0);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return log_error_errno(fd, "%s: cannot read: %m", path);
	if (fstat(fd, &st) < 0)
		return log_error_errno(errno, "%s: cannot read: %m", path);
	/* One byte more than its size, to see its end in the same read. */
	r = log_reserve(&a->log, (size_t)st.st_size + 1);
	if (r >= 0)
		r = read_full(fd, a->log.field + a->log.len, a->log.allocated - a->log.len, &n);
	if (r < 0)
		return log_error_errno(r, "%s: cannot read: %m", path);
	a->log.len += n;
	return 0;
}

static int load_stored_crash(Archive *a, const char *id, json_t **ret_crash)
{
	json_auto_t *crash = NULL;
	int r;

	r = store_load_crash(a->store, id, &crash);
	if (r < 0)
		return log_error_errno(r, "%s: cannot load crash %s: %m", store_path(a->store), id);
	r = read_stored_log(a, id);
	if (r < 0)
		return r;
	*ret_crash = TAKE_PTR(crash);
	return 0;
}

/* Erases the crash's records from pstore, the key record last. */
static int erase_crash(Archive *a, const PstoreCrash *c)
{
	const PstoreRecord *r;
	int ret = 0;

	for (size_t i = 0; (r = pstore_crash_record(c, i)); i++) {
		if (r == c->key)
			continue;
		if (unlinkat(a->pstore_fd, r->name, 0) >= 0)
			a->erased++;
		else if (errno != ENOENT)
			ret = log_error_errno(errno, "%s/%s: cannot erase record: %m",
					      a->pstore_dir, r->name);
	}
	/* With a record left over, keep the key too: the next run must find this crash again. */
	if (ret < 0)
		return ret;
	if (unlinkat(a->pstore_fd, c->key->name, 0) >= 0)
		a->erased++;
	else if (errno != ENOENT)
		return log_error_errno(errno, "%s/%s: cannot erase record: %m", a->pstore_dir,
				       c->key->name);
	return 0;
}

/*
 * Test hook: with PSTORED_TEST_STEP_DELAY=SPAN in the environment (a time
 * span, e.g. "5s"), pstored logs each step of archiving a crash and then
 * waits that long before doing it, so that a test can cut the power at a
 * known step (tests/system/run-boot-tests). Unset, empty or malformed: no
 * delay. Documented in pstored(8), ENVIRONMENT.
 */
static void test_step_delay(const char *step, const char *id)
{
	const char *e = getenv("PSTORED_TEST_STEP_DELAY");
	struct timespec ts;
	usec_t delay;

	if (!e || !*e || parse_timespan(e, USEC_PER_SEC, &delay) < 0 || delay == 0)
		return;
	log_info("Test delay (PSTORED_TEST_STEP_DELAY=%s) before %s of crash %s.", e, step, id);
	ts = (struct timespec){.tv_sec = delay / USEC_PER_SEC,
			       .tv_nsec = (long)(delay % USEC_PER_SEC) * 1000};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void log_archived(const PstoreCrash *c, const char *id)
{
	size_t n = 0;

	while (pstore_crash_record(c, n))
		n++;
	log_info("Archived %s %s (%zu record%s from %s).",
		 crash_kind_description_to_string(c->kind), id, n, n == 1 ? "" : "s", c->key->name);
}

/*
 * What archiving a crash takes, decided once from what the store and the
 * journal already hold of it (found by its id).
 */
typedef struct CrashPlan {
	bool store;	 /* not in the store: stage it; journaled and erased after its commit */
	bool journal;	 /* not in the journal: send its entry */
	bool from_store; /* the entry is made from the stored crash, not built again */
	bool done;	 /* in the store and the journal, as configured: only erasing is left */
	bool erase;	 /* erase its records from pstore (Unlink=yes, no --no-unlink) */
} CrashPlan;

static int crash_plan(Archive *a, const char *id, CrashPlan *ret)
{
	bool stored = a->store && store_has_crash(a->store, id), logged = false;
	int r;

	/* Nothing to find in the journal for a crash that was never stored, unless there is no store. */
	if (a->journal && (stored || !a->store)) {
		r = journal_crash_is_logged(&a->journal_reader, id);
		if (r < 0)
			return log_error_errno(r,
					       "Cannot search the journal for crash %s: %m; its "
					       "records stay in pstore",
					       id);
		logged = r > 0;
	}
	*ret = (CrashPlan){
		.store = a->store && !stored,
		.journal = a->journal && !logged,
		.from_store = stored,
		.done = (a->store || a->journal) && (!a->store || stored) &&
			(!a->journal || logged),
		.erase = a->unlink,
	};
	return 0;
}

/* Fails for a record that could not be read; warns about a name that is not pstore's. */
static int crash_check_records(Archive *a, const PstoreCrash *c)
{
	const PstoreRecord *rec;

	for (size_t i = 0; (rec = pstore_crash_record(c, i)); i++) {
		if (rec->error < 0) {
			log_record_error(a, rec, rec->error);
			return rec->error;
		}
		if (!rec->name_parsed)
			log_warning("%s/%s: not a pstore record name; archiving it as it is",
				    a->pstore_dir, rec->name);
	}
	return 0;
}

/* Writes the crash to the store's staging area; archive_commit() journals and erases it. */
static int stage_crash(Archive *a, const PstoreCrash *c, const char *id)
{
	_cleanup_(store_txn_freep) StoreTxn *txn = NULL;
	json_auto_t *crash = NULL;
	JournalCrashFields fields = {};
	Staged *st;
	int r;

	test_step_delay("storing", id);
	r = store_txn_begin(a->store, id, &txn);
	if (r < 0)
		return log_error_errno(r, "%s: cannot add crash %s: %m; its records stay in pstore",
				       store_path(a->store), id);
	r = build_crash(a, c, id, txn, &crash);
	if (r < 0)
		return r;
	if (a->journal) {
		r = journal_crash_fields(crash, &fields);
		if (r < 0)
			return log_oom();
	}
	st = &a->staged[a->n_staged++];
	*st = (Staged){.crash = c, .txn = TAKE_PTR(txn), .fields = fields};
	memcpy(st->id, id, sizeof(st->id));
	return 0;
}

/* Sends the journal entry of a crash that is not staged: read back from the store, or built. */
static int journal_crash(Archive *a, const PstoreCrash *c, const char *id, bool from_store)
{
	json_auto_t *crash = NULL;
	const char *log;
	size_t log_len;
	int r;

	r = from_store ? load_stored_crash(a, id, &crash) : build_crash(a, c, id, NULL, &crash);
	if (r < 0)
		return r;
	if (!from_store)
		log_archived(c, id);
	test_step_delay("the journal entry", id);
	log = log_field(&a->log, &log_len);
	r = journal_send_crash(crash, log, log_len);
	if (r < 0)
		return log_error_errno(
			r,
			"Cannot send crash %s to the journal: %m; its records stay in "
			"pstore",
			id);
	return 0;
}

static int archive_crash(Archive *a, const PstoreCrash *c)
{
	char id[STORE_CRASH_ID_LEN + 1];
	CrashPlan plan = {};
	int r;

	r = crash_check_records(a, c);
	if (r < 0)
		return r;

	if (crash_is_logs_only(c) && !a->config->keep_console) {
		log_info("%s/%s: %s log dropped (KeepConsole=no)", a->pstore_dir, c->key->name,
			 c->key->n.type_name);
		a->dropped++;
		return a->unlink ? erase_crash(a, c) : 0;
	}

	r = crash_id(a, c, id);
	if (r < 0) {
		log_record_error(a, c->key, r);
		return r;
	}
	r = crash_plan(a, id, &plan);
	if (r < 0)
		return r;

	if (plan.store)
		return stage_crash(a, c, id);
	if (plan.journal) {
		r = journal_crash(a, c, id, plan.from_store);
		if (r < 0)
			return r;
	}
	if (plan.done)
		a->already++;
	else
		a->archived++;

	if (!plan.erase)
		return 0;
	test_step_delay("erasing", id);
	return erase_crash(a, c);
}

/* The journal entry and the erasing of a crash that is durable in the store. */
static int archive_staged_done(Archive *a, Staged *st)
{
	const char *log;
	size_t log_len;
	int r;

	log_archived(st->crash, st->id);
	if (a->journal) {
		r = read_stored_log(a, st->id);
		if (r < 0)
			return r;
		test_step_delay("the journal entry", st->id);
		log = log_field(&a->log, &log_len);
		r = journal_send_crash_fields(&st->fields, log, log_len);
		if (r < 0)
			return log_error_errno(r,
					       "Cannot send crash %s to the journal: %m; its "
					       "records stay in pstore",
					       st->id);
	}
	a->archived++;
	if (!a->unlink)
		return 0;
	test_step_delay("erasing", st->id);
	return erase_crash(a, st->crash);
}

/* Counts n crashes that could not be archived; the first error picks the advice of the summary. */
static void archive_failed(Archive *a, int error, size_t n)
{
	if (a->failed == 0)
		a->first_error = error;
	a->failed += n;
}

/*
 * Makes the staged crashes durable in one commit (store_txns_commit() says in
 * which order it syncs and renames), then journals and erases each. Nothing
 * of a batch is journaled or erased before its commit returned: should it
 * fail, every record of the batch stays in pstore for the next run.
 */
static void archive_commit(Archive *a)
{
	StoreTxn *txns[STAGED_MAX];
	int r;

	if (a->n_staged == 0)
		return;
	for (size_t i = 0; i < a->n_staged; i++)
		txns[i] = a->staged[i].txn;
	r = store_txns_commit(txns, a->n_staged);
	if (r < 0) {
		log_error_errno(r, "%s: cannot store %zu crashes: %m; their records stay in pstore",
				store_path(a->store), a->n_staged);
		archive_failed(a, r, a->n_staged);
	}
	for (size_t i = 0; i < a->n_staged; i++) {
		Staged *st = &a->staged[i];
		int k;

		if (r >= 0 && (k = archive_staged_done(a, st)) < 0)
			archive_failed(a, k, 1);
		store_txn_free(st->txn);
		journal_crash_fields_done(&st->fields);
	}
	a->n_staged = 0;
}

/* The probe of pstore_scan(): records that are neither dmesg, logs nor mce may be raw CPER. */
static void probe_record(PstoreRecord *r, const char *buf, size_t len, int error, void *userdata)
{
	(void)userdata;
	if (error < 0 || !buf)
		return;
	if (r->name_parsed && (r->n.type == PSTORE_TYPE_DMESG || r->n.type == PSTORE_TYPE_MCE))
		return;
	r->is_cper = cper_looks_like_record(buf, len);
}

/*
 * Retention, before the run adds its crashes: it makes room for them, and never removes a
 * crash this run archived, whose records are erased at once (a crash larger than MaxUse=
 * stays until the next run's retention).
 */
static void vacuum_store(Archive *a)
{
	StoreVacuumLimits limits = store_vacuum_limits_from_config(a->config);
	json_auto_t *removed = NULL;
	json_t *id;
	size_t i;
	int r;

	r = store_vacuum(a->store, &limits, now_usec(), &removed);
	if (r < 0) {
		log_warning_errno(r, "%s: retention failed: %m", store_path(a->store));
		return;
	}
	json_array_foreach(removed, i, id)
		log_info("Removed crash %s from %s (retention limits of pstored.conf).",
			 json_string_value(id), store_path(a->store));
}

/*
 * What to do about a failure, when its error says; in_store: the error is
 * the store's (not the journal's, say).
 */
static const char *failure_hint(int error, bool in_store)
{
	switch (-error) {
	case ENOSPC:
	case EDQUOT:
		return in_store ? "free space on the file system of the store, or lower MaxUse= "
				  "in pstored.conf, then run 'pstored archive' again"
				: NULL;
	case EFBIG:
		return "a record is larger than MaxRecordSize=; raise it in pstored.conf, then run "
		       "'pstored archive' again";
	case EIO:
		return "an I/O error; see the kernel log (dmesg) about the device, then run "
		       "'pstored archive' again";
	case EROFS:
		return "a read-only file system; remount it read-write, then run 'pstored "
		       "archive' again";
	default:
		return NULL;
	}
}

/*
 * The budget of a run, MaxRecordsPerRun= and MaxBytesPerRun=: takes the crash's records from
 * it, or says the run is over. The first crash always goes, so that every run makes progress;
 * crashes are in time order, so the ones left are the newest and go first next run.
 */
static bool run_budget_take(Archive *a, const PstoreCrash *c)
{
	const PstoreRecord *rec;
	uint64_t records = 0, bytes = 0;

	for (size_t i = 0; (rec = pstore_crash_record(c, i)); i++) {
		/* Such a crash fails at once, having read nothing: see crash_check_records(). */
		if (rec->error < 0)
			return true;
		records++;
		bytes += rec->size;
	}
	if (a->run_records > 0 && (a->run_records + records > a->config->max_records_per_run ||
				   a->run_bytes + bytes > a->config->max_bytes_per_run))
		return false;
	a->run_records += records;
	a->run_bytes += bytes;
	return true;
}

/* The run's configuration, and the ids of this boot and machine for its crashes. */
static int archive_setup(Archive *a)
{
	sd_id128_t id128;
	int r;

	if (sd_id128_get_boot(&id128) >= 0)
		sd_id128_to_string(id128, a->boot_id);
	if (sd_id128_get_machine(&id128) >= 0)
		sd_id128_to_string(id128, a->machine_id);

	r = pstored_config_load_and_log(arg_config, &a->config, &a->error);
	if (r < 0)
		return r;
	a->pstore_dir = arg_pstore_dir ?: PSTORE_DEFAULT_DIR;
	a->unlink = a->config->unlink && !arg_no_unlink;
	a->journal = !arg_no_journal && (a->config->storage == PSTORED_STORAGE_BOTH ||
					 a->config->storage == PSTORED_STORAGE_JOURNAL);
	return 0;
}

/* Lists the records of pstore and groups them into crashes. Returns 0 if there is no pstore. */
static int archive_scan(Archive *a)
{
	const PstoredConfig *config = a->config;
	int r;

	r = pstore_dir_open(a->pstore_dir, !arg_pstore_dir, &a->pstore_fd, &a->error);
	if (r <= 0)
		return r;

	(void)sd_notifyf(false, "STATUS=Reading %s", a->pstore_dir);
	r = pstore_scan(a->pstore_fd, config->max_record_size, probe_record, NULL, &a->scan);
	if (r < 0)
		return log_error_errno_save(r, &a->error, "%s: cannot list records: %m",
					    a->pstore_dir);
	r = pstore_group(a->scan, config->keep_console,
			 (size_t)MIN(config->max_parts, (uint64_t)SIZE_MAX));
	if (r < 0)
		return log_error_errno_save(r, &a->error, "Out of memory.");
	for (size_t i = 0; i < a->scan->n_skipped; i++)
		log_warning("%s/%s: %s, not a pstore record; skipped", a->pstore_dir,
			    a->scan->skipped[i].name, a->scan->skipped[i].reason);
	return 1;
}

/* Opens (or creates) the store, if Storage= wants one. */
static int archive_open_store(Archive *a)
{
	int r;

	if (a->config->storage != PSTORED_STORAGE_BOTH &&
	    a->config->storage != PSTORED_STORAGE_STORE)
		return 0;
	r = store_open(arg_store_dir, STORE_CREATE, &a->store);
	if (r == -EPERM) {
		a->store_failed = true;
		return log_error_errno_save(
			r, &a->error,
			"%s: refusing an unsafe crash store: it must be owned by root (or by the "
			"user running pstored) and not be writable by group or others; the records "
			"stay in %s: fix it with 'chown root: %s' and 'chmod go-w %s', see "
			"pstored-store(5).",
			arg_store_dir, a->pstore_dir, arg_store_dir, arg_store_dir);
	}
	if (r < 0) {
		a->store_failed = true;
		return log_error_errno_save(r, &a->error,
					    "%s: cannot open the crash store: %m; the records stay "
					    "in %s%s%s.",
					    arg_store_dir, a->pstore_dir,
					    failure_hint(r, true) ? ": " : "",
					    failure_hint(r, true) ?: "");
	}
	return 0;
}

/* Archives the crashes, in batches, as far as the run's budget goes. */
static void archive_crashes(Archive *a)
{
	size_t n;
	int r;

	for (n = 0; n < a->scan->n_crashes; n++) {
		(void)sd_notifyf(false, "STATUS=Archiving crash %zu of %zu", n + 1,
				 a->scan->n_crashes);
		if (!run_budget_take(a, &a->scan->crashes[n]))
			break;
		r = archive_crash(a, &a->scan->crashes[n]);
		if (r < 0)
			archive_failed(a, r, 1);
		if (a->n_staged == STAGED_MAX)
			archive_commit(a);
	}
	archive_commit(a);
	/* The index is a cache that a commit may have failed to update: leave it right, as
	 * listing it does; the metrics count the listing. */
	if (a->store)
		(void)store_list(a->store, &a->summaries);
	if (n < a->scan->n_crashes)
		log_warning("%zu of %zu crashes left in %s for the next run: this run reached "
			    "its budget, MaxRecordsPerRun= or MaxBytesPerRun= (raise them in "
			    "pstored.conf to archive more at once)",
			    a->scan->n_crashes - n, a->scan->n_crashes, a->pstore_dir);
}

static int archive_run(Archive *a)
{
	int r;

	r = archive_setup(a);
	if (r < 0)
		return r;
	r = archive_scan(a);
	if (r <= 0)
		return r;
	if (a->scan->n_crashes == 0) {
		log_debug("%s: no records.", a->pstore_dir);
		return 0;
	}
	r = archive_open_store(a);
	if (r < 0)
		return r;
	if (a->store)
		vacuum_store(a);

	archive_crashes(a);

	(void)sd_notifyf(false,
			 "STATUS=Archived %u crashes (%u already done, %u dropped, %u failed)",
			 a->archived, a->already, a->dropped, a->failed);
	if (a->failed > 0) {
		const char *hint = failure_hint(a->first_error, a->store);

		return log_error_errno_save(EIO, &a->error,
					    "%u of %zu crashes could not be archived; their "
					    "records stay in %s for the next run%s%s.",
					    a->failed, a->scan->n_crashes, a->pstore_dir,
					    hint ? ": " : "", hint ?: "");
	}
	return 0;
}

/*
 * Records the run in <store>/last-archive.json for 'pstorectl status': in the
 * store of the run, else in the store directory if there is one (a run with
 * no use for the store, Storage=journal|none or nothing in pstore, does not
 * create it for this). When the store cannot be opened there is nowhere to
 * write, and the log alone tells. A record that cannot be written changes
 * nothing about the crashes, archived or left in pstore: a warning, and the
 * exit status stays that of the archiving.
 */
static void archive_record_run(Archive *a, int result)
{
	_cleanup_(store_freep) Store *opened = NULL;
	json_auto_t *run = NULL;
	Store *s = a->store;
	int r;

	if (!s && a->store_failed)
		return;
	if (!s) {
		r = store_open(arg_store_dir, 0, &opened);
		if (r == -ENOENT) {
			log_debug("%s does not exist; this run is not recorded.", arg_store_dir);
			return;
		}
		if (r < 0) {
			log_warning_errno(r,
					  "%s: cannot record this run for 'pstorectl status': %m; "
					  "check the access mode and the file system of the store",
					  arg_store_dir);
			return;
		}
		s = opened;
	}

	run = json_pack("{s:I, s:I, s:s, s:I, s:I}", "started_at", (json_int_t)a->started_at,
			"finished_at", (json_int_t)now_usec(), "result",
			result < 0 ? "failure" : "success", "crashes_archived",
			(json_int_t)a->archived, "records_erased", (json_int_t)a->erased);
	if (!run ||
	    (result < 0 &&
	     json_object_set_new(run, "error", json_string(a->error ?: strerror(-result))) < 0) ||
	    (a->boot_id[0] && json_object_set_new(run, "boot_id", json_string(a->boot_id)) < 0)) {
		log_oom();
		return;
	}
	r = store_write_last_archive(s, run);
	if (r < 0)
		log_warning_errno(
			r,
			"%s/" STORE_LAST_ARCHIVE_FILE ": cannot record this run: %m; no "
			"crash is affected, but 'pstorectl status' shows an earlier run "
			"(check the free space and the health of the store's file system)",
			store_path(s));
}

int verb_archive(int argc, char *argv[])
{
	_cleanup_(archive_done) Archive a = {.pstore_fd = -1, .started_at = now_usec()};
	int r;

	r = archive_run(&a);
	archive_record_run(&a, r);
	archive_metrics_write(a.config, arg_store_dir,
			      &(ArchiveRunMetrics){
				      .started_at = a.started_at,
				      .success = r >= 0,
				      .archived = a.archived,
				      .already = a.already,
				      .dropped = a.dropped,
				      .failed = a.failed,
				      .store = a.store,
				      .summaries = a.summaries,
				      .pstore_fd = a.pstore_fd,
			      });
	return r;
}
