/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The fields of the journal entry of an archived crash: one entry per crash, with the
 * MESSAGE_ID of its kind (message-ids.h) and the fields listed
 * there; the whole log in PSTORE_DMESG.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#define JOURNAL_CRASH_FIELDS_MAX 28

/* The entry's fields but the log, "NAME=value" each. */
typedef struct JournalCrashFields {
	struct iovec iov[JOURNAL_CRASH_FIELDS_MAX];
	size_t n;
	int error;
} JournalCrashFields;

/* The journal field that holds a crash's whole log (which may hold newlines). */
#define JOURNAL_LOG_FIELD_NAME "PSTORE_DMESG"
#define JOURNAL_LOG_FIELD JOURNAL_LOG_FIELD_NAME "="

/*
 * The fields of the entry for crash (a crash.json document), all but its
 * log: what pstored archive sends to journald, and what the journal-remote
 * upload target sends too. Free them with journal_crash_fields_done().
 */
int journal_crash_fields(json_t *crash, JournalCrashFields *ret);
void journal_crash_fields_done(JournalCrashFields *f);

/*
 * The reader of the entry, for an entry of another machine: every byte of it is the sender's,
 * and nothing here trusts a type, a length or an encoding. Puts the journal field
 * "NAME=value" (data, len; not NUL-terminated) into crash, or into analysis, if it is one of
 * those above; the log only if with_log. A crash id is taken when the field is exactly one
 * and the first of the entry; else "id" becomes null. A machine id (_MACHINE_ID) is taken
 * only when it is one (store_machine_id_is_valid()). 0, or -ENOMEM.
 */
int journal_crash_add_field(json_t *crash, json_t *analysis, const void *data, size_t len,
			    bool with_log);
