/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The fields of the journal entry of an archived crash: one entry per crash, with the
 * MESSAGE_ID of its kind (message-ids.h) and the fields listed
 * there; the whole log in PSTORE_DMESG.
 */

#include <jansson.h>
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
