/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The uploader: sends the crashes of the store that are due to the
 * [Target.NAME] collectors of the configuration, and records the outcome
 * per crash and target in crash.json:
 *
 *	"upload": {"NAME": {"state": "pending|sent|failed", "attempts": N,
 *	                    "next_attempt": T, "last_error": "...", "sent_at": T,
 *	                    "bytes": B, "status": HTTP status, "throttled_until": T,
 *	                    "config": "SHA-256"}}
 *
 * (times in microseconds). A crash without an entry for a target is
 * pending for it. A crash the collector refused (a 4xx other than 408 and
 * 429) is failed with a hash of what the collector judged the request by
 * ("config": the URL, the method, the credentials): when they change, it is
 * due again. "pstored upload" (the timer) sends what is due;
 * "pstorectl upload" sends now, ignoring the backoff wait.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "macro.h"

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

/*
 * Where the pass reports, as kmod_set_log_fn(): what cannot be done (the
 * store, the configuration, a token file) at LOG_ERR, a crash it skips at
 * LOG_WARNING, a pass with nothing to do at LOG_INFO. error is the errno
 * (positive, 0 for none) that %m in format stands for. Each message is one
 * line, without its newline; the caller escapes what it prints (the names
 * in it come from the configuration and the store). log.h's
 * log_library_message() logs them as the programs' own messages.
 */
typedef void (*UploadLogFn)(void *userdata, int priority, int error, const char *format, va_list ap)
	_printf_(4, 0);

typedef struct UploadOptions {
	const char *store_dir;
	const PstoredConfig *config;
	const char *target;  /* only this target; NULL: all */
	char *const *ids;    /* only these crash ids (full ids), NULL-terminated; NULL: all */
	bool now;	     /* ignore the backoff wait */
	bool force;	     /* also resend sent and failed crashes; ignore limits, Retry-After */
	const char *dmi_dir; /* DMI serial numbers to redact; NULL: /sys/class/dmi/id */
	UploadProgress progress; /* may be NULL */
	UploadLogFn log;	 /* NULL: the pass says nothing */
	void *userdata;		 /* for progress and log */
} UploadOptions;

typedef struct UploadSummary {
	unsigned sent, deferred, failed;
	unsigned not_due; /* waiting for their backoff, throttling or the daily limit */
	/* Refused before for the target's configuration as it still is: only --force sends them. */
	unsigned failed_before;
	long connections; /* TCP/TLS connections opened, all targets */
} UploadSummary;

/*
 * Runs one upload pass. Returns 0 when every due crash was tried (whatever
 * the collectors answered: see the summary), a negative errno when the pass
 * could not run (store, configuration, token file), after telling o->log
 * why. Initialises libcurl for the pass (curl_global_init() nests).
 */
int upload_run(const UploadOptions *o, UploadSummary *ret);

const char *upload_result_to_string(UploadResult r);
