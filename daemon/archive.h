/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * "pstored archive", by job; archive.c has the order of a run and what it
 * promises:
 *
 *   archive.c          reading pstore and planning each crash from what the
 *                      store and the journal hold of it; the run, its budget
 *                      and its record (last-archive.json, metrics)
 *   archive-crash.c    building the crash document and its log
 *   archive-decode.c   decoding a record of the dump into the log
 *   archive-log.c      the log of the crash at hand (LogBuffer, LogSink)
 *   archive-commit.c   committing staged crashes, journaling, erasing
 *   archive-kdump.c    the dumps of kdump-tools, taken once each, never changed
 *
 * Every function here logs its failure once and returns a negative errno;
 * a crash that fails leaves all its records in pstore.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

#include "archive-journal.h"
#include "config/config.h"
#include "kdump/kdump.h"
#include "pstore/pstore.h"
#include "sha256-util.h"
#include "store/journal-fields.h"
#include "store/kdump-taken.h"
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

/*
 * Where a crash's log is assembled, in a->log: at most MaxLogSize= bytes of
 * it, the newest. The log runs oldest line first, and the newest lines (of a
 * dump, Part1) hold the panic: once the log is full, each write overwrites its
 * oldest bytes, the buffer used as a ring from head on, which
 * log_sink_finish() turns back into a log that starts with a whole line.
 */
typedef struct LogSink {
	LogBuffer *log;
	size_t max;  /* MaxLogSize= */
	size_t head; /* once full: where the oldest byte is, and the next one goes */
	bool cut;
} LogSink;

/*
 * A crash of this run waiting for the rest of its batch before it is erased:
 * written to the store's staging area, to be committed and then journaled
 * (Storage=both|store); or sent to journald, to be read back from the
 * journal files (Storage=journal).
 */
typedef struct Staged {
	const PstoreCrash *crash;
	StoreTxn *txn;		   /* NULL for Storage=journal */
	JournalCrashFields fields; /* of its journal entry but the log, which is in the store */
	char id[STORE_CRASH_ID_LEN + 1];
} Staged;

/*
 * Crashes committed together. Each commit waits for the disk twice (see
 * store_txns_commit()), which costs more than anything else a crash needs;
 * a staged crash holds a few KiB (its journal fields and index summary).
 */
#define STAGED_MAX 128

/* How long a run waits for another run on the same store to finish. */
#define ARCHIVE_LOCK_TIMEOUT_SEC 30

typedef struct Archive {
	PstoredConfig *config;
	const char *pstore_dir;
	bool mount_pstore; /* pstore_dir is the default: mount pstore there if needed */
	int pstore_fd;
	const char *store_dir;
	PstoreScan *scan;
	int kdump_fd;			    /* KdumpDir=, -1 when off or missing */
	KdumpScan *kdump;		    /* its complete dumps */
	struct KdumpPending *kdump_pending; /* the dumps not taken yet, n_dumps of them */
	KdumpTaken kdump_taken;		    /* <store>/kdump-taken, as read and then added to */
	Store *store;			    /* NULL unless Storage=both|store */
	Store *other_store; /* Storage=journal|none: the store directory, if any, for lock and record */
	int lock_fd;	    /* the store's lock of archive runs (store_lock_archive()) */
	bool lock_busy;	    /* another run held it for ARCHIVE_LOCK_TIMEOUT_SEC */
	json_t *summaries; /* of the store after the run, NULL until listed */
	bool store_failed; /* could not be opened: nowhere to record the run */
	bool journal;
	bool unlink;
	sd_journal *journal_reader;
	/* The boots of the journal, for the crashed boot of each crash; listed at the first crash. */
	JournalBoot *boots;
	size_t n_boots;
	bool boots_listed;
	char boot_id[SD_ID128_STRING_MAX], machine_id[SD_ID128_STRING_MAX];
	usec_t started_at;
	unsigned archived, already, dropped, failed;
	unsigned erased;		 /* records */
	uint64_t run_records, run_bytes; /* taken from MaxRecordsPerRun=, MaxBytesPerRun= */
	int first_error;		 /* of the first crash that failed */
	char *error;			 /* the message of the failure that ended the run */
	Staged staged[STAGED_MAX];
	size_t n_staged;
	LogBuffer log; /* of the crash at hand */
} Archive;

/* The log of the crash at hand (archive-log.c). */
const char *log_buffer_text(const LogBuffer *b);
size_t log_buffer_text_len(const LogBuffer *b);
/* The journal field of the log: JOURNAL_LOG_FIELD alone for an empty one. */
const char *log_buffer_field(const LogBuffer *b, size_t *ret_len);
void log_buffer_reset(LogBuffer *b);
/* Makes room for more bytes of log after what is in b. */
int log_buffer_reserve(LogBuffer *b, size_t more);
/* Adds to the log; past MaxLogSize=, its oldest bytes make room. */
int log_sink_write(LogSink *l, const char *buf, size_t len);
/* Puts the log of a ring back in order; a log that was cut starts with its first whole line. */
void log_sink_finish(LogSink *l);
/* Reads the log of a crash that is in the store into a->log. */
int read_stored_log(Archive *a, const char *id);

/* Reading pstore (archive.c). */
/* Says why a record stays in pstore, once: archive_crash() stops at the first failure. */
void log_record_error(const Archive *a, const PstoreRecord *r, int error);
/* Reads a record, with its SHA-256; does not log. */
int read_record(Archive *a, const PstoreRecord *r, char **ret_raw, size_t *ret_raw_len,
		char hex[static SHA256_HEX_SIZE]);
/* Test hook: waits PSTORED_TEST_STEP_DELAY= before a step of archiving a crash. */
void test_step_delay(const char *step, const char *id);
/* Counts n crashes that could not be archived; the first error picks the advice of the summary. */
void archive_failed(Archive *a, int error, size_t n);

/* The crash document (archive-crash.c). */
/* Says in crash["truncated"] what a budget left out of the crash. */
_printf_(2, 3) int crash_truncated(json_t *crash, const char *fmt, ...);
/* The "upload" of a new crash: every target pending if it waits for them, else none. */
json_t *crash_upload_new(Archive *a, bool waits);
/* The journal's boot that was running at time (µs), or NULL; see journal_boot_at(). */
const char *crashed_boot(Archive *a, uint64_t time, char buf[static SD_ID128_STRING_MAX]);
/* crash["analysis"] of the log, and the reason it gives when it says more. */
int crash_add_analysis(json_t *crash, const char *log, size_t len);
/* crash["build_ids"]: of the running kernel and its modules in the trace, when it crashed. */
int crash_add_build_ids(json_t *crash);
/* The crash id, from the key record; does not log. */
int crash_id(Archive *a, const PstoreCrash *c, char id[static STORE_CRASH_ID_LEN + 1]);
/* Puts the crash into the store (txn != NULL) or only builds its document, and its log in a->log. */
int build_crash(Archive *a, const PstoreCrash *c, const char *id, StoreTxn *txn,
		json_t **ret_crash);

/* Decoding (archive-decode.c). */
/* Puts a record of the dump into the log: its text, or the decoding of a hardware error. */
int decode_record(Archive *a, const PstoreCrash *c, const PstoreRecord *r, const char *raw,
		  size_t raw_len, LogSink *sink, json_t *crash);

/* What archiving a crash takes (archive.c), decided from the store and the journal. */
typedef struct CrashPlan {
	bool store;	 /* not in the store: stage it; journaled and erased after its commit */
	bool journal;	 /* not in the journal: send its entry */
	bool from_store; /* the entry is made from the stored crash, not built again */
	bool done;	 /* in the store and the journal, as configured: only erasing is left */
	bool erase;	 /* erase its records from pstore (Unlink=yes, no --no-unlink) */
} CrashPlan;
int crash_plan(Archive *a, const char *id, CrashPlan *ret);
/* A crash in the store: sends its journal entry if the plan says, and counts it. */
int finish_stored_crash(Archive *a, const CrashPlan *plan, const char *id);

/* kdump (archive-kdump.c). */
/* Lists the dumps of KdumpDir=; returns > 0 if it has complete ones. Logs, never fails. */
int archive_open_kdump(Archive *a);
/*
 * Before the pstore crashes: reads which dumps were taken, and the report
 * line of each other one, for kdump_join() to match.
 */
void archive_kdump_prepare(Archive *a);
/*
 * A pstore kernel crash being built (crash.json, its log in a->log): if a dump
 * not taken yet caught the same panic, the crash gets it as its second source.
 */
int kdump_join(Archive *a, json_t *crash);
/* The crash id is durable and journaled: a dump that joined it is taken. */
void kdump_joined_done(Archive *a, const char *id);
/* Takes each other new dump into the store, or joins it to a stored crash of the same panic. */
void archive_kdump(Archive *a);
void archive_kdump_done(Archive *a);

/* Committing and erasing (archive-commit.c). */
/* Writes the crash to the store's staging area; archive_commit() journals and erases it. */
int stage_crash(Archive *a, const PstoreCrash *c, const char *id);
/*
 * Storage=journal: sends the crash's entry, and stages it to be read back from
 * the journal files by archive_commit() before it is erased.
 */
int journal_crash(Archive *a, const PstoreCrash *c, const char *id);
/* Sends the journal entry of a crash that is in the store, read back from there. */
int journal_stored_crash(Archive *a, const char *id);
/*
 * Ends a batch of staged crashes: makes them durable in the store in one
 * commit, or has journald write them out and reads them back; then erases
 * each crash that is where Storage= wants it.
 */
void archive_commit(Archive *a);
/* Erases the crash's records from pstore, the key record last. */
int erase_crash(Archive *a, const PstoreCrash *c);
