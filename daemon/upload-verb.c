// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstored upload: one pass of the uploader, run by pstored-upload.service
 * (after network-online.target, and again from pstored-upload.timer). Sends
 * what is due, logs one line per crash and a summary, and exits; a crash
 * that could not be delivered stays queued for the next run. It is the verb
 * of pstored-upload (pstored-upload.c), which pstored runs for it.
 */

#include <errno.h>
#include <stdlib.h>

#include "config/config.h"
#include "log.h"
#include "macro.h"
#include "pstored.h"
#include "upload-metrics.h"
#include "upload/upload.h"

static void log_event(const UploadEvent *e, void *userdata)
{
	int level = e->result == UPLOAD_RESULT_SENT ? LOG_INFO : LOG_WARNING;

	log_full(level, "[Target.%s] crash %s (%zu/%zu): %s: %s", e->target, e->id, e->index,
		 e->total, upload_result_to_string(e->result), e->message);
	if (upload_metrics_count(userdata, e) < 0)
		log_oom();
}

static int upload_pass(const PstoredConfig *config, json_t *failures)
{
	UploadSummary sum = {};
	int r;

	UploadOptions o = {
		.store_dir = arg_store_dir,
		.config = config,
		.target = arg_target,
		.dmi_dir = arg_dmi_dir,
		.progress = log_event,
		.userdata = failures,
		.log = log_library_message,
	};
	r = upload_run(&o, &sum);
	if (r < 0)
		return r;

	log_info("Upload: %u sent, %u deferred, %u failed, %u not due yet, %u failed before for "
		 "this configuration, over %ld connection%s.",
		 sum.sent, sum.deferred, sum.failed, sum.not_due, sum.failed_before,
		 sum.connections, sum.connections == 1 ? "" : "s");
	/*
	 * A target disabled by a mistake in its section sends nothing, ever: the
	 * unit fails so that someone looks, as it does when a send fails.
	 */
	if (config->n_warnings > 0)
		return log_error_errno(EINVAL,
				       "The configuration has problems (above): fix them, then "
				       "check with 'pstored verify-config'.");
	/* Something due did not arrive: the unit shows it; the timer tries again. */
	return sum.deferred > 0 || sum.failed > 0 ? -EAGAIN : 0;
}

int verb_upload(int argc, char *argv[])
{
	_cleanup_(pstored_config_freep) PstoredConfig *config = NULL;
	json_auto_t *failures = NULL;
	int r, k;

	r = pstored_config_load_and_log(arg_config, &config, NULL);
	if (r < 0)
		return r;
	failures = json_object();
	if (!failures)
		return log_oom();

	r = upload_pass(config, failures);
	/* A report of the run: whatever happens to it, the run's result stands. */
	k = upload_metrics_write(config, arg_target, arg_store_dir, r >= 0, failures);
	if (k < 0)
		log_warning_errno(k,
				  "%s/" UPLOAD_METRICS_FILE ": cannot write the metrics of this "
				  "run: %m; no crash is affected; check that [Metrics] Directory= "
				  "in pstored.conf is a writable directory",
				  config->metrics_directory);
	return r;
}
