/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Sending the journal entry of an archived crash (store/journal-fields.h) and finding it again. */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-journal.h>

#include "store/journal-fields.h"

/* A boot as journald lists it: its id and the times of its first and last entries. */
typedef struct JournalBoot {
	sd_id128_t id;
	uint64_t first, last; /* µs since the epoch */
} JournalBoot;

/*
 * The boots the local journal still has, oldest first, as journalctl
 * --list-boots lists them. *j is opened on first use.
 */
int journal_list_boots(sd_journal **j, JournalBoot **ret, size_t *ret_n);

/*
 * The boot that was running at time t (µs since the epoch), of boots (oldest
 * first): the last one to start at or before t, even when t is after its last
 * entry (the kernel wrote the crash to pstore after journald could write it
 * down). NULL if t is before every boot, or after now.
 */
const JournalBoot *journal_boot_at(const JournalBoot *boots, size_t n, uint64_t t, uint64_t now);

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

/* journald's Varlink socket (systemd 245 and later), which 'journalctl --sync' calls too. */
#define JOURNAL_VARLINK_SOCKET "/run/systemd/journal/io.systemd.journal"
/* How long journald may take to write out what it received, as Varlink calls wait by default. */
#define JOURNAL_SYNCHRONIZE_TIMEOUT_SEC 45

/*
 * Asks journald to write every entry it received before the call to the
 * journal files, and waits for it (io.systemd.Journal.Synchronize). Returns
 * -ECONNREFUSED when journald does not run, -ETIMEDOUT after
 * JOURNAL_SYNCHRONIZE_TIMEOUT_SEC, -EOPNOTSUPP when it has no such method,
 * -EACCES for a caller other than root, -EIO when it answers with an error.
 */
int journal_synchronize(void);
