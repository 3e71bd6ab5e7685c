/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The row of a crash in ClickHouse's pstored.crashes table (the table of
 * clickhouse/schema.sql, installed in /usr/share/pstored/clickhouse/): its
 * writer, which the clickhouse target sends, and its reader, for
 * "pstorectl --clickhouse=URL". One line of the JSONEachRow format, the
 * columns of the table by name, every one present:
 *
 *	time, time_usec          when the crash happened (crash.json "time", or
 *	                         "archived_at"): seconds for the DateTime column,
 *	                         microseconds for the UInt64 one
 *	archived_at              when pstored archived it (microseconds)
 *	machine_id, crash_id     the table's key: a crash sent twice is one row
 *	                         once ReplacingMergeTree has merged the parts
 *	boot_id, hostname, kind, reason, backend, pstore_reason
 *	message, function, module, kernel, signature, taint, comm
 *	                         crash.json's "analysis" ("" where absent)
 *	frame_function, frame_offset, frame_size, frame_module
 *	                         the frames of the call trace, one array a field
 *	                         (-1 for an offset or size the log does not give,
 *	                         "" for the kernel proper)
 *	dmesg                    the log (invalid UTF-8 replaced by U+FFFD)
 *	records                  crash.json's "records", as compact JSON text
 *	document                 the export document (export.h) as the http-json
 *	                         target sends it, without its log: compact JSON
 *	                         text, the records' data included
 *
 * The columns before "document" are for queries and listings; show, dmesg
 * and export read the log and the document.
 *
 * A batch is the INSERT statement and its rows in the body of one POST: the
 * query may come first in the body, as ClickHouse's HTTP interface allows
 * since its first versions, so the URL is the server's and nothing else.
 *
 * A row that is read is the answer of another machine: every byte of it is
 * checked, its size is bounded, and the ids of its key are those of
 * pstored (they go into the query of one crash).
 */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where the packages install the schema (lib/upload/clickhouse/schema.sql). */
#define UPLOAD_CLICKHOUSE_SCHEMA "/usr/share/pstored/clickhouse/schema.sql"

#define UPLOAD_CLICKHOUSE_INSERT "INSERT INTO pstored.crashes FORMAT JSONEachRow\n"

/*
 * The row of a crash made of its export document doc (as the http-json target sends it,
 * redacted when the target redacts), and of this host's name and machine id for what doc
 * does not say. -EBADMSG when doc has no crash id, -ENOMEM.
 */
int upload_clickhouse_row(json_t *doc, const char *hostname, const char *machine_id, json_t **ret);

/*
 * What "pstorectl --clickhouse=URL" lists: the columns of the crashes that a listing
 * shows, each crash once (FINAL), oldest first, as JSONEachRow lines (ClickHouse quotes the
 * 64-bit time_usec in them).
 */
#define UPLOAD_CLICKHOUSE_SELECT                                                                   \
	"SELECT crash_id, machine_id, hostname, boot_id, kind, reason, backend, pstore_reason, "   \
	"time_usec, archived_at, message, function, module, kernel, signature, taint, comm, "      \
	"records "                                                                                 \
	"FROM pstored.crashes FINAL ORDER BY time_usec, machine_id, crash_id FORMAT JSONEachRow\n"

/*
 * The query of one crash, for show, dmesg and export: its key, host name, log and document,
 * one JSONEachRow line. machine_id is a machine id or "", crash_id a crash id: -EINVAL for
 * anything else (they are put into the query), -ENOMEM.
 */
int upload_clickhouse_select_crash(const char *machine_id, const char *crash_id, char **ret);

/*
 * The longest row of each query that is taken: a listing's row is a few hundred bytes; a
 * crash's holds its log and records, each of at most UPLOAD_EXPORT_FILE_MAX bytes as a file,
 * and more as JSON text.
 */
#define UPLOAD_CLICKHOUSE_LIST_ROW_MAX (1024 * 1024)
#define UPLOAD_CLICKHOUSE_CRASH_ROW_MAX (256u * 1024 * 1024)

/*
 * The next line of rows into *buf (of *allocated bytes, grown as needed), without its
 * newline and NUL-terminated: 1 with its length; 0 at the end; -E2BIG for a line of more than
 * max bytes, which is read past without being kept; -EIO; -ENOMEM.
 */
int upload_clickhouse_read_line(FILE *rows, size_t max, char **buf, size_t *allocated,
				size_t *ret_len);

/*
 * A row of UPLOAD_CLICKHOUSE_SELECT (line, len bytes) as the crash.json it was made of, with
 * the keys it keeps ("id", "machine_id", "hostname", "time", "records", "analysis": {...},
 * ...; an empty column is an absent key). -EBADMSG when it is not such a row (not a JSON
 * object, a crash_id that is no crash id, a machine_id that is neither empty nor a machine
 * id, a time that is no number, records that are not a JSON array); -E2BIG when it holds too
 * many values for its size (upload/export-parse.h), -ENOMEM.
 */
int upload_clickhouse_row_to_crash(const char *line, size_t len, json_t **ret);

/*
 * A row of upload_clickhouse_select_crash() as the export document of the crash, with its
 * "hostname" and, when it has one, its log. The errors of upload_clickhouse_row_to_crash(),
 * and -EBADMSG when its document is not the export document of the row's crash.
 */
int upload_clickhouse_row_to_document(const char *line, size_t len, json_t **ret);

/*
 * What "pstorectl --clickhouse=URL list --group" reads back: the groups that the materialized
 * view pstored.groups_fill of the schema keeps in pstored.groups as crashes are inserted, so
 * that a million crashes are neither shipped nor read to be counted. A group is the crashes of
 * one signature; a crash without one is a group of its own, keyed by its id (as "pstorectl
 * list --group" groups any source). Each row holds the columns of UPLOAD_CLICKHOUSE_SELECT,
 * those of the group's newest crash (by time, then crash id), and:
 *
 *	group_crashes    its crashes: distinct (machine id, crash id), so that a crash sent
 *	                 twice counts once
 *	group_machines   its machines: distinct machine ids (host names where there is none)
 *	group_first      the time of its oldest crash (microseconds)
 *	group_kernels    the kernel versions of its crashes, distinct and sorted, "" left out
 *
 * The inner query merges the parts of each group; the outer one takes the newest crash's
 * columns apart (in the order of the tuple in schema.sql).
 */
#define UPLOAD_CLICKHOUSE_GROUP_SELECT                                                             \
	"SELECT tupleElement(n, 1) AS crash_id, tupleElement(n, 2) AS machine_id, "                \
	"tupleElement(n, 3) AS hostname, tupleElement(n, 4) AS boot_id, "                          \
	"tupleElement(n, 5) AS kind, tupleElement(n, 6) AS reason, "                               \
	"tupleElement(n, 7) AS backend, tupleElement(n, 8) AS pstore_reason, "                     \
	"tupleElement(n, 9) AS time_usec, tupleElement(n, 10) AS archived_at, "                    \
	"tupleElement(n, 11) AS message, tupleElement(n, 12) AS function, "                        \
	"tupleElement(n, 13) AS module, tupleElement(n, 14) AS kernel, "                           \
	"tupleElement(n, 15) AS signature, tupleElement(n, 16) AS taint, "                         \
	"tupleElement(n, 17) AS comm, tupleElement(n, 18) AS records, "                            \
	"c AS group_crashes, m AS group_machines, f AS group_first, "                              \
	"arrayFilter(x -> x != '', arraySort(k)) AS group_kernels "                                \
	"FROM (SELECT argMaxMerge(newest) AS n, uniqExactMerge(crashes) AS c, "                    \
	"uniqExactMerge(machines) AS m, minMerge(first) AS f, groupUniqArrayMerge(kernels) AS k "  \
	"FROM pstored.groups GROUP BY no_signature, group_key) "                                   \
	"ORDER BY time_usec, crash_id FORMAT JSONEachRow\n"

/* The aggregates of a row of UPLOAD_CLICKHOUSE_GROUP_SELECT. */
typedef struct UploadClickhouseGroup {
	uint64_t crashes, machines;
	uint64_t first;	 /* µs since the epoch */
	json_t *kernels; /* an array of strings, the caller's to json_decref() */
} UploadClickhouseGroup;

/*
 * A row of UPLOAD_CLICKHOUSE_GROUP_SELECT (line, len bytes): its newest crash
 * (upload_clickhouse_row_to_crash(), and its errors) and its aggregates. -EBADMSG when it is
 * not such a row.
 */
int upload_clickhouse_group_row(const char *line, size_t len, json_t **ret_newest,
				UploadClickhouseGroup *ret);

/*
 * Whether ClickHouse's answer says that pstored.crashes or its database does not exist: HTTP
 * 404, which ClickHouse answers for both, or the codes of its errors UNKNOWN_TABLE (60) and
 * UNKNOWN_DATABASE (81) at the start of the body ("Code: 60, e.displayText() = ..." in 18.16,
 * "Code: 60. DB::Exception: ..." since). The schema is to be applied: the crashes wait for it.
 */
bool upload_clickhouse_table_missing(long status, const char *body);

/* What is added to the message of such an answer. */
#define UPLOAD_CLICKHOUSE_TABLE_MISSING_HINT                                                       \
	" (no table pstored.crashes there: apply " UPLOAD_CLICKHOUSE_SCHEMA                        \
	" with clickhouse-client --multiquery; the crashes stay queued)"
