// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dumps of kdump-tools (lib/kdump/kdump.h) as crashes: each complete dump
 * of KdumpDir= that <store>/kdump-taken does not list is taken once, after the
 * crashes of pstore. Its dmesg becomes a kernel crash of source "kdump" (the
 * store, one journal entry, the upload queue, as any crash), or, when pstore
 * caught the same panic (crash_kexec_post_notifiers), joins that crash as its
 * second source. Nothing below KdumpDir= is ever changed: kdump-tools' own
 * KDUMP_NUM_DUMPS decides when a dump goes.
 *
 * Idempotent like the rest: the crash id comes from the dmesg, so a dump taken
 * again (its line in kdump-taken lost) is found in the store; a dump is
 * recorded as taken only once its crash is durable, and journaled.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "analyse/analyse.h"
#include "archive.h"
#include "log.h"
#include "macro.h"
#include "pstored.h"
#include "sha256-util.h"
#include "store/kdump-taken.h"
#include "utf8-util.h"

/* The dumps a run takes at most: the oldest first, the others in the next runs. */
#define KDUMP_DUMPS_PER_RUN 64
/*
 * How far apart the pstore record and the kdump dmesg of one panic can be
 * stored: the capture kernel boots and writes the dmesg within minutes of the
 * panic that pstore stored.
 */
#define KDUMP_JOIN_WINDOW_USEC (3600ULL * USEC_PER_SEC)

/* A dump of the scan not taken yet, as archive_kdump_prepare() read it. */
typedef struct KdumpPending {
	bool taken; /* listed in kdump-taken: nothing to do */
	bool read;  /* its report line below was read */
	char sha256[SHA256_HEX_SIZE];
	char *message;			     /* the analysis's report line; NULL: none to join on */
	uint64_t line_time;		     /* its printk time */
	char joined[STORE_CRASH_ID_LEN + 1]; /* the pstore crash of this run it joined, or "" */
	bool joined_done;		     /* that crash is durable and journaled */
} KdumpPending;

static void log_skipped(const Archive *a, const KdumpSkipped *k)
{
	_cleanup_free_ char *name = utf8_escape(k->name, strlen(k->name), 0);
	const char *dir = a->config->kdump_dir;

	if (!name) {
		log_oom();
		return;
	}
	switch (k->reason) {
	case KDUMP_SKIP_INCOMPLETE:
		log_info("%s/%s: kdump dump %s; left for a later run.", dir, name,
			 kdump_skip_to_string(k->reason));
		break;
	case KDUMP_SKIP_NO_DMESG:
		log_debug("%s/%s: %s, not a kdump dump to take.", dir, name,
			  kdump_skip_to_string(k->reason));
		break;
	case KDUMP_SKIP_UNREADABLE:
		log_warning_errno(k->error, "%s/%s: kdump dump cannot be read: %m; not taken", dir,
				  name);
		break;
	default:
		log_warning(
			"%s/%s: %s; not taken as a kdump dump (kdump-tools does not write it so)",
			dir, name, kdump_skip_to_string(k->reason));
	}
}

int archive_open_kdump(Archive *a)
{
	const char *dir = a->config->kdump_dir;
	int r;

	if (!a->config->kdump || !dir)
		return 0;
	a->kdump_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->kdump_fd < 0) {
		if (errno == ENOENT)
			log_debug("%s does not exist: no kdump dumps.", dir);
		else
			log_warning_errno(errno,
					  "Cannot open %s: %m; kdump dumps are not taken (check "
					  "KdumpDir= in pstored.conf)",
					  dir);
		return 0;
	}
	r = kdump_scan(a->kdump_fd, KDUMP_DUMPS_PER_RUN, &a->kdump);
	if (r < 0) {
		log_warning_errno(r, "%s: cannot list the kdump dumps: %m; none taken", dir);
		return 0;
	}
	for (size_t i = 0; i < a->kdump->n_skipped; i++)
		log_skipped(a, &a->kdump->skipped[i]);
	if (a->kdump->n_skipped_seen > a->kdump->n_skipped)
		log_info("%s: %zu more directories not taken as kdump dumps", dir,
			 a->kdump->n_skipped_seen - a->kdump->n_skipped);
	return a->kdump->n_dumps > 0;
}

/* crash["kdump"]: where the dump is, for people and crash(8), and what opens its vmcore. */
static json_t *kdump_json(const Archive *a, const KdumpDump *d, const char *sha256)
{
	_cleanup_free_ char *dir = NULL, *vmcore = NULL;
	KdumpVmcoreFormat format = KDUMP_VMCORE_UNKNOWN;
	int r;

	if (asprintf(&dir, "%s/%s", a->config->kdump_dir, d->name) < 0 ||
	    asprintf(&vmcore, "%s/%s", dir, d->vmcore_name) < 0)
		return NULL;
	r = kdump_vmcore_format(a->kdump_fd, d, &format);
	if (r < 0)
		log_warning_errno(r,
				  "%s: cannot read the start of the vmcore: %m; its format is "
				  "unknown",
				  vmcore);
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "directory", dir, "dmesg", d->dmesg_name,
			 "dmesg_sha256", sha256, "vmcore", vmcore, "vmcore_format",
			 kdump_vmcore_format_to_string(format));
}

/* True if crash has the source "kdump", of the dmesg whose SHA-256 is sha256 if not NULL. */
static bool crash_has_kdump(json_t *crash, const char *sha256)
{
	json_t *k = json_object_get(crash, "kdump");
	const char *h = json_string_value(json_object_get(k, "dmesg_sha256"));

	return k && (!sha256 || (h && streq(h, sha256)));
}

/*
 * The crash of the store that caught the same panic as the dump: a kernel
 * crash stored within KDUMP_JOIN_WINDOW_USEC of it whose analysis found the
 * same report line, which its log prints at the same printk time, and that
 * holds no other kdump dump (sha256: of this one's dmesg). Returns 1 and
 * *ret_id if there is one.
 */
static int find_same_panic(Archive *a, const KdumpDump *d, const char *log, size_t len,
			   const DmesgAnalysis *analysis, const char *sha256,
			   char ret_id[static STORE_CRASH_ID_LEN + 1])
{
	json_auto_t *summaries = NULL;
	uint64_t t;
	json_t *s;
	size_t i;
	int r;

	if (!analysis->message || kdump_line_time(log, len, analysis->message, &t) < 0)
		return 0;
	r = store_list(a->store, &summaries);
	if (r < 0)
		return log_error_errno(r, "%s: cannot list the crashes: %m", store_path(a->store));
	json_array_foreach(summaries, i, s) {
		const char *id = json_string_value(json_object_get(s, "id"));
		const char *message = json_string_value(json_object_get(s, "message"));
		json_int_t time = json_integer_value(json_object_get(s, "time"));
		json_auto_t *crash = NULL;
		uint64_t t2;

		if (!id || !message || !streq(message, analysis->message) ||
		    !streq(json_string_value(json_object_get(s, "kind")) ?: "", "kernel-crash") ||
		    (uint64_t)llabs((long long)time - (long long)d->time) > KDUMP_JOIN_WINDOW_USEC)
			continue;
		if (store_load_crash(a->store, id, &crash) < 0 ||
		    (crash_has_kdump(crash, NULL) && !crash_has_kdump(crash, sha256)))
			continue;
		r = read_stored_log(a, id);
		if (r < 0)
			continue;
		if (kdump_line_time(log_buffer_text(&a->log), log_buffer_text_len(&a->log),
				    analysis->message, &t2) < 0 ||
		    t2 != t)
			continue;
		memcpy(ret_id, id, STORE_CRASH_ID_LEN + 1);
		return 1;
	}
	return 0;
}

/* Makes the dump the second source of the pstore crash id, unless it is already. */
static int join_crash(Archive *a, const KdumpDump *d, const char *sha256, const char *id)
{
	json_auto_t *crash = NULL, *k = NULL;
	int r;

	r = store_load_crash(a->store, id, &crash);
	if (r < 0)
		return log_error_errno(r, "%s: cannot load crash %s: %m", store_path(a->store), id);
	if (crash_has_kdump(crash, sha256))
		return 0;
	k = kdump_json(a, d, sha256);
	if (!k ||
	    json_object_set_new(crash, "sources", json_pack("[s,s]", "pstore", "kdump")) < 0 ||
	    json_object_set(crash, "kdump", k) < 0)
		return log_oom();
	r = store_update_crash(a->store, id, crash);
	if (r < 0)
		return log_error_errno(r, "%s: cannot add the kdump dump %s/%s to crash %s: %m",
				       store_path(a->store), a->config->kdump_dir, d->name, id);
	log_info("Kdump dump %s/%s joined crash %s, the same panic that pstore caught.",
		 a->config->kdump_dir, d->name, id);
	return 0;
}

/* Stores the dump as a crash of its own: its dmesg as the record and the log. */
static int store_kdump_crash(Archive *a, const KdumpDump *d, const char *id, const char *log,
			     size_t len, bool cut, const char *sha256)
{
	_cleanup_(store_txn_freep) StoreTxn *txn = NULL;
	_cleanup_free_ char *path = NULL;
	json_auto_t *crash = NULL, *upload = NULL, *record = NULL;
	char boot[SD_ID128_STRING_MAX];
	const char *crashed;
	int r;

	test_step_delay("storing", id);
	upload = crash_upload_new(a, true);
	if (!upload)
		return log_oom();
	record = json_pack("{s:s, s:I, s:s, s:I}", "name", d->dmesg_name, "size", (json_int_t)len,
			   "sha256", sha256, "time", (json_int_t)d->time);
	crash = json_pack("{s:i, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:b, s:[], s:[], s:[O], s:[], "
			  "s:O, s:[s], s:o}",
			  "schema_version", STORE_SCHEMA_VERSION, "id", id, "kind", "kernel-crash",
			  "reason", "unknown", "time", (json_int_t)d->time, "archived_at",
			  (json_int_t)now_usec(), "boot_id", a->boot_id, "machine_id",
			  a->machine_id, "complete", !cut, "parts_missing", "truncated", "records",
			  record, "logs", "upload", upload, "sources", "kdump", "kdump",
			  kdump_json(a, d, sha256));
	if (!record || !crash || !json_object_get(crash, "kdump"))
		return log_oom();
	crashed = crashed_boot(a, d->time, boot);
	if (crashed && json_object_set_new(crash, "crashed_boot_id", json_string(crashed)) < 0)
		return log_oom();
	if (cut &&
	    crash_truncated(crash,
			    "MaxLogSize=%" PRIu64 ": the dmesg is %" PRIu64
			    " bytes; the log holds its newest %zu, from the first whole line",
			    a->config->max_log_size, d->dmesg_size, len) < 0)
		return -ENOMEM;
	if (crash_add_analysis(crash, log, len) < 0 || crash_add_build_ids(crash) < 0)
		return log_oom();

	r = store_txn_begin(a->store, id, &txn);
	if (r < 0)
		return log_error_errno(r, "%s: cannot add crash %s: %m", store_path(a->store), id);
	if (asprintf(&path, "records/%s", d->dmesg_name) < 0)
		return log_oom();
	r = store_txn_write_file(txn, path, log, len);
	if (r >= 0)
		r = store_txn_write_file(txn, "dmesg.txt", log, len);
	if (r >= 0)
		r = store_txn_commit(txn, crash);
	if (r < 0)
		return log_error_errno(r, "%s: cannot store crash %s: %m", store_path(a->store),
				       id);
	log_info("Archived kernel crash %s (kdump dump %s/%s).", id, a->config->kdump_dir, d->name);
	return 0;
}

/* Reads a dump's dmesg, with its SHA-256 and the crash id it gets on its own. */
static int read_dmesg(Archive *a, const KdumpDump *d, char **ret, size_t *ret_len, bool *ret_cut,
		      char hex[static SHA256_HEX_SIZE], char id[static STORE_CRASH_ID_LEN + 1])
{
	_cleanup_free_ char *log = NULL;
	char name_hex[SHA256_HEX_SIZE];
	const char *digests[2] = {hex, name_hex};
	size_t len;
	bool cut;
	int r;

	r = kdump_dmesg_read(a->kdump_fd, d,
			     (size_t)MIN(a->config->max_log_size, (uint64_t)SIZE_MAX), &log, &len,
			     &cut);
	if (r < 0)
		return log_error_errno(
			r, "%s/%s/%s: cannot read: %m; the dump is left for the next run",
			a->config->kdump_dir, d->name, d->dmesg_name);
	/* As a pstore crash's id (crash_id()): of the dmesg's bytes and its name. */
	if (sha256_hex(log, len, hex) < 0 ||
	    sha256_hex(d->dmesg_name, strlen(d->dmesg_name), name_hex) < 0 ||
	    store_crash_id_from_digests(digests, ARRAY_SIZE(digests), id) < 0)
		return log_oom();
	*ret = TAKE_PTR(log);
	*ret_len = len;
	*ret_cut = cut;
	return 0;
}

void archive_kdump_prepare(Archive *a)
{
	int r;

	if (!a->store) {
		log_notice(
			"%s: kdump dumps are taken only into the store (Storage=both or store in "
			"pstored.conf); left as they are.",
			a->config->kdump_dir);
		return;
	}
	r = store_kdump_taken_read(a->store, &a->kdump_taken);
	if (r < 0) {
		log_error_errno(r,
				"%s/" STORE_KDUMP_TAKEN_FILE
				": cannot read the kdump dumps taken: %m; "
				"none taken this run (move the file away to take them again: those "
				"in the store are found there)",
				store_path(a->store));
		archive_failed(a, r, a->kdump->n_dumps);
		return;
	}
	if (a->kdump_taken.n_bad > 0)
		log_warning("%s/" STORE_KDUMP_TAKEN_FILE ": %zu damaged lines ignored; their dumps "
			    "are looked up in the store again",
			    store_path(a->store), a->kdump_taken.n_bad);
	a->kdump_pending = calloc(a->kdump->n_dumps, sizeof(KdumpPending));
	if (!a->kdump_pending) {
		log_oom();
		archive_failed(a, -ENOMEM, a->kdump->n_dumps);
		return;
	}
	for (size_t i = 0; i < a->kdump->n_dumps; i++) {
		const KdumpDump *d = &a->kdump->dumps[i];
		KdumpPending *p = &a->kdump_pending[i];
		_cleanup_(dmesg_analysis_freep) DmesgAnalysis *analysis = NULL;
		_cleanup_free_ char *log = NULL;
		char id[STORE_CRASH_ID_LEN + 1];
		size_t len;
		bool cut;

		p->taken = kdump_taken_find(&a->kdump_taken, d->dev, d->ino, d->dmesg_ino, d->time);
		/* One that cannot be read now is left to archive_kdump(), which says so. */
		if (p->taken || read_dmesg(a, d, &log, &len, &cut, p->sha256, id) < 0)
			continue;
		if (dmesg_analyse(log, len, &analysis) < 0) {
			log_oom();
			continue;
		}
		p->read = true;
		if (analysis->message &&
		    kdump_line_time(log, len, analysis->message, &p->line_time) >= 0)
			p->message = TAKE_PTR(analysis->message);
	}
}

int kdump_join(Archive *a, json_t *crash)
{
	const char *message =
		json_string_value(json_object_get(json_object_get(crash, "analysis"), "message"));
	uint64_t time = (uint64_t)json_integer_value(json_object_get(crash, "time")), t;
	const char *id = json_string_value(json_object_get(crash, "id"));

	if (!a->kdump_pending || !message || !id ||
	    kdump_line_time(log_buffer_text(&a->log), log_buffer_text_len(&a->log), message, &t) <
		    0)
		return 0;
	for (size_t i = 0; i < a->kdump->n_dumps; i++) {
		const KdumpDump *d = &a->kdump->dumps[i];
		KdumpPending *p = &a->kdump_pending[i];

		if (!p->message || p->joined[0] || !streq(p->message, message) ||
		    p->line_time != t ||
		    (uint64_t)llabs((long long)time - (long long)d->time) > KDUMP_JOIN_WINDOW_USEC)
			continue;
		if (json_object_set_new(crash, "sources", json_pack("[s,s]", "pstore", "kdump")) <
			    0 ||
		    json_object_set_new(crash, "kdump", kdump_json(a, d, p->sha256)) < 0)
			return -ENOMEM;
		memcpy(p->joined, id, sizeof(p->joined));
		return 0;
	}
	return 0;
}

void kdump_joined_done(Archive *a, const char *id)
{
	for (size_t i = 0; a->kdump_pending && i < a->kdump->n_dumps; i++)
		if (streq(a->kdump_pending[i].joined, id))
			a->kdump_pending[i].joined_done = true;
}

/*
 * Takes a dump that joined no crash of this run: into a stored crash of the
 * same panic, else as a crash of its own. *ret gets its line of kdump-taken.
 */
static int take_dump(Archive *a, const KdumpDump *d, KdumpTakenEntry *ret)
{
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *analysis = NULL;
	_cleanup_free_ char *log = NULL;
	char hex[SHA256_HEX_SIZE], id[STORE_CRASH_ID_LEN + 1];
	CrashPlan plan;
	size_t len;
	bool cut;
	int r;

	r = read_dmesg(a, d, &log, &len, &cut, hex, id);
	if (r < 0)
		return r;
	if (dmesg_analyse(log, len, &analysis) < 0)
		return log_oom();

	/* One of its own first: its journal entry may still be missing (crash_plan()). */
	if (!store_has_crash(a->store, id)) {
		r = find_same_panic(a, d, log, len, analysis, hex, ret->crash_id);
		if (r < 0)
			return r;
		if (r > 0)
			return join_crash(a, d, hex, ret->crash_id);
	}

	r = crash_plan(a, id, &plan);
	if (r < 0)
		return r;
	if (plan.store) {
		r = store_kdump_crash(a, d, id, log, len, cut, hex);
		if (r < 0)
			return r;
	}
	r = finish_stored_crash(a, &plan, id);
	if (r < 0)
		return r;
	memcpy(ret->crash_id, id, sizeof(id));
	return 0;
}

void archive_kdump(Archive *a)
{
	size_t n_new = 0;
	int r;

	if (!a->kdump_pending)
		return;
	for (size_t i = 0; i < a->kdump->n_dumps; i++) {
		const KdumpDump *d = &a->kdump->dumps[i];
		const KdumpPending *p = &a->kdump_pending[i];
		KdumpTakenEntry e = {
			.dev = d->dev,
			.ino = d->ino,
			.dmesg_ino = d->dmesg_ino,
			.dmesg_time = d->time,
		};

		if (p->taken)
			continue;
		/* Its crash failed: the dump waits with the pstore records for the next run. */
		if (p->joined[0] && !p->joined_done)
			continue;
		if (p->joined[0]) {
			log_info("Kdump dump %s/%s joined crash %s, the same panic that pstore "
				 "caught.",
				 a->config->kdump_dir, d->name, p->joined);
			memcpy(e.crash_id, p->joined, sizeof(e.crash_id));
		} else {
			(void)sd_notifyf(false, "STATUS=Taking kdump dump %s", d->name);
			r = take_dump(a, d, &e);
			if (r < 0) {
				archive_failed(a, r, 1);
				continue;
			}
		}
		snprintf(e.name, sizeof(e.name), "%s", d->name);
		r = kdump_taken_add(&a->kdump_taken, &e);
		if (r < 0) {
			archive_failed(a, log_oom(), 1);
			continue;
		}
		n_new++;
	}
	if (n_new > 0 || a->kdump_taken.n_bad > 0) {
		r = store_kdump_taken_write(a->store, &a->kdump_taken);
		if (r < 0)
			log_warning_errno(r,
					  "%s/" STORE_KDUMP_TAKEN_FILE
					  ": cannot record the kdump dumps "
					  "taken: %m; the next run finds them in the store again",
					  store_path(a->store));
	}
	json_decref(a->summaries);
	a->summaries = NULL;
	(void)store_list(a->store, &a->summaries);
}

void archive_kdump_done(Archive *a)
{
	for (size_t i = 0; a->kdump_pending && i < a->kdump->n_dumps; i++)
		free(a->kdump_pending[i].message);
	free(a->kdump_pending);
	kdump_taken_done(&a->kdump_taken);
	kdump_scan_free(a->kdump);
	if (a->kdump_fd >= 0)
		close(a->kdump_fd);
}
