// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal entry of a crash, and finding it again for idempotent reruns:
 * what pstored archive does with journald. The fields of the entry are in
 * lib/store/journal-fields.c, which the uploader's journal-remote target sends
 * as well, without libsystemd.
 */

#include <assert.h>
#include <stdio.h>
#include <string.h>

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

int journal_send_crash_fields(const JournalCrashFields *f, const char *log_field, size_t len)
{
	struct iovec iov[JOURNAL_CRASH_FIELDS_MAX + 1];

	assert(f->n <= JOURNAL_CRASH_FIELDS_MAX);
	assert(len >= strlen(JOURNAL_LOG_FIELD) &&
	       memcmp(log_field, JOURNAL_LOG_FIELD, strlen(JOURNAL_LOG_FIELD)) == 0);

	memcpy(iov, f->iov, f->n * sizeof(*iov));
	iov[f->n] = (struct iovec){.iov_base = (char *)log_field, .iov_len = len};
	return sd_journal_sendv(iov, (int)f->n + 1);
}

int journal_send_crash(json_t *crash, const char *log_field, size_t len)
{
	JournalCrashFields f;
	int r;

	r = journal_crash_fields(crash, &f);
	if (r < 0)
		return r;
	r = journal_send_crash_fields(&f, log_field, len);
	journal_crash_fields_done(&f);
	return r;
}
