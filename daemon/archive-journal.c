// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal entry of a crash, and finding it again for idempotent reruns:
 * what pstored archive does with journald. Apart from journal-fields.c, which
 * pstorectl links for its export document, so that pstorectl does not link
 * libsystemd.
 */

#include <stdio.h>

#include "archive-journal.h"

int journal_crash_is_logged(sd_journal **j, const char *id)
{
	char match[sizeof("PSTORE_CRASH_ID=") + 64];
	int r;

	if (!*j) {
		r = sd_journal_open(j, SD_JOURNAL_LOCAL_ONLY);
		if (r < 0)
			return r;
	}
	sd_journal_flush_matches(*j);
	snprintf(match, sizeof(match), "PSTORE_CRASH_ID=%s", id);
	r = sd_journal_add_match(*j, match, 0);
	if (r < 0)
		return r;
	r = sd_journal_seek_head(*j);
	if (r < 0)
		return r;
	r = sd_journal_next(*j);
	return r < 0 ? r : r > 0;
}

int journal_send_crash(json_t *crash, const char *log, size_t log_len)
{
	JournalCrashFields f;
	int r;

	r = journal_crash_fields(crash, log, log_len, &f);
	if (r < 0)
		return r;
	r = sd_journal_sendv(f.iov, (int)f.n);
	journal_crash_fields_done(&f);
	return r;
}
