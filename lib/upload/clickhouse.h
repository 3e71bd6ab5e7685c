/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The row of a crash in ClickHouse's pstored.crashes table (the table of
 * clickhouse/schema.sql, installed in /usr/share/pstored/clickhouse/), as
 * the clickhouse target sends it: one line of the JSONEachRow format, the
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
 *
 * A batch is the INSERT statement and its rows in the body of one POST: the
 * query may come first in the body, as ClickHouse's HTTP interface allows
 * since its first versions, so the URL is the server's and nothing else.
 */

#include <jansson.h>
#include <stdbool.h>

#include "crash-source.h"

/* Where the packages install the schema (lib/upload/clickhouse/schema.sql). */
#define UPLOAD_CLICKHOUSE_SCHEMA "/usr/share/pstored/clickhouse/schema.sql"

#define UPLOAD_CLICKHOUSE_INSERT "INSERT INTO pstored.crashes FORMAT JSONEachRow\n"

/* The row as a JSON object; -EBADMSG when crash.json has no id, -ENOMEM. */
int upload_clickhouse_row(const UploadCrashSource *src, json_t **ret);

/*
 * What "pstorectl --clickhouse=URL" reads back: the columns of the crashes that a listing
 * shows, each crash once (FINAL), oldest first, as JSONEachRow lines (ClickHouse quotes the
 * 64-bit time_usec in them).
 */
#define UPLOAD_CLICKHOUSE_SELECT                                                                   \
	"SELECT crash_id, machine_id, hostname, boot_id, kind, reason, backend, pstore_reason, "   \
	"time_usec, archived_at, message, function, module, kernel, signature, taint, comm, "      \
	"records "                                                                                 \
	"FROM pstored.crashes FINAL ORDER BY time_usec, machine_id, crash_id FORMAT JSONEachRow\n"

/*
 * A row of UPLOAD_CLICKHOUSE_SELECT as the crash.json it was made of, with the keys it keeps
 * ("id", "machine_id", "hostname", "time", "records", "analysis": {...}, ...; an empty
 * column is an absent key). -EBADMSG when it is not such a row (no crash_id, a time that is
 * no number, records that are not a JSON array).
 */
int upload_clickhouse_row_to_crash(json_t *row, json_t **ret);

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
