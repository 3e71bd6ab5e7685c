/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The reader of the export document (export.h), for a document of another
 * machine: one the http-json target sent (pstorectl --documents=), or the
 * document column of a ClickHouse row (clickhouse.h). Every byte of it is
 * the sender's; nothing here trusts a type, a length or an encoding. Pure
 * functions, without I/O (a document is read through the caller's function)
 * or logging, for pstorectl and the fuzzers. They return 0 or a negative
 * errno.
 */

#include <jansson.h>
#include <stddef.h>

#include "export.h"

/*
 * The memory a document may take while it is parsed: FACTOR times the bytes
 * read of it so far, plus BASE, and never more than MAX. A crash document is
 * mostly strings (the log, the records' data), of which jansson holds at most
 * twice their length while it reads them; its other values cost more than
 * their text: 6.4 times in compact JSON for records whose data is a few
 * bytes, up to 14 times for call trace frames of one-letter functions. Only a
 * document of many small values for its size goes past the budget, and it
 * does early.
 */
#define UPLOAD_EXPORT_MEMORY_FACTOR 16
#define UPLOAD_EXPORT_MEMORY_BASE (64 * 1024)
#define UPLOAD_EXPORT_MEMORY_MAX (4 * UPLOAD_EXPORT_FILE_MAX)

/*
 * Where upload_export_load() reads: jansson's json_load_callback_t, at most
 * size bytes into buffer; the number read, 0 at the end, (size_t)-1 to fail
 * the parse.
 */
typedef size_t (*UploadExportRead)(void *buffer, size_t size, void *userdata);

/*
 * JSON text read by read, within the memory budget above: -EINVAL if it is
 * not JSON or read failed (error says why), -E2BIG if parsing it would take
 * more memory than the budget (a text of many small values), -ENOMEM if
 * memory ran out first.
 */
int upload_export_load(UploadExportRead read, void *userdata, json_error_t *error, json_t **ret);

/*
 * A document, read by read: the errors of upload_export_load(), and -EBADMSG
 * if it is not a crash document of pstored (no integer "export_version" or no
 * crash "id").
 */
int upload_export_parse(UploadExportRead read, void *userdata, json_error_t *error, json_t **ret);

/* The same of the text in buf, len bytes. */
int upload_export_parse_buffer(const char *buf, size_t len, json_error_t *error, json_t **ret);
int upload_export_load_buffer(const char *buf, size_t len, json_error_t *error, json_t **ret);

/*
 * Makes a document (or the crash of a journal entry, with its log) the
 * crash.json it was made of, in place: without its log, version and the
 * records' data.
 */
void upload_export_strip(json_t *doc);
