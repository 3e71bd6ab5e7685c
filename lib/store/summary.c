/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A crash's summary: the crash.json fields that listing and retention need,
 * which the index keeps, and the upload state of a crash in one word.
 */

#include <errno.h>
#include <string.h>

#include "store-internal.h"

/* crash.json keys copied as they are into a summary (the index line). */
static const char *const summary_keys[] = {
	"id",	       "kind",	   "reason",	   "severity", "backend",	"time",
	"archived_at", "complete", "stored_bytes", "boot_id",  "pstore_reason",
};
/* Keys of crash.json's "analysis" object copied into a summary. */
static const char *const summary_analysis_keys[] = {
	"signature", "function", "module", "kernel_version", "message", "comm",
};

static bool upload_state_is_unsent(const char *state)
{
	return streq(state, "pending") || streq(state, "failed");
}

int store_crash_summary(json_t *crash, json_t **ret)
{
	json_t *summary, *analysis, *records, *upload, *v;
	const char *target;

	if (!json_is_object(crash) || !json_is_string(json_object_get(crash, "id")))
		return -EINVAL;
	summary = json_object();
	if (!summary)
		return -ENOMEM;

	for (size_t i = 0; i < ARRAY_SIZE(summary_keys); i++) {
		v = json_object_get(crash, summary_keys[i]);
		if (v && json_object_set(summary, summary_keys[i], v) < 0)
			goto oom;
	}
	analysis = json_object_get(crash, "analysis");
	for (size_t i = 0; json_is_object(analysis) && i < ARRAY_SIZE(summary_analysis_keys); i++) {
		v = json_object_get(analysis, summary_analysis_keys[i]);
		if (v && !json_is_null(v) &&
		    json_object_set(summary, summary_analysis_keys[i], v) < 0)
			goto oom;
	}
	records = json_object_get(crash, "records");
	if (json_object_set_new(summary, "records",
				json_integer((json_int_t)json_array_size(records))) < 0)
		goto oom;

	/* Upload state: just "target": "state", enough to list and to vacuum. */
	upload = json_object_get(crash, "upload");
	if (json_is_object(upload)) {
		json_t *states = json_object();

		if (!states || json_object_set_new(summary, "upload", states) < 0)
			goto oom;
		json_object_foreach(upload, target, v) {
			json_t *state = json_object_get(v, "state");

			if (json_is_string(state) && json_object_set(states, target, state) < 0)
				goto oom;
		}
	}

	*ret = summary;
	return 0;
oom:
	json_decref(summary);
	return -ENOMEM;
}

bool summary_is_unsent(json_t *summary)
{
	const char *target;
	json_t *state;

	json_object_foreach(json_object_get(summary, "upload"), target, state)
		if (json_is_string(state) && upload_state_is_unsent(json_string_value(state)))
			return true;
	return false;
}

const char *store_upload_state(json_t *upload)
{
	bool pending = false, failed = false, any = false;
	const char *target;
	json_t *v;

	json_object_foreach(upload, target, v) {
		const char *state =
			json_string_value(json_is_object(v) ? json_object_get(v, "state") : v);

		any = true;
		if (state && streq(state, "failed"))
			failed = true;
		else if (!state || !streq(state, "sent"))
			pending = true;
	}
	return !any ? "-" : failed ? "failed" : pending ? "pending" : "sent";
}

const char *store_upload_state_for(json_t *crash, const char *target)
{
	json_t *v = json_object_get(json_object_get(crash, "upload"), target);
	const char *kind = json_string_value(json_object_get(crash, "kind"));

	if (kind && streq(kind, "previous-boot-log") && !v)
		return NULL;
	return json_string_value(json_is_object(v) ? json_object_get(v, "state") : v) ?: "pending";
}
