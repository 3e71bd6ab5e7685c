/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What a crash of another machine is made of (source.h): the fields of a
 * journal entry of pstored, and a collected export document. Every byte of
 * both is the sender's; nothing here trusts a type, a length or an encoding.
 * Pure functions, without I/O (documents are read through the caller's
 * function) or logging, for the sources and the fuzzer
 * (tests/cli/fuzz-fleet.c). They return 0 or a negative errno.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "upload/export.h"

/*
 * Puts the journal field "NAME=value" (data, len; not NUL-terminated) into
 * crash, or into analysis, if it is one of pstored's (store/journal-fields.h);
 * the log ("dmesg") only if with_log. A crash id is taken when the field is
 * exactly one and the first of the entry; else "id" becomes null. A machine
 * id (_MACHINE_ID) is taken only when it is one (32 lowercase hex digits).
 * -ENOMEM.
 */
int crash_add_journal_field(json_t *crash, json_t *analysis, const void *data, size_t len,
			    bool with_log);

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
#define CRASH_DOCUMENT_MEMORY_FACTOR 16
#define CRASH_DOCUMENT_MEMORY_BASE (64 * 1024)
#define CRASH_DOCUMENT_MEMORY_MAX (4 * UPLOAD_EXPORT_FILE_MAX)

/*
 * Where crash_document_parse() reads a document: jansson's
 * json_load_callback_t, at most size bytes into buffer; the number read, 0
 * at the end, (size_t)-1 to fail the parse.
 */
typedef size_t (*CrashDocumentRead)(void *buffer, size_t size, void *userdata);

/*
 * A collected document (upload/export.h), read by read: -EINVAL if it is not
 * JSON or read failed (error says why), -E2BIG if parsing it would take more
 * memory than the budget above (a document of many small values), -ENOMEM if
 * memory ran out first, -EBADMSG if it is not a crash document of pstored
 * (no integer "export_version" or no crash "id").
 */
int crash_document_parse(CrashDocumentRead read, void *userdata, json_error_t *error, json_t **ret);

/*
 * Makes a document (or the crash of a journal entry, with its log) the
 * crash.json it was made of, in place: without its log, version and the
 * records' data.
 */
void crash_document_strip(json_t *doc);
