/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the uploader does with a collector's answer, and when it tries
 * again. Pure functions of their arguments (times in microseconds since
 * the epoch, as in crash.json), so that the rules are tested on their own:
 *
 *	2xx, and 409 Conflict on PUT     sent (409: the document is already there)
 *	429, 503                         throttled: retry after Retry-After (or backoff);
 *	                                 nothing else goes to that target before then
 *	408, other 5xx, network errors   retry with exponential backoff
 *	3xx                              retry with exponential backoff: redirects
 *	                                 are not followed, the URL needs fixing
 *	other 4xx                        failed: the server refused this document;
 *	                                 kept with the server's answer, not retried
 */

#include <stdbool.h>
#include <stdint.h>

#include "time-util.h"

typedef enum UploadOutcome {
	UPLOAD_SENT,
	UPLOAD_RETRY,
	UPLOAD_THROTTLED,
	UPLOAD_FAILED,
} UploadOutcome;

/* Backoff after the first failed attempt, doubled after each further one, capped. */
#define UPLOAD_BACKOFF_FIRST_USEC (5 * USEC_PER_MINUTE)
#define UPLOAD_BACKOFF_MAX_USEC (12 * USEC_PER_HOUR)
/* The window of the per-target daily limits, and the longest Retry-After honoured. */
#define UPLOAD_QUOTA_WINDOW_USEC USEC_PER_DAY

UploadOutcome upload_outcome_from_status(long status, bool is_put);

/* The wait after attempts failed attempts in a row (attempts >= 1). */
usec_t upload_backoff_usec(unsigned attempts);

/*
 * The next attempt after a failure: now + Retry-After when the server gave
 * one (retry_after > 0, capped at a day), else now + backoff.
 */
usec_t upload_next_attempt(usec_t now, unsigned attempts, usec_t retry_after);

/*
 * The daily limits of one target (Chrome OS style: at most max_crashes
 * crashes and max_bytes bytes in any 24 hours), counted from the "sent_at"
 * and "bytes" of the crashes already sent to it.
 */
typedef struct UploadQuota {
	uint64_t max_crashes, max_bytes; /* UINT64_MAX: no limit */
	uint64_t crashes, bytes;	 /* sent within the window */
	usec_t oldest_sent_at;		 /* oldest send in the window, 0 if none */
} UploadQuota;

void upload_quota_init(UploadQuota *q, uint64_t max_crashes, uint64_t max_bytes);
/* Counts a crash sent at sent_at with bytes bytes, if within the window before now. */
void upload_quota_count(UploadQuota *q, usec_t now, usec_t sent_at, uint64_t bytes);
/* Whether one more document of size bytes fits. */
bool upload_quota_allows(const UploadQuota *q, uint64_t size);
/* When the oldest counted send leaves the window (0 if nothing counted). */
usec_t upload_quota_frees_at(const UploadQuota *q);
