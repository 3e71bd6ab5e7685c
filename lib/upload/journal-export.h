/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The journal export format (systemd's JOURNAL_EXPORT_FORMATS), the body
 * systemd-journal-remote takes on POST /upload as
 * "Content-Type: application/vnd.fdo.journal":
 *
 *	FIELD=value\n                    a value without a newline
 *	FIELD\n<le64 size><value>\n      any value: binary-safe form
 *	\n                               ends the entry
 *
 * Field names are 1-64 characters of A-Z, 0-9 and '_', not starting with a
 * digit. A leading '_' marks a trusted field and "__" an address field
 * (__REALTIME_TIMESTAMP=, in microseconds), both set by the sender here.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

bool upload_journal_field_name_is_valid(const char *name);

/* Appends one field to f; -EINVAL for a bad name, -EIO on a write error. */
int upload_journal_write_field(FILE *f, const char *name, const void *value, size_t len);
/* Appends a string field: the text form when value has no newline. */
int upload_journal_write_string(FILE *f, const char *name, const char *value);
/* Ends the entry. */
int upload_journal_end_entry(FILE *f);

#include "crash-source.h"

/*
 * The journal entry of a crash: the fields of the local entry
 * (journal_crash_fields(), store/journal-fields.h), after the trusted fields the
 * collector would otherwise take from the sending connection:
 * __REALTIME_TIMESTAMP (when the crash was archived, as the local entry),
 * _BOOT_ID, _MACHINE_ID, _HOSTNAME, and the log.
 */
int upload_journal_crash(FILE *f, const UploadCrashSource *e);
