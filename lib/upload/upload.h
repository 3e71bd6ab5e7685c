/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The uploader: sends the crashes of the store that are due to the
 * [Target.NAME] collectors of the configuration, and records the outcome
 * per crash and target in crash.json:
 *
 *	"upload": {"NAME": {"state": "pending|sent|failed", "attempts": N,
 *	                    "next_attempt": T, "last_error": "...", "sent_at": T,
 *	                    "bytes": B, "status": HTTP status, "throttled_until": T}}
 *
 * (times in microseconds). A crash without an entry for a target is
 * pending for it. "pstored upload" (the timer) sends what is due;
 * "pstorectl upload" sends now, ignoring the backoff wait.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

typedef enum UploadResult {
	UPLOAD_RESULT_SENT,	/* delivered (or the collector already had it) */
	UPLOAD_RESULT_DEFERRED, /* still queued: network error, 5xx, throttled, daily limit */
	UPLOAD_RESULT_FAILED,	/* refused for good (4xx, too large): see last_error */
	_UPLOAD_RESULT_MAX,
} UploadResult;

typedef struct UploadEvent {
	const char *target;
	const char *id;
	UploadResult result;
	const char *message; /* what happened, for the user; never holds a secret */
	size_t index, total; /* 1-based position among the crashes due for target */
	uint64_t bytes;	     /* document size */
} UploadEvent;

typedef void (*UploadProgress)(const UploadEvent *e, void *userdata);

typedef struct UploadOptions {
	const char *store_dir;
	const PstoredConfig *config;
	const char *target;  /* only this target; NULL: all */
	char *const *ids;    /* only these crash ids (full ids), NULL-terminated; NULL: all */
	bool now;	     /* ignore the backoff wait */
	bool force;	     /* also resend sent and failed crashes; ignore limits, Retry-After */
	const char *dmi_dir; /* DMI serial numbers to redact; NULL: /sys/class/dmi/id */
	UploadProgress progress; /* may be NULL */
	void *userdata;
} UploadOptions;

typedef struct UploadSummary {
	unsigned sent, deferred, failed;
	unsigned not_due; /* waiting for their backoff, throttling or the daily limit */
	long connections; /* TCP/TLS connections opened, all targets */
} UploadSummary;

/*
 * Runs one upload pass. Returns 0 when every due crash was tried (whatever
 * the collectors answered: see the summary), a negative errno when the pass
 * could not run (store, configuration, token file); that error is logged.
 * Initialises libcurl for the pass (curl_global_init() nests).
 */
int upload_run(const UploadOptions *o, UploadSummary *ret);

const char *upload_result_to_string(UploadResult r);
