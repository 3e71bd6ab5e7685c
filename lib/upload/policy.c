// SPDX-License-Identifier: GPL-2.0-or-later

#include "macro.h"
#include "policy.h"

UploadOutcome upload_outcome_from_status(long status, bool is_put)
{
	if (status >= 200 && status < 300)
		return UPLOAD_SENT;
	if (status == 409 && is_put)
		return UPLOAD_SENT;
	if (status == 429 || status == 503)
		return UPLOAD_THROTTLED;
	if (status == 408 || status >= 500)
		return UPLOAD_RETRY;
	/* Not followed (the URL is the configuration's to fix), but no refusal of the crash. */
	if (status >= 300 && status < 400)
		return UPLOAD_RETRY;
	return UPLOAD_FAILED;
}

usec_t upload_backoff_usec(unsigned attempts)
{
	usec_t delay = UPLOAD_BACKOFF_FIRST_USEC;

	for (unsigned i = 1; i < attempts && delay < UPLOAD_BACKOFF_MAX_USEC; i++)
		delay *= 2;
	return MIN(delay, UPLOAD_BACKOFF_MAX_USEC);
}

usec_t upload_next_attempt(usec_t now, unsigned attempts, usec_t retry_after)
{
	if (retry_after > 0)
		return now + MIN(retry_after, UPLOAD_QUOTA_WINDOW_USEC);
	return now + upload_backoff_usec(MAX(attempts, 1U));
}

void upload_quota_init(UploadQuota *q, uint64_t max_crashes, uint64_t max_bytes)
{
	*q = (UploadQuota){.max_crashes = max_crashes, .max_bytes = max_bytes};
}

void upload_quota_count(UploadQuota *q, usec_t now, usec_t sent_at, uint64_t bytes)
{
	if (sent_at > now || now - sent_at >= UPLOAD_QUOTA_WINDOW_USEC)
		return;
	q->crashes++;
	q->bytes += bytes;
	if (q->oldest_sent_at == 0 || sent_at < q->oldest_sent_at)
		q->oldest_sent_at = sent_at;
}

bool upload_quota_allows(const UploadQuota *q, uint64_t size)
{
	if (q->max_crashes != UINT64_MAX && q->crashes >= q->max_crashes)
		return false;
	if (q->max_bytes != UINT64_MAX && (size > q->max_bytes || q->bytes > q->max_bytes - size))
		return false;
	return true;
}

usec_t upload_quota_frees_at(const UploadQuota *q)
{
	return q->oldest_sent_at ? q->oldest_sent_at + UPLOAD_QUOTA_WINDOW_USEC : 0;
}
