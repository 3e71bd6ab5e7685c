/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The crash store (default /var/lib/pstored), described for users in
 * pstored-store(5):
 *
 *	<store>/<crash-id>/crash.json          the crash document (schema below)
 *	<store>/<crash-id>/dmesg.txt           reassembled kernel log, oldest first
 *	<store>/<crash-id>/records/<name>      the pstore files, byte for byte
 *	<store>/index                          listing cache, one summary per line
 *	<store>/kdump-taken                    the kdump dumps taken (kdump-taken.h)
 *
 * The store directory is created 0700: it alone decides who reads the crashes
 * (root only, or also a group the administrator gives it, pstorectl(1)).
 * Everything below it is STORE_DIR_MODE and STORE_FILE_MODE whatever the
 * umask, and takes the store directory's group where that has the
 * set-group-ID bit. A crash directory appears only whole: it
 * is written below <store>/.tmp-<crash-id>, made durable with the other
 * crashes of the same commit (syncfs), then renamed into place and the store
 * directory fsync'ed (see store_txns_commit()).
 * Every change to crash.json is an atomic rewrite followed by an index line.
 *
 * The index is an append-only file of lines: each line is the summary of
 * one crash (store_crash_summary() as JSON, after tab-separated columns that
 * repeat what a listing shows, see index.c) or a tombstone; a later line for
 * the same id supersedes an earlier one. It is a cache: listing checks it
 * against the crash directories (one readdir, no file reads), adds crashes it
 * lacks and drops ones that are gone, compacts it when it has grown, and
 * rebuilds it when it is missing or corrupt.
 *
 * Writers serialise on an flock(2) of the store directory; readers never
 * lock, and a half-written last index line is ignored.
 *
 * Library code: nothing here logs; functions return 0 (or a count) or a
 * negative errno, and leave output parameters untouched on failure.
 * store-internal.h says which file of lib/store/ does which job.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "time-util.h"

#define STORE_SCHEMA_VERSION 1
#define STORE_CRASH_ID_LEN 36 /* UUID text form */
#define STORE_DIR_MODE 0750   /* below the store directory */
#define STORE_FILE_MODE 0640

typedef struct Store Store;
typedef struct StoreTxn StoreTxn;

typedef enum StoreOpenFlags {
	STORE_CREATE = 1 << 0,	 /* create the directory (0700) if missing */
	STORE_READONLY = 1 << 1, /* never write: no index repair, no locking */
} StoreOpenFlags;

/*
 * -EPERM if the store directory is not owned by root or the effective user, or
 * is writable by its group or others: anyone else who can write there could
 * plant crashes (or FIFOs and links) in it. Nothing below it is checked: only
 * its owner can add entries there.
 */
int store_open(const char *dir, StoreOpenFlags flags, Store **ret);
Store *store_free(Store *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(Store *, store_free);
const char *store_path(const Store *s);

/* Summaries of every crash, oldest first (by "time", then "id"). */
int store_list(Store *s, json_t **ret_summaries);

/*
 * A crash as a listing shows it, taken from the index's columns without
 * parsing any JSON, so that listing thousands of crashes stays fast. The
 * strings are never NULL ("" when unknown) and live as long as the listing.
 */
typedef struct StoreListEntry {
	const char *id;
	uint64_t time; /* µs since the epoch, 0 if unknown */
	const char *kind;
	const char *reason;
	const char *kernel_version;
	const char *signature;
	const char *upload;   /* store_upload_state() of the crash */
	const char *headline; /* the analysis message, else the function */
	/* The store_crash_summary() as compact JSON, not NUL-terminated. */
	const char *summary;
	size_t summary_len;
} StoreListEntry;

typedef struct StoreListing StoreListing;

/*
 * Every crash, oldest first (by time, then id), checked against the crash
 * directories. Returns 1 if the index was corrupt (a line whose CRC does not
 * match, see index.c): the listing then comes from the crash directories
 * alone, and store_rebuild_index() repairs the index.
 */
int store_list_entries(Store *s, StoreListing **ret);
size_t store_listing_size(const StoreListing *l);
const StoreListEntry *store_listing_entry(const StoreListing *l, size_t i);
StoreListing *store_listing_free(StoreListing *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(StoreListing *, store_listing_free);

/*
 * The upload state of a crash in one word: "-" (no target), "sent" (every
 * target), "failed" (any target failed), else "pending". upload is
 * crash.json's {"target": {"state": ...}} or a summary's {"target": "state"}.
 */
const char *store_upload_state(json_t *upload);

/*
 * The upload state of a crash (crash.json or its summary) for one target:
 * its "state", or "pending" when it has none (the target was configured
 * after the crash was archived); NULL for the log of a clean boot that has
 * none, which waits for no target (pstorectl upload --force sends it).
 */
const char *store_upload_state_for(json_t *crash, const char *target);

/*
 * Finds the crash whose id starts with prefix (at least one character,
 * case-insensitive). -EINVAL if prefix cannot start a crash id (empty,
 * longer than one, or with other than hex digits and dashes), -ENOENT if
 * no crash has it, -ENOTUNIQ if several: then
 * *ret_matches (if not NULL) gets their summaries. On success *ret_matches
 * gets the one summary.
 */
int store_resolve_id(Store *s, const char *prefix, char **ret_id, json_t **ret_matches);

int store_load_crash(Store *s, const char *id, json_t **ret_crash);
/* Atomically replaces crash.json (its "id" must equal id) and updates the index. */
int store_update_crash(Store *s, const char *id, json_t *crash);
/*
 * The same for n crashes at once, each named by its "id", with two waits for the disk in all
 * rather than two a crash: every new crash.json is written, one syncfs(2) makes them durable,
 * then each is renamed into place and a second syncfs() makes the renames durable; the
 * index gets their lines in one write. A crash whose directory is gone (removed since it was
 * loaded) is skipped. Returns how many were updated. On failure, some crashes may have their
 * new crash.json (not necessarily durable yet) and the others keep their old one.
 */
int store_update_crashes(Store *s, json_t *const *crashes, size_t n);
int store_delete_crash(Store *s, const char *id);

/*
 * Replaces a file of the store directory itself, not of a crash (name is
 * neither a crash id nor the index), atomically but without waiting for the
 * disk: a power cut may leave it empty or torn, which its readers must take
 * for "unknown". Its rename changes the directory: under the write lock, the
 * index keeps its stamp if it had one.
 */
int store_write_file(Store *s, const char *name, const void *buf, size_t len);
/*
 * The lock of 'pstored archive' runs on this store, so that one run at a time
 * reads pstore, archives and erases: an flock(2) of <store>/STORE_ARCHIVE_LOCK_FILE,
 * created if missing, held until the returned fd is closed. Apart from the
 * write lock, which the run takes for each change like any other writer.
 * Waits up to timeout µs for another run to let go (0: not at all), then
 * returns -EWOULDBLOCK.
 */
#define STORE_ARCHIVE_LOCK_FILE ".archive-lock"
int store_lock_archive(Store *s, usec_t timeout);
/* True if the crash exists, whole, in the store. */
bool store_has_crash(Store *s, const char *id);
/* "<store>/<id>/<file>", or the crash directory when file is NULL. */
int store_crash_path(Store *s, const char *id, const char *file, char **ret);
int store_rebuild_index(Store *s);

/* The index line of a crash: the crash.json fields that listing needs. */
int store_crash_summary(json_t *crash, json_t **ret);

bool store_crash_id_is_valid(const char *id);

/* A machine id as sd_id128_to_string() writes it: 32 lowercase hex digits. */
#define STORE_MACHINE_ID_LEN 32
bool store_machine_id_is_valid(const char *id);

/*
 * Crash ids are name-based (SHA-1, RFC 4122 version 5) UUIDs in the pstored
 * namespace, of the SHA-256 digests of the crash's records in order, so the
 * same records always give the same id, whatever the files are called.
 */
int store_crash_id_from_digests(const char *const *sha256_hex, size_t n,
				char ret[static STORE_CRASH_ID_LEN + 1]);

/*
 * Adding a crash: begin a transaction (-EEXIST if the crash exists), write
 * its files, commit with its crash.json. Until the commit nothing is visible;
 * store_txn_free() of an uncommitted transaction removes what was written.
 * The transaction holds the store's write lock.
 */
int store_txn_begin(Store *s, const char *id, StoreTxn **ret);
/* Writes a whole file ("records/NAME" or a plain name); the commit makes it durable. */
int store_txn_write_file(StoreTxn *t, const char *name, const void *buf, size_t len);
/* Bytes written so far. */
uint64_t store_txn_size(const StoreTxn *t);
/* Sets crash["stored_bytes"], writes crash.json, makes everything durable, renames it in place. */
int store_txn_commit(StoreTxn *t, json_t *crash);
/*
 * The same in two steps, for many crashes at once: prepare each (crash.json
 * written, nothing durable or visible yet), then commit them together with
 * one syncfs(2), the renames and one fsync of the store directory. Several
 * transactions of one Store can be open at once; they share its write lock.
 * On failure some of the crashes may be in place, whole; the others are not.
 */
int store_txn_prepare(StoreTxn *t, json_t *crash);
int store_txns_commit(StoreTxn *const *txns, size_t n);
StoreTxn *store_txn_free(StoreTxn *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(StoreTxn *, store_txn_free);

/*
 * Retention, oldest crash first. A crash goes when it was archived more than
 * max_age before now (microseconds, like every time in the store), or while
 * the store holds more than max_crashes crashes or more than max_use bytes; 0
 * turns a limit off. With keep_unsent a crash still waiting for upload (any
 * target "pending" or "failed") is never removed. *ret_removed (if not NULL) gets the removed ids.
 */
typedef struct StoreVacuumLimits {
	uint64_t max_age;
	uint64_t max_use;
	uint64_t max_crashes;
	bool keep_unsent;
} StoreVacuumLimits;

int store_vacuum(Store *s, const StoreVacuumLimits *limits, uint64_t now, json_t **ret_removed);
