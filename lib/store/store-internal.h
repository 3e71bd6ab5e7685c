/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the parts of the crash store share and no program sees. The layout
 * and the contract are in store.h; each file of lib/store/ does one job:
 *
 *	store.c           opening and locking the store; its crash directories
 *	summary.c         a crash's summary (what the index keeps) and upload state
 *	index.c           the index file: its format, its one parser, its repair
 *	listing.c         listings, from the index's columns or its summaries
 *	txn.c             adding crashes: transactions and their commit
 *	vacuum.c          retention by the limits of retention.c (pstored.conf)
 *	last-archive.c    the record of the last archive run
 *	journal-fields.c  the fields of a crash's journal entry
 */

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

#define INDEX_FILE "index"
#define CRASH_FILE "crash.json"
#define STAGING_PREFIX ".tmp-"

/* The write-back thread of a batch of transactions (txn.c). */
typedef struct Writeback {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool running;
	bool pending; /* a syncfs() asked for and not done */
	bool stop;
	int fd;	   /* the store directory: an open file description of its own */
	int error; /* of the first syncfs() that failed */
} Writeback;

struct Store {
	char *path;
	int dir_fd;
	StoreOpenFlags flags;
	/* The write lock that the open transactions share, so that several can be open at once. */
	int txn_lock_fd;
	unsigned n_txns;
	unsigned n_prepared; /* since the last commit */
	Writeback writeback;
};

/* store.c */
int store_lock(Store *s, bool wait);
int store_delete_locked(Store *s, const char *id);
/* Writes the crash.json of a new crash, not durable yet (store_txns_commit() makes it so). */
int crash_json_write(int crash_fd, json_t *crash);
/* The JSON object in the file name of dir_fd, of at most max bytes; -EBADMSG if it is not one. */
int json_object_read_at(int dir_fd, const char *name, size_t max, json_t **ret);
int crash_summary_load(Store *s, const char *id, json_t **ret);

/* summary.c */
bool summary_is_unsent(json_t *summary);

/* index.c, writers: the write lock held. */
int index_append(Store *s, json_t *summary);
/* The lines of n crashes in one write(). */
int index_append_crashes(Store *s, json_t *const *crashes, size_t n);
int index_append_tombstone(Store *s, const char *id);
int index_append_stamp(Store *s);
bool index_is_fresh(Store *s);
int index_write(Store *s, json_t *map);
int index_write_empty(Store *s);

/* index.c, readers. The columns of an index line, described in index.c. */
enum {
	COLUMN_ID,
	COLUMN_TIME,
	COLUMN_KIND,
	COLUMN_REASON,
	COLUMN_KERNEL,
	COLUMN_SIGNATURE,
	COLUMN_UPLOAD,
	COLUMN_HEADLINE,
	COLUMN_SUMMARY,
	_COLUMN_MAX,
};

/* The text of a column before COLUMN_SUMMARY but COLUMN_TIME for a summary; NULL if none. */
const char *summary_column(json_t *summary, int c);

/*
 * One line of the mapped index; column c is start[begin(c) ... end[c]). Lines
 * are sorted through pointers to them, 8 bytes to move rather than 64.
 */
typedef struct IndexLine {
	const char *start;
	uint32_t end[_COLUMN_MAX]; /* end[COLUMN_SUMMARY]: the newline */
	uint64_t time;
	bool deleted;
} IndexLine;

static inline uint32_t column_begin(const IndexLine *x, int c)
{
	return c == 0 ? 0 : x->end[c - 1] + 1;
}

/*
 * The index as its readers see it: the file, its lines in the order of
 * the file, and the last line of each id, tombstones dropped, sorted by id. A
 * line that does not parse or whose CRC does not match is left out, and makes
 * the index corrupt.
 */
typedef struct IndexLines {
	const char *buf; /* the mapped file, NULL for an empty or missing index */
	size_t buf_size;
	IndexLine *lines;
	size_t n_lines;
	IndexLine **by_id;
	size_t n_by_id;
	unsigned n_file_lines; /* every whole line: stamps and corrupt lines too */
	bool stamped;	       /* the directory matches the last stamp */
	bool corrupt;
} IndexLines;

typedef char CrashIdSlot[STORE_CRASH_ID_LEN + 1];

/* By time, then id: the order of the listing. */
int compare_index_lines_by_time(const void *a, const void *b);
int index_lines_read(Store *s, IndexLines *ret);
void index_lines_done(IndexLines *ix);
int index_reconcile(Store *s, IndexLines *ix, bool trust_stamp, CrashIdSlot **ret_missing,
		    size_t *ret_n_missing);
int index_load(Store *s, json_t **ret_map);
int index_repair(Store *s, json_t **ret_summaries);

/* listing.c */
int map_to_sorted_array(json_t *map, json_t **ret);

/* txn.c */
int writeback_finish(Store *s);
