/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Sending the journal entry of an archived crash (journal-fields.h) and finding it again. */

#include <jansson.h>
#include <stddef.h>
#include <systemd/sd-journal.h>

#include "journal-fields.h"

/* > 0 if an entry with PSTORE_CRASH_ID=id is in the local journal. *j is opened on first use. */
int journal_crash_is_logged(sd_journal **j, const char *id);

/* Sends the entry for crash (a crash.json document) and its log text. */
int journal_send_crash(json_t *crash, const char *log, size_t log_len);
