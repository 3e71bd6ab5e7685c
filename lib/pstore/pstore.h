/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Reading the pstore filesystem (Documentation/ABI/testing/pstore,
 * fs/pstore/inode.c): every record is one file named
 *
 *	<type>-<backend>-<id>[.enc.z]
 *
 * type is one of pstore_type_names[] (or "type<N>" from older kernels),
 * backend the name the backend registered (erst, efi, efi_pstore, ramoops,
 * ...), id the backend's decimal record id, and ".enc.z" marks a record the
 * kernel could not decompress (raw deflate). dmesg records begin with the
 * header line written by pstore_dump():
 *
 *	<Reason>#<count> Part<n>\n
 *
 * where count numbers the dumps of one boot and Part1 holds the newest
 * chunk of the log.
 *
 * Library code: returns 0 or a negative errno, never logs; output
 * parameters are untouched on failure.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

#define PSTORE_FS_MAGIC 0x6165676C
#define PSTORE_DEFAULT_DIR "/sys/fs/pstore"

typedef enum PstoreType {
	PSTORE_TYPE_DMESG,
	PSTORE_TYPE_MCE,
	PSTORE_TYPE_CONSOLE,
	PSTORE_TYPE_FTRACE,
	PSTORE_TYPE_PMSG,
	PSTORE_TYPE_RTAS,
	PSTORE_TYPE_POWERPC_OFW,
	PSTORE_TYPE_POWERPC_COMMON,
	PSTORE_TYPE_POWERPC_OPAL,
	PSTORE_TYPE_UNKNOWN, /* "unknown", "type<N>", or a name that does not parse */
	_PSTORE_TYPE_MAX,
} PstoreType;

const char *pstore_type_to_string(PstoreType t);
/* Console, pmsg and ftrace: logs of the previous boot rather than crash dumps. */
bool pstore_type_is_log(PstoreType t);

typedef struct PstoreName {
	PstoreType type;
	char type_name[32]; /* as in the name: "dmesg", "type7", ... */
	char backend[64];
	uint64_t id;
	bool compressed; /* ".enc.z" */
} PstoreName;

/* -EINVAL if name is not <type>-<backend>-<id>[.enc.z] with a known type. */
int pstore_name_parse(const char *name, PstoreName *ret);

typedef struct PstoreHeader {
	char reason[16]; /* kmsg_dump_reason_str(): Panic, Oops, Emergency, Shutdown, ... */
	unsigned count;
	unsigned part;
	size_t length; /* bytes of the header line, with its newline */
} PstoreHeader;

/* The header line is within the first PSTORE_HEADER_MAX bytes of a record. */
#define PSTORE_HEADER_MAX 64

/* What pstore_scan() inflates of a compressed record to read its header. */
#define PSTORE_PROBE_MAX 4096

/* Parses the header line at the start of a dmesg record; -EBADMSG if there is none. */
int pstore_header_parse(const char *buf, size_t len, PstoreHeader *ret);

typedef enum PstoreCrashKind {
	PSTORE_CRASH_KERNEL,		/* a Panic, Oops or Emergency dump */
	PSTORE_CRASH_HARDWARE_ERROR,	/* mce-* record, or a raw CPER record */
	PSTORE_CRASH_PREVIOUS_BOOT_LOG, /* console/pmsg/ftrace on its own, Shutdown dumps, others */
	_PSTORE_CRASH_KIND_MAX,
} PstoreCrashKind;

const char *pstore_crash_kind_to_string(PstoreCrashKind k);

typedef struct PstoreRecord {
	char *name;
	bool name_parsed;
	PstoreName n; /* valid if name_parsed */
	uint64_t size;
	uint64_t time; /* mtime, usec since the epoch: when the record was stored */
	bool has_header;
	PstoreHeader header; /* dmesg records with has_header */
	bool is_cper;	     /* starts like a CPER record (set by the caller's probe) */
	int error;	     /* < 0: pstore_scan() could not read or inflate it */
} PstoreRecord;

/* A directory entry pstored will not read, and why. */
typedef struct PstoreSkipped {
	char *name;
	/* "symbolic link", "directory", "special file", "hard link", "name not valid UTF-8" */
	const char *reason;
} PstoreSkipped;

/* Parts first to last, both included. */
typedef struct PstorePartRange {
	unsigned first, last;
} PstorePartRange;

typedef struct PstoreCrash {
	PstoreCrashKind kind;
	/* The main records, whose text is the crash's log; dmesg parts oldest first, i.e.
	 * highest part first. */
	PstoreRecord **records;
	size_t n_records;
	/* The parts of the crash's other dump when the kernel dumped twice as it died, and the
	 * oldest parts of its dump beyond max_parts (see pstore_group()): stored and erased with
	 * the crash, but not in its log. */
	PstoreRecord **other_dump;
	size_t n_other_dump;
	/* Console, pmsg, ftrace logs of the same boot kept with a kernel crash. */
	PstoreRecord **logs;
	size_t n_logs;
	/* Parts between 1 and the highest in the main records that are absent, highest first. */
	PstorePartRange *missing_parts;
	size_t n_missing_parts;
	/* How many of the oldest parts of its dump went to other_dump, beyond max_parts. */
	size_t n_parts_cut;
	/* The record the crash id is derived from, erased last (see pstore_group()). */
	PstoreRecord *key;
	/* The lowest part of the crash's first dump, whose reason is the crash's: an oops that
	 * ended in a panic is an oops. The key unless there is an other dump. */
	PstoreRecord *first;
} PstoreCrash;

/* The records of a crash one by one: main records, other dump, logs; NULL past the last. */
PstoreRecord *pstore_crash_record(const PstoreCrash *c, size_t i);
/* How many records the crash has: main records, other dump and logs. */
size_t pstore_crash_n_records(const PstoreCrash *c);

/* The skipped entries a scan names; it counts the others. */
#define PSTORE_SKIPPED_MAX 16

typedef struct PstoreScan {
	PstoreRecord *records;
	size_t n_records;
	/* Records in the directory: more than n_records when the scan kept only the oldest. */
	size_t n_records_seen;
	/* The time of the oldest record left out; UINT64_MAX when none was. */
	uint64_t cut_time;
	PstoreSkipped skipped[PSTORE_SKIPPED_MAX];
	size_t n_skipped;
	size_t n_skipped_seen; /* skipped entries in all, the first n_skipped named above */
	PstoreCrash *crashes;
	size_t n_crashes;
} PstoreScan;

/*
 * Reads a whole record below dir_fd: opened with O_NOFOLLOW, checked to be a
 * regular file, -EFBIG if it holds more than max bytes. Compressed records
 * are returned raw; see pstore_record_inflate().
 */
int pstore_record_read(int dir_fd, const PstoreRecord *r, size_t max, char **ret, size_t *ret_len);

/*
 * Reads at most size bytes from the start of a record into buf, checked as
 * pstore_record_read() checks it (so also -EFBIG past max bytes).
 */
int pstore_record_read_head(int dir_fd, const PstoreRecord *r, size_t max, char *buf, size_t size,
			    size_t *ret_len);

/*
 * Inflates an .enc.z record's bytes: 0 and all of them, or 1 and the first max
 * bytes when there are more (the budget MaxRecordSize= keeps what fits).
 */
int pstore_record_inflate(const char *buf, size_t len, size_t max, char **ret, size_t *ret_len);

/*
 * Callback for each record pstore_scan() reads whole, with its (inflated) bytes,
 * or NULL and the error if it could not be read: the caller can probe the
 * contents (for example for a CPER signature).
 */
typedef void (*PstoreProbe)(PstoreRecord *r, const char *buf, size_t len, int error,
			    void *userdata);

/*
 * Lists the directory: records sorted by name, the oldest max_records of
 * them (by time, then name; at least 1); in skipped, the first
 * PSTORE_SKIPPED_MAX entries that are not regular files, have more than one
 * link, or whose name is not valid UTF-8, and how many there are in all. The
 * entries stream by one at a time: memory grows with max_records, not with
 * the entries, of which nothing but a count is kept beyond that; each entry
 * costs one fstatat(2). Reads the header of every dmesg record kept: only its first
 * PSTORE_HEADER_MAX bytes unless it is compressed. Reads the other records
 * that are not logs whole (one record in memory at a time, at most max_record
 * bytes) and hands them, and the compressed dmesg records, to probe: of a
 * compressed record, only its first PSTORE_PROBE_MAX inflated bytes, all that
 * a header needs. A compressed record that does not inflate is no error: it
 * has no header, and its bytes are still the record's. A log larger than
 * max_record gets error -EFBIG. No crashes yet: see pstore_group().
 */
int pstore_scan(int dir_fd, size_t max_record, size_t max_records, PstoreProbe probe,
		void *userdata, PstoreScan **ret);
/* 1 if the directory has an entry but . and .., 0 if not: without listing it. */
int pstore_dir_has_entries(int dir_fd);
PstoreScan *pstore_scan_free(PstoreScan *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(PstoreScan *, pstore_scan_free);

/*
 * Groups records into crashes:
 *  - dmesg records with a header: by backend, reason and count; a part
 *    number seen twice, or a record stored more than
 *    PSTORE_DUMP_WINDOW_USEC after the dump's first, starts another crash
 *    (two boots can both have a Panic#1). Parts sorted highest first. Of
 *    the dump that makes the log, the newest max_parts parts stay in it
 *    (the budget MaxParts=); older parts go to other_dump and are counted
 *    in n_parts_cut. Part numbers are the records' claims: the parts
 *    missing are kept as ranges, never one entry per number.
 *  - an Oops dump and the Panic dump that follows it are one crash: the
 *    kernel dumps in oops_exit() and again in the panic the oops causes
 *    (panic_on_oops, BUG() in an interrupt, ...). Of the same backend, the
 *    Oops dump of the highest count below the Panic dump's, stored at most
 *    PSTORE_OOPS_PANIC_WINDOW_USEC before it. Its first dump (the Oops)
 *    names the crash; the dump with more parts, the Panic dump if they have
 *    as many, makes the log (the Panic dump's snapshot holds the oops
 *    report too, so one dump's text is the whole story, without repeating
 *    it); the other dump's parts are kept in other_dump. Dumps of different
 *    boots are far apart in time and count from 1 again; a Shutdown dump is
 *    the end of a boot, and never joins the crash of the next.
 *  - mce records and records probed as CPER: one hardware-error crash each.
 *  - console, pmsg and ftrace logs: attached to the newest kernel crash of
 *    their backend when attach_logs is set and there is one, otherwise a
 *    previous-boot-log crash each; so is a log that pstore_scan() found
 *    too large to take, so that it does not keep a crash in pstore.
 *  - anything else (dmesg without header, Shutdown dumps, unknown types,
 *    names that do not parse): a crash each, previous-boot-log unless it is
 *    a dmesg record.
 * Crashes are sorted by time. The key record of a crash is the lowest part of
 * its last dump (dmesg) or its only record: erasing it last keeps the crash
 * recognisable, with the same key, when a run is interrupted between
 * erasing the records.
 */
#define PSTORE_DUMP_WINDOW_USEC (60ULL * 1000000ULL)
#define PSTORE_OOPS_PANIC_WINDOW_USEC (10ULL * 1000000ULL)
int pstore_group(PstoreScan *s, bool attach_logs, size_t max_parts);

/* The log text of a dmesg record: what follows the header line, if any. */
void pstore_record_body(const PstoreRecord *r, const char *buf, size_t len, const char **ret,
			size_t *ret_len);
