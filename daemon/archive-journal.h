/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The journal entry of an archived crash: one entry per crash, with the
 * MESSAGE_ID of its kind (lib/store/message-ids.h) and the fields listed
 * there; the whole log in PSTORE_DMESG.
 */

#include <jansson.h>
#include <stddef.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

/* > 0 if an entry with PSTORE_CRASH_ID=id is in the local journal. *j is opened on first use. */
int journal_crash_is_logged(sd_journal **j, const char *id);

#define JOURNAL_CRASH_FIELDS_MAX 24

/* The entry's fields, "NAME=value" each (PSTORE_DMESG may hold newlines). */
typedef struct JournalCrashFields {
	struct iovec iov[JOURNAL_CRASH_FIELDS_MAX];
	size_t n;
	int error;
} JournalCrashFields;

/*
 * The fields of the entry for crash (a crash.json document), all but its
 * log: what journal_send_crash() sends, and what the journal-remote upload
 * target sends too. Free them with journal_crash_fields_done().
 */
int journal_crash_fields(json_t *crash, JournalCrashFields *ret);
/* Adds the log text as the last field, PSTORE_DMESG. */
int journal_crash_fields_add_log(JournalCrashFields *f, const char *log, size_t log_len);
void journal_crash_fields_done(JournalCrashFields *f);

/* Sends the entry for crash (a crash.json document) and its log text. */
int journal_send_crash(json_t *crash, const char *log, size_t log_len);
