// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The crash document (crash.json, see pstored-store(5)) of a crash in pstore:
 * its id, its records copied into the store, their text or decoding in its
 * log, the analysis of that log, and what a budget left out.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/analyse.h"
#include "archive.h"
#include "log.h"
#include "macro.h"
#include "pstored.h"
#include "sha256-util.h"
#include "time-util.h"

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

_printf_(2, 3) int crash_truncated(json_t *crash, const char *fmt, ...)
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
int crash_id(Archive *a, const PstoreCrash *c, char id[static STORE_CRASH_ID_LEN + 1])
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

/* A record in crash.json: its size and sha256 are those of the len bytes read and stored. */
static json_t *record_json(const PstoreRecord *r, size_t len, const char *hex)
{
	json_t *o = json_pack("{s:s, s:I, s:s, s:I, s:b}", "name", r->name, "size",
			      (json_int_t)len, "sha256", hex, "time", (json_int_t)r->time,
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

/*
 * The boot that crashed at time: the journal's boot that was running then
 * (journal_boot_at()). The boots are listed once a run, unless --no-journal
 * keeps the run away from the journal; a journal that cannot be read leaves
 * every crash without one.
 */
const char *crashed_boot(Archive *a, uint64_t time, char buf[static SD_ID128_STRING_MAX])
{
	const JournalBoot *b;
	int r;

	if (arg_no_journal)
		return NULL;
	if (!a->boots_listed) {
		a->boots_listed = true;
		r = journal_list_boots(&a->journal_reader, &a->boots, &a->n_boots);
		if (r < 0)
			log_debug_errno(r,
					"Failed to list the boots of the journal, crashes get no "
					"crashed boot: %m");
	}
	b = journal_boot_at(a->boots, a->n_boots, time, now_usec());
	return b ? sd_id128_to_string(b->id, buf) : NULL;
}

json_t *crash_upload_new(Archive *a, bool waits)
{
	json_auto_t *upload = json_object();

	/* Crashes wait for upload to every configured target; logs of clean boots do not. */
	for (size_t i = 0; upload && waits && i < a->config->n_targets; i++)
		if (json_object_set_new(
			    upload, a->config->targets[i].name,
			    json_pack("{s:s, s:i}", "state", "pending", "attempts", 0)) < 0)
			return NULL;
	return TAKE_PTR(upload);
}

static int crash_json_new(Archive *a, const PstoreCrash *c, const char *id, json_t **ret)
{
	char boot[SD_ID128_STRING_MAX];
	const char *crashed;
	json_auto_t *crash = NULL, *missing = NULL, *upload = NULL;
	uint64_t time = 0;

	for (size_t i = 0; i < c->n_records + c->n_other_dump; i++)
		time = MAX(time, pstore_crash_record(c, i)->time);
	missing = json_array();
	upload = crash_upload_new(a, c->kind != PSTORE_CRASH_PREVIOUS_BOOT_LOG);
	if (!missing || !upload)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_missing_parts; i++)
		if (json_array_append_new(missing,
					  json_pack("[I,I]", (json_int_t)c->missing_parts[i].first,
						    (json_int_t)c->missing_parts[i].last)) < 0)
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
	crashed = crashed_boot(a, time, boot);
	if (crashed && json_object_set_new(crash, "crashed_boot_id", json_string(crashed)) < 0)
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
int crash_add_analysis(json_t *crash, const char *log, size_t len)
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

/* What a record of a crash is, and so what becomes of it. */
typedef enum RecordRole {
	RECORD_MAIN,	   /* its text or its decoding goes into the log */
	RECORD_OTHER_DUMP, /* a part of the dump that does not make the log: stored only */
	RECORD_LOG,	   /* a console, pmsg or ftrace log: stored, and listed in "logs" */
} RecordRole;

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
		k = decode_record(a, c, r, raw, raw_len, sink, crash);
		if (k < 0)
			return k;
	}

	entry = record_json(r, raw_len, hex);
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

int build_crash(Archive *a, const PstoreCrash *c, const char *id, StoreTxn *txn, json_t **ret_crash)
{
	json_auto_t *crash = NULL;
	LogSink sink = {.log = &a->log,
			.max = (size_t)MIN(a->config->max_log_size, (uint64_t)SSIZE_MAX)};
	int r;

	log_buffer_reset(&a->log);
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
	log_sink_finish(&sink);
	/* Every crash has its dmesg.txt: empty when no record held any text. */
	if (txn) {
		r = store_txn_write_file(txn, "dmesg.txt", log_buffer_text(&a->log),
					 log_buffer_text_len(&a->log));
		if (r < 0)
			return log_error_errno(r, "%s: cannot write dmesg.txt of crash %s: %m",
					       store_path(a->store), id);
	}
	if (sink.cut && crash_truncated(crash,
					"MaxLogSize=%" PRIu64 ": the log holds its newest %zu "
					"bytes, from the first whole line",
					a->config->max_log_size, log_buffer_text_len(&a->log)) < 0)
		return -ENOMEM;
	if (c->kind == PSTORE_CRASH_KERNEL) {
		r = crash_add_analysis(crash, log_buffer_text(&a->log),
				       log_buffer_text_len(&a->log));
		if (r >= 0)
			r = crash_add_build_ids(crash);
		if (r >= 0)
			r = kdump_join(a, crash);
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
