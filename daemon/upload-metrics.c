/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <string.h>

#include "macro.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "upload-metrics.h"

int upload_metrics_count(json_t *failures, const UploadEvent *e)
{
	if (e->result == UPLOAD_RESULT_SENT)
		return 0;
	return json_object_set_new(
		       failures, e->target,
		       json_integer(json_integer_value(json_object_get(failures, e->target)) + 1)) < 0
		       ? -ENOMEM
		       : 0;
}

/* Crashes of summaries still pending for target. */
static unsigned queued_for(json_t *summaries, const char *target)
{
	unsigned n = 0;
	json_t *s;
	size_t i;

	json_array_foreach(summaries, i, s) {
		const char *state = store_upload_state_for(s, target);

		if (state && streq(state, "pending"))
			n++;
	}
	return n;
}

static unsigned failures_of(json_t *failures, const char *target)
{
	return (unsigned)json_integer_value(json_object_get(failures, target));
}

/* A family with one sample per target of the run (all, or target): value(data, target). */
static int put_per_target(Metrics *m, const char *name, const char *help,
			  const PstoredConfig *config, const char *target,
			  unsigned (*value)(json_t *data, const char *target), json_t *data)
{
	int r = metrics_family(m, name, METRIC_GAUGE, help);

	for (size_t i = 0; r >= 0 && i < config->n_targets; i++) {
		const char *t = config->targets[i].name;

		if (!target || streq(target, t))
			r = metrics_sample(m, (const char *[]){"target", t, NULL}, value(data, t));
	}
	return r;
}

static int upload_metrics_build(Metrics *m, const PstoredConfig *config, const char *target,
				json_t *summaries, bool success, json_t *failures)
{
	int r;

	r = metrics_last_run(m, "pstored_upload", "pstored upload", success);
	if (r >= 0 && summaries)
		r = put_per_target(m, "pstored_upload_queue_crashes",
				   "Crashes in the store waiting for upload to the target.", config,
				   target, queued_for, summaries);
	if (r >= 0)
		r = put_per_target(m, "pstored_upload_last_run_failures",
				   "Crashes the last run of pstored upload tried to send to the "
				   "target that did not arrive (deferred or refused).",
				   config, target, failures_of, failures);
	return r;
}

int upload_metrics_write(const PstoredConfig *config, const char *target, const char *store_dir,
			 bool success, json_t *failures)
{
	_cleanup_metrics_ Metrics *m = NULL;
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *summaries = NULL;
	int r;

	if (!config->metrics_directory)
		return 0;
	/* No store, no queue: the series is left out. */
	if (store_open(store_dir, 0, &s) >= 0) {
		r = store_list(s, &summaries);
		if (r < 0)
			return r;
	}
	r = metrics_new(&m);
	if (r < 0)
		return r;
	r = upload_metrics_build(m, config, target, summaries, success, failures);
	if (r < 0)
		return r;
	return metrics_write(m, config->metrics_directory, UPLOAD_METRICS_FILE);
}
