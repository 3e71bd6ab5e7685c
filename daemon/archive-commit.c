// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Committing and erasing: crashes staged in the store are committed in
 * batches, then journaled and erased; a crash already stored is journaled
 * from the store. With Storage=journal, crashes sent to the journal are read
 * back from the journal files in batches before they are erased. Records are
 * erased only once the crash is where Storage= wants it, the key record last.
 */

#include <errno.h>
#include <unistd.h>

#include "archive.h"
#include "archive-journal.h"
#include "log.h"
#include "macro.h"

/* What the log says a crash of each kind is. */
static const char *const crash_kind_descriptions[] = {
	[PSTORE_CRASH_KERNEL] = "kernel crash",
	[PSTORE_CRASH_HARDWARE_ERROR] = "hardware error",
	[PSTORE_CRASH_PREVIOUS_BOOT_LOG] = "previous-boot log",
};
DEFINE_PRIVATE_STRING_TABLE_TO_STRING(crash_kind_description, PstoreCrashKind,
				      crash_kind_descriptions, _PSTORE_CRASH_KIND_MAX)

static void log_archived(const PstoreCrash *c, const char *id)
{
	size_t n = pstore_crash_n_records(c);

	log_info("Archived %s %s (%zu record%s from %s).",
		 crash_kind_description_to_string(c->kind), id, n, n == 1 ? "" : "s", c->key->name);
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

int erase_crash(Archive *a, const PstoreCrash *c)
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

int stage_crash(Archive *a, const PstoreCrash *c, const char *id)
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

/* Sends the entry of crash, whose log is in a->log. */
static int send_crash(Archive *a, json_t *crash, const char *id)
{
	const char *log;
	size_t log_len;
	int r;

	test_step_delay("the journal entry", id);
	log = log_buffer_field(&a->log, &log_len);
	r = journal_send_crash(crash, log, log_len);
	if (r < 0)
		return log_error_errno(
			r,
			"Cannot send crash %s to the journal: %m; its records stay in "
			"pstore",
			id);
	return 0;
}

int journal_stored_crash(Archive *a, const char *id)
{
	json_auto_t *crash = NULL;
	int r;

	r = load_stored_crash(a, id, &crash);
	if (r < 0)
		return r;
	return send_crash(a, crash, id);
}

int journal_crash(Archive *a, const PstoreCrash *c, const char *id)
{
	json_auto_t *crash = NULL;
	Staged *st;
	int r;

	r = build_crash(a, c, id, NULL, &crash);
	if (r < 0)
		return r;
	r = send_crash(a, crash, id);
	if (r < 0)
		return r;
	st = &a->staged[a->n_staged++];
	*st = (Staged){.crash = c};
	memcpy(st->id, id, sizeof(st->id));
	return 0;
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
		log = log_buffer_field(&a->log, &log_len);
		r = journal_send_crash_fields(&st->fields, log, log_len);
		if (r < 0)
			return log_error_errno(r,
					       "Cannot send crash %s to the journal: %m; its "
					       "records stay in pstore",
					       st->id);
	}
	kdump_joined_done(a, st->id);
	a->archived++;
	if (!a->unlink)
		return 0;
	test_step_delay("erasing", st->id);
	return erase_crash(a, st->crash);
}

/*
 * Makes the staged crashes durable in one commit (store_txns_commit() says in
 * which order it syncs and renames), then journals and erases each. Nothing
 * of a batch is journaled or erased before its commit returned: should it
 * fail, every record of the batch stays in pstore for the next run.
 */
static void commit_to_store(Archive *a)
{
	StoreTxn *txns[STAGED_MAX];
	int r;

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
}

/*
 * Storage=journal: the journal is the only copy, but an entry that
 * sd_journal_sendv() handed over may still be lost: it returns success when
 * journald does not run at all, a datagram journald accepted is not written
 * yet, and a journald that keeps nothing (Storage=none in journald.conf) or
 * rate-limits drops it. So, as 'journalctl --sync' does, journald is asked to
 * write out what it received, and each crash's entry is then looked up in the
 * journal files; only a crash found there counts as archived, and is erased.
 */
static void commit_to_journal(Archive *a)
{
	int r;

	log_debug("Waiting for systemd-journald to write out the entries of %zu crashes.",
		  a->n_staged);
	r = journal_synchronize();
	if (r < 0) {
		log_error_errno(r,
				"%s: cannot have systemd-journald write out the entries of %zu "
				"crashes: %m; their records stay in pstore",
				JOURNAL_VARLINK_SOCKET, a->n_staged);
		archive_failed(a, r, a->n_staged);
		return;
	}
	/* A reader opened earlier in the run does not see journal files created since. */
	sd_journal_close(a->journal_reader);
	a->journal_reader = NULL;
	for (size_t i = 0; i < a->n_staged; i++) {
		Staged *st = &a->staged[i];

		r = journal_crash_is_logged(&a->journal_reader, st->id);
		if (r < 0)
			r = log_error_errno(r,
					    "Cannot read crash %s back from the journal: %m; its "
					    "records stay in pstore",
					    st->id);
		else if (r == 0)
			r = log_error_errno(ENODATA,
					    "Crash %s is not in the journal files although "
					    "systemd-journald wrote them out; its records stay in "
					    "pstore",
					    st->id);
		if (r < 0) {
			archive_failed(a, r, 1);
			continue;
		}
		log_archived(st->crash, st->id);
		a->archived++;
		if (!a->unlink)
			continue;
		test_step_delay("erasing", st->id);
		r = erase_crash(a, st->crash);
		if (r < 0)
			archive_failed(a, r, 1);
	}
}

void archive_commit(Archive *a)
{
	if (a->n_staged == 0)
		return;
	if (a->store)
		commit_to_store(a);
	else
		commit_to_journal(a);
	a->n_staged = 0;
}
