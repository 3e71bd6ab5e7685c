/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Sending the journal entry of an archived crash (store/journal-fields.h) and finding it again. */

#include <jansson.h>
#include <stddef.h>
#include <systemd/sd-journal.h>

#include "store/journal-fields.h"

/* > 0 if an entry with PSTORE_CRASH_ID=id is in the local journal. *j is opened on first use. */
int journal_crash_is_logged(sd_journal **j, const char *id);

/*
 * Sends the entry: f, and log_field, len bytes of JOURNAL_LOG_FIELD followed
 * by the log text. The log is not copied: callers assemble it after the
 * field name.
 */
int journal_send_crash_fields(const JournalCrashFields *f, const char *log_field, size_t len);
/* The same for crash (a crash.json document). */
int journal_send_crash(json_t *crash, const char *log_field, size_t len);
