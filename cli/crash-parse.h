/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What a crash of another machine is made of (source.h): the fields of a
 * journal entry of pstored, and a collected export document. Every byte of
 * both is the sender's; nothing here trusts a type, a length or an encoding.
 * Pure functions, without I/O or logging, for the sources and the fuzzer
 * (tests/cli/fuzz-fleet.c). They return 0 or a negative errno.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

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
 * A collected document (upload/export.h): -EINVAL if buf is not JSON (error
 * says why), -EBADMSG if it is not a crash document of pstored (no integer
 * "export_version" or no crash "id").
 */
int crash_document_parse(const char *buf, size_t len, json_error_t *error, json_t **ret);

/* The crash.json of a document: without its log, version and the records' data. */
int crash_document_crash(json_t *doc, json_t **ret);
