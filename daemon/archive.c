// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "pstored archive": every crash in pstore goes into the store (durably),
 * then into the journal, and only then are its records erased. A run
 * interrupted anywhere and run again finds the crash by its id (derived from
 * the key record, which is erased last) in the store and in the journal, and
 * does only what is left.
 *
 * A run: archive_setup() loads the configuration, archive_scan() lists and
 * groups the records, crash_plan() decides for each crash what is left to do;
 * archive-crash.c builds it, archive-commit.c stores, journals and erases it.
 * The run is recorded in last-archive.json and the metrics.
 *
 * Memory: one record at a time, plus one crash's log.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>

#include "archive.h"
#include "archive-journal.h"
#include "archive-metrics.h"
#include "cper/cper.h"
#include "log.h"
#include "macro.h"
#include "pstore-mount.h"
#include "pstored.h"
#include "sha256-util.h"
#include "store/last-archive.h"
#include "store/retention.h"
#include "time-util.h"

static void archive_done(Archive *a)
{
	sd_journal_close(a->journal_reader);
	free(a->boots);
	json_decref(a->summaries);
	if (a->lock_fd >= 0)
		close(a->lock_fd);
	store_free(a->store);
	store_free(a->other_store);
	pstore_scan_free(a->scan);
	if (a->pstore_fd >= 0)
		close(a->pstore_fd);
	archive_kdump_done(a);
	pstored_config_free(a->config);
	free(a->error);
	free(a->log.field);
}

static bool crash_is_logs_only(const PstoreCrash *c)
{
	for (size_t i = 0; i < c->n_records; i++)
		if (!c->records[i]->name_parsed || !pstore_type_is_log(c->records[i]->n.type))
			return false;
	return true;
}

void log_record_error(const Archive *a, const PstoreRecord *r, int error)
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
int read_record(Archive *a, const PstoreRecord *r, char **ret_raw, size_t *ret_raw_len,
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

/*
 * Test hook: with PSTORED_TEST_STEP_DELAY=SPAN in the environment (a time
 * span, e.g. "5s"), pstored logs each step of archiving a crash and then
 * waits that long before doing it, so that a test can cut the power at a
 * known step (tests/system/run-boot-tests). Unset, empty or malformed: no
 * delay. Documented in pstored(8), ENVIRONMENT.
 */
void test_step_delay(const char *step, const char *id)
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

/* Decided once from what the store and the journal already hold of the crash (by its id). */
int crash_plan(Archive *a, const char *id, CrashPlan *ret)
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

int finish_stored_crash(Archive *a, const CrashPlan *plan, const char *id)
{
	int r;

	if (plan->journal) {
		r = journal_stored_crash(a, id);
		if (r < 0)
			return r;
	}
	if (plan->done)
		a->already++;
	else
		a->archived++;
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
	if (plan.journal && !plan.from_store)
		return journal_crash(a, c, id);
	r = finish_stored_crash(a, &plan, id);
	if (r < 0)
		return r;

	if (!plan.erase)
		return 0;
	test_step_delay("erasing", id);
	return erase_crash(a, c);
}

void archive_failed(Archive *a, int error, size_t n)
{
	if (a->failed == 0)
		a->first_error = error;
	a->failed += n;
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
	case ECONNREFUSED:
		return "systemd-journald is not running; start it (systemctl start "
		       "systemd-journald), or set Storage=both in pstored.conf, then run 'pstored "
		       "archive' again";
	case ECONNRESET:
	case ETIMEDOUT:
		return "systemd-journald did not write out the entries; see 'systemctl status "
		       "systemd-journald', then run 'pstored archive' again";
	case ENODATA:
		return "systemd-journald kept no entry; check Storage= and the rate limits in "
		       "journald.conf (see journald.conf(5)), or set Storage=both in pstored.conf, "
		       "then run 'pstored archive' again";
	case EOPNOTSUPP:
		return "this systemd-journald cannot be asked to write out its entries (systemd "
		       "245 and later can); set Storage=both in pstored.conf, then run 'pstored "
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
	uint64_t records = 0, bytes = 0, newest = 0;

	for (size_t i = 0; (rec = pstore_crash_record(c, i)); i++) {
		/* Such a crash fails at once, having read nothing: see crash_check_records(). */
		if (rec->error < 0)
			return true;
		records++;
		bytes += rec->size;
		newest = MAX(newest, rec->time);
	}
	if (a->run_records > 0 && (a->run_records + records > a->config->max_records_per_run ||
				   a->run_bytes + bytes > a->config->max_bytes_per_run))
		return false;
	/* A scan that left the newest records out (see archive_scan()) may have left out parts of
	 * a crash stored near them: such a crash waits for a run that sees it whole. */
	if (a->run_records > 0 && a->scan->cut_time != UINT64_MAX &&
	    newest + PSTORE_DUMP_WINDOW_USEC >= a->scan->cut_time)
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
	a->unlink = a->config->unlink && !arg_no_unlink;
	a->journal = !arg_no_journal && (a->config->storage == PSTORED_STORAGE_BOTH ||
					 a->config->storage == PSTORED_STORAGE_JOURNAL);
	/* The journal is the only copy with Storage=journal: without it, nothing would hold the crash. */
	if (arg_no_journal && a->config->storage == PSTORED_STORAGE_JOURNAL)
		return log_error_errno_save(-EINVAL, &a->error,
					    "--no-journal with Storage=journal would keep the crashes "
					    "nowhere; nothing archived, the records stay in %s: drop "
					    "--no-journal, or set Storage=both (or store) in pstored.conf.",
					    a->pstore_dir);
	return 0;
}

/* Opens pstore. Returns 0 if there is no pstore, or nothing in it. */
static int archive_open_pstore(Archive *a)
{
	int r;

	r = pstore_dir_open(a->pstore_dir, a->mount_pstore, &a->pstore_fd, &a->error);
	if (r <= 0)
		return r;
	r = pstore_dir_has_entries(a->pstore_fd);
	if (r < 0)
		return log_error_errno_save(r, &a->error, "%s: cannot list records: %m",
					    a->pstore_dir);
	if (r == 0)
		log_debug("%s: no records.", a->pstore_dir);
	return r;
}

/* Lists the records of pstore and groups them into crashes. */
static int archive_scan(Archive *a)
{
	const PstoredConfig *config = a->config;
	int r;

	/*
	 * The records a run can take, and the parts of a dump that straddles its budget: the
	 * oldest of them are kept, however many entries pstore holds (pstored(8), Bounds).
	 */
	uint64_t max_records = config->max_records_per_run > UINT64_MAX - config->max_parts
				       ? UINT64_MAX
				       : config->max_records_per_run + config->max_parts;

	(void)sd_notifyf(false, "STATUS=Reading %s", a->pstore_dir);
	r = pstore_scan(a->pstore_fd, config->max_record_size,
			(size_t)MIN(max_records, (uint64_t)SIZE_MAX), probe_record, NULL, &a->scan);
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
	if (a->scan->n_skipped_seen > a->scan->n_skipped)
		log_warning("%s: %zu more entries that are not pstore records skipped",
			    a->pstore_dir, a->scan->n_skipped_seen - a->scan->n_skipped);
	return 0;
}

/*
 * Opens (or creates) the store, if Storage= wants one; else the store
 * directory if there is one, for the run's lock and its record.
 */
static int archive_open_store(Archive *a)
{
	int r;

	if (a->config->storage != PSTORED_STORAGE_BOTH &&
	    a->config->storage != PSTORED_STORAGE_STORE) {
		r = store_open(a->store_dir, 0, &a->other_store);
		if (r < 0 && r != -ENOENT)
			log_warning_errno(r,
					  "%s: cannot open the store directory to lock this run: "
					  "%m; archiving unlocked (check the owner and access mode "
					  "of the store, see pstored-store(5))",
					  a->store_dir);
		return 0;
	}
	r = store_open(a->store_dir, STORE_CREATE, &a->store);
	if (r == -EPERM) {
		a->store_failed = true;
		return log_error_errno_save(
			r, &a->error,
			"%s: refusing an unsafe crash store: it must be owned by root (or by the "
			"user running pstored) and not be writable by group or others; the records "
			"stay in %s: fix it with 'chown root: %s' and 'chmod go-w %s', see "
			"pstored-store(5).",
			a->store_dir, a->pstore_dir, a->store_dir, a->store_dir);
	}
	if (r < 0) {
		a->store_failed = true;
		return log_error_errno_save(r, &a->error,
					    "%s: cannot open the crash store: %m; the records stay "
					    "in %s%s%s.",
					    a->store_dir, a->pstore_dir,
					    failure_hint(r, true) ? ": " : "",
					    failure_hint(r, true) ?: "");
	}
	return 0;
}

/*
 * Takes the store's lock of archive runs, waiting ARCHIVE_LOCK_TIMEOUT_SEC for
 * another run to finish: two runs at once would read the same records and
 * erase them under each other. Without a store directory (Storage=journal
 * before there is one) there is nothing to lock.
 */
static int archive_lock(Archive *a)
{
	Store *s = a->store ?: a->other_store;
	int r;

	if (!s)
		return 0;
	r = store_lock_archive(s, 0);
	if (r == -EWOULDBLOCK) {
		log_info("%s/" STORE_ARCHIVE_LOCK_FILE ": another 'pstored archive' is running; "
			 "waiting up to %d s for it to finish.",
			 store_path(s), ARCHIVE_LOCK_TIMEOUT_SEC);
		r = store_lock_archive(s, ARCHIVE_LOCK_TIMEOUT_SEC * USEC_PER_SEC);
	}
	if (r == -EWOULDBLOCK) {
		a->lock_busy = true;
		return log_error_errno_save(
			r, &a->error,
			"%s/" STORE_ARCHIVE_LOCK_FILE
			": another 'pstored archive' has been running "
			"for more than %d s; the records in %s are left to it: run 'pstored "
			"archive' again once it has finished.",
			store_path(s), ARCHIVE_LOCK_TIMEOUT_SEC, a->pstore_dir);
	}
	if (r < 0)
		return log_error_errno_save(r, &a->error,
					    "%s/" STORE_ARCHIVE_LOCK_FILE ": cannot lock the store "
					    "for this run: %m; the records stay in %s%s%s.",
					    store_path(s), a->pstore_dir,
					    failure_hint(r, true) ? ": " : "",
					    failure_hint(r, true) ?: "");
	a->lock_fd = r;
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
	if (a->scan->n_records < a->scan->n_records_seen) {
		size_t left = a->scan->n_records_seen;

		for (size_t i = 0; i < n; i++)
			left -= pstore_crash_n_records(&a->scan->crashes[i]);
		log_warning("%zu of %zu records left in %s for the next run: this run reached "
			    "its budget, MaxRecordsPerRun= or MaxBytesPerRun= (raise them in "
			    "pstored.conf to archive more at once)",
			    left, a->scan->n_records_seen, a->pstore_dir);
	} else if (n < a->scan->n_crashes)
		log_warning("%zu of %zu crashes left in %s for the next run: this run reached "
			    "its budget, MaxRecordsPerRun= or MaxBytesPerRun= (raise them in "
			    "pstored.conf to archive more at once)",
			    a->scan->n_crashes - n, a->scan->n_crashes, a->pstore_dir);
}

static int archive_run(Archive *a)
{
	bool pstore, kdump;
	size_t n_crashes;
	int r;

	r = archive_setup(a);
	if (r < 0)
		return r;
	r = archive_open_pstore(a);
	if (r < 0)
		return r;
	pstore = r > 0;
	kdump = archive_open_kdump(a) > 0;
	if (!pstore && !kdump)
		return 0;
	r = archive_open_store(a);
	if (r < 0)
		return r;
	r = archive_lock(a);
	if (r < 0)
		return r;
	if (pstore) {
		r = archive_scan(a);
		if (r < 0)
			return r;
		if (a->scan->n_crashes == 0)
			log_debug("%s: no crashes.", a->pstore_dir);
	}
	n_crashes = a->scan ? a->scan->n_crashes : 0;
	if (n_crashes == 0 && !kdump)
		return 0;
	if (a->store)
		vacuum_store(a);
	if (kdump)
		archive_kdump_prepare(a);

	if (n_crashes > 0)
		archive_crashes(a);
	if (kdump)
		archive_kdump(a);

	(void)sd_notifyf(false,
			 "STATUS=Archived %u crashes (%u already done, %u dropped, %u failed)",
			 a->archived, a->already, a->dropped, a->failed);
	if (a->failed > 0) {
		const char *hint = failure_hint(a->first_error, a->store);

		if (kdump)
			return log_error_errno_save(
				EIO, &a->error,
				"%u of %zu crashes could not be archived; their records stay in "
				"%s, "
				"their kdump dumps in %s, for the next run%s%s.",
				a->failed, n_crashes + a->kdump->n_dumps, a->pstore_dir,
				a->config->kdump_dir, hint ? ": " : "", hint ?: "");
		return log_error_errno_save(EIO, &a->error,
					    "%u of %zu crashes could not be archived; their "
					    "records stay in %s for the next run%s%s.",
					    a->failed, n_crashes, a->pstore_dir, hint ? ": " : "",
					    hint ?: "");
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
	Store *s = a->store ?: a->other_store;
	int r;

	if (!s && a->store_failed)
		return;
	if (!s) {
		r = store_open(a->store_dir, 0, &opened);
		if (r == -ENOENT) {
			log_debug("%s does not exist; this run is not recorded.", a->store_dir);
			return;
		}
		if (r < 0) {
			log_warning_errno(r,
					  "%s: cannot record this run for 'pstorectl status': %m; "
					  "check the access mode and the file system of the store",
					  a->store_dir);
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
	_cleanup_(archive_done) Archive a = {
		.pstore_dir = arg_pstore_dir ?: PSTORE_DEFAULT_DIR,
		.mount_pstore = !arg_pstore_dir,
		.pstore_fd = -1,
		.kdump_fd = -1,
		.store_dir = arg_store_dir,
		.lock_fd = -1,
		.started_at = now_usec(),
	};
	int r;

	r = archive_run(&a);
	/* The run that holds the lock records its own run, and the metrics. */
	if (a.lock_busy)
		return PSTORED_EXIT_ARCHIVE_BUSY;
	archive_record_run(&a, r);
	archive_metrics_write(a.config, a.store_dir,
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
