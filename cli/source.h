/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Where the verbs that read crashes (list, show, dmesg, export) find them,
 * each verb written once for all:
 *
 *	store       the crash store of this machine (--store-dir=, the default)
 *	journal     the entries pstored writes and the journal-remote target
 *	            sends, matched by their MESSAGE_IDs (store/message-ids.h) in
 *	            journal files: -D/--directory=DIR, --file=GLOB, or this
 *	            machine's journal with --journal, as coredumpctl reads them
 *	documents   a directory of the documents the http-json target sends
 *	            (--documents=DIR), as a WebDAV server stores them
 *	clickhouse  the table the clickhouse target fills (--clickhouse=URL):
 *	            of each crash the columns a listing shows, and for one
 *	            crash its log and the document the http-json target sends
 *
 * A crash is the same JSON whatever its source: crash.json's keys, or as
 * many of them as travelled; journal entries add "hostname" and all remote
 * sources "machine_id". The functions below log what failed themselves.
 */

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "store/store.h"
#include "verbs.h"

typedef enum SourceType {
	SOURCE_STORE,
	SOURCE_JOURNAL,
	SOURCE_DOCUMENTS,
	SOURCE_CLICKHOUSE,
} SourceType;

extern SourceType arg_source;
extern const char *arg_journal_directory; /* -D */
extern const char *arg_journal_files;	  /* --file=GLOB */
extern bool arg_journal_local;		  /* --journal */
extern const char *arg_documents_directory;
extern const char *arg_clickhouse_url;

/* The global options that choose the source (option ids from ARG_SOURCE_BASE up). */
#define ARG_SOURCE_BASE 0x180
enum {
	ARG_SOURCE_FILE = ARG_SOURCE_BASE,
	ARG_SOURCE_JOURNAL,
	ARG_SOURCE_DOCUMENTS,
	ARG_SOURCE_CLICKHOUSE,
};
/* -D, --file=, --journal, --documents= and --clickhouse=, which choose the source, and their --help. */
extern const OptionSpec source_options[];

/* Takes one of source_options: 1 if taken, <0 on error (logged), -ENOENT if not one of them. */
int source_parse_option(int c, const char *arg);

/* Whether the verb reads crashes, from any source. */
bool source_verb_reads(const char *verb);

/* Refuses (logging why) a verb other than those above when another source was chosen. */
int source_check_verb(const char *verb);

/*
 * A crash as list shows it: the store's listing entry and where the crash came
 * from. Outside the store, crash.upload is "" and crash.summary is only made
 * for --json. The strings are never NULL ("" when unknown) and live as long as
 * the listing.
 */
typedef struct CrashEntry {
	StoreListEntry crash;
	const char *machine_id; /* "" in the store: this machine */
	const char *hostname;
	const char *location; /* the document's file, "" in the other sources */
} CrashEntry;

typedef struct CrashListing CrashListing;

/* Every crash of the source, oldest first (by time, then id). */
int source_list(CrashListing **ret);
size_t crash_listing_size(const CrashListing *l);
const CrashEntry *crash_listing_entry(const CrashListing *l, size_t i);
CrashListing *crash_listing_free(CrashListing *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(CrashListing *, crash_listing_free);

/* The machine a crash comes from, in a word: its host name, else its machine id. */
const char *crash_entry_host(const CrashEntry *e);

/*
 * One crash, found by its id or a unique prefix of it, or with prefix NULL the
 * newest crash that the matches (match.h) select.
 */
typedef struct SourceCrash {
	char *id;
	json_t *crash;	  /* crash.json in the store; the others: see source_crash_json() */
	char *location;	  /* where it is: the crash directory, or the document */
	Store *store;	  /* the store source only */
	json_t *document; /* the others: the export document, as much as there is */
} SourceCrash;

int source_open_crash(const char *prefix, SourceCrash **ret);

/*
 * The crash.json of c, or what the source has of it. Outside the store, its document made
 * into it in place (upload_export_strip()), so that a crash is never held twice: dmesg and
 * export of c are then no more.
 */
json_t *source_crash_json(SourceCrash *c);
SourceCrash *source_crash_free(SourceCrash *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(SourceCrash *, source_crash_free);

/* The crash's kernel log, of at most max bytes (-EFBIG beyond), or -ENOENT if none. */
int source_crash_dmesg(SourceCrash *c, size_t max, char **ret, size_t *ret_len);

/*
 * The export document (upload/export.h): as much of it as the source has. Outside the
 * store, a reference to c's own: not to be changed.
 */
int source_crash_export(SourceCrash *c, json_t **ret);

/* The sources' own parts (source-*.c), used by source.c. */
struct CrashListing {
	CrashEntry *entries;
	size_t n, allocated;
	StoreListing *store; /* the store source: the entries point into it */
	json_t *crashes;     /* the others: [{"summary", "text", "location"}] they point into */
};

int crash_listing_append(CrashListing *l, const CrashEntry *e);
/*
 * Adds the crash of a journal entry or a document (crash.json's keys, with
 * "machine_id" and, from the journal, "hostname"); location is its file or NULL.
 */
int crash_listing_add(CrashListing *l, json_t *crash, const char *location);

/* Each returns <0 after logging when nothing could be read at all. */
int store_source_list(CrashListing *l);
int store_source_open_crash(const char *prefix, SourceCrash *c);
int journal_source_list(CrashListing *l);
int journal_source_open_crash(const CrashEntry *e, SourceCrash *c);
int documents_source_list(CrashListing *l);
int documents_source_open_crash(const CrashEntry *e, SourceCrash *c);
int clickhouse_source_list(CrashListing *l);
int clickhouse_source_open_crash(const CrashEntry *e, SourceCrash *c);

/*
 * What "list --group" shows of a group of crashes (one signature), when the source counts
 * them itself: clickhouse_source_groups(). The group's newest crash is the entry of the same
 * index in the listing that comes with it.
 */
typedef struct SourceGroup {
	size_t count, machines;
	uint64_t first;	 /* the time of its oldest crash */
	json_t *kernels; /* its kernel versions, distinct and sorted */
} SourceGroup;

void source_groups_free(SourceGroup *g, size_t n);

/*
 * The groups of every crash in ClickHouse, counted there, oldest newest crash first, and
 * their newest crashes in *ret_newest (in the same order, not sorted again).
 */
int clickhouse_source_groups(CrashListing **ret_newest, SourceGroup **ret_groups, size_t *ret_n);
