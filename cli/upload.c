// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl upload [ID...] [--target=NAME] [--force] [--config=FILE]: send
 * crashes to the collectors now, without waiting for their backoff, with a
 * line per crash (a progress bar on a terminal) and a summary. The same
 * uploader as "pstored upload" (daemon/upload.h).
 *
 * Also the configuration side of "pstorectl export --redacted".
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "crash-util.h"
#include "log.h"
#include "macro.h"
#include "pstorectl.h"
#include "upload-options.h"
#include "upload.h"

static const char *arg_config;
static const char *arg_target;
static const char *arg_dmi_dir;
static bool arg_force;

int handle_upload_config_option(int c, const char *arg)
{
	switch (c) {
	case ARG_UPLOAD_TARGET:
		arg_target = arg;
		return 0;
	case ARG_UPLOAD_CONFIG:
		arg_config = arg;
		return 0;
	case ARG_UPLOAD_DMI_DIR:
		arg_dmi_dir = arg;
		return 0;
	default:
		return -EINVAL;
	}
}

static int handle_upload_option(int c, const char *arg)
{
	if (c == ARG_UPLOAD_FORCE) {
		arg_force = true;
		return 0;
	}
	return handle_upload_config_option(c, arg);
}

static const struct option upload_option_table[] = {
	UPLOAD_CONFIG_OPTIONS, {"force", no_argument, NULL, ARG_UPLOAD_FORCE}, {}};

const VerbOptions upload_options = {upload_option_table, NULL, handle_upload_option};

int load_upload_config(PstoredConfig **ret)
{
	_cleanup_free_ char *error = NULL;
	PstoredConfig *c = NULL;
	int r;

	r = pstored_config_load(arg_config, NULL, &c, &error);
	if (r < 0)
		return log_error_errno(r, "Failed to load the configuration: %s",
				       error ?: "(no details)");
	if (arg_target && !pstored_config_find_target(c, arg_target)) {
		pstored_config_free(c);
		return log_error_errno(ENOENT, "No [Target.%s] section in %s: see pstored.conf(5).",
				       arg_target, arg_config ?: "the configuration");
	}
	*ret = c;
	return 0;
}

int upload_redactor_for_export(Redactor **ret)
{
	PstoredConfig *c = NULL;
	const PstoredTarget *t;
	char hostname[256] = "";
	int r;

	r = load_upload_config(&c);
	if (r < 0)
		return r;
	t = arg_target	       ? pstored_config_find_target(c, arg_target)
	    : c->n_targets > 0 ? &c->targets[0]
			       : NULL;
	(void)gethostname(hostname, sizeof(hostname) - 1);
	r = upload_target_redactor(t, hostname, arg_dmi_dir, ret);
	pstored_config_free(c);
	return r;
}

/* What a terminal shows while many crashes go: one line, rewritten. */
typedef struct Progress {
	bool bar;
	size_t shown;
} Progress;

static void print_bar(const UploadEvent *e)
{
	const int width = 30;
	int done = e->total ? (int)(e->index * width / e->total) : width;

	printf("\r\033[K%-10s [%.*s%*s] %zu/%zu", e->target, done, "##############################",
	       width - done, "", e->index, e->total);
	fflush(stdout);
}

static void show_event(const UploadEvent *e, void *userdata)
{
	Progress *p = userdata;
	char size[FORMAT_BYTES_MAX];

	/* On a terminal, sent crashes only move the bar; anything else gets its line. */
	if (p->bar && e->result == UPLOAD_RESULT_SENT) {
		print_bar(e);
		return;
	}
	if (p->bar)
		printf("\r\033[K");
	printf("%-8s %-10s %s %6s %s\n", upload_result_to_string(e->result), e->target, e->id,
	       format_bytes(size, e->bytes) ?: "-", e->message);
	if (p->bar)
		print_bar(e);
	p->shown++;
}

int verb_upload(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	PstoredConfig *config = NULL;
	char **ids = NULL;
	UploadSummary sum = {};
	Progress progress = {.bar = isatty(STDOUT_FILENO)};
	int r;

	r = load_upload_config(&config);
	if (r < 0)
		return r;

	if (argc > 1) {
		r = open_store(false, &s);
		if (r < 0)
			goto finish;
		ids = calloc(argc, sizeof(char *));
		if (!ids) {
			r = log_oom();
			goto finish;
		}
		for (int i = 1; i < argc; i++) {
			r = resolve_crash_id(s, argv[i], &ids[i - 1]);
			if (r < 0)
				goto finish;
		}
	}

	UploadOptions o = {
		.store_dir = arg_store_dir,
		.config = config,
		.target = arg_target,
		.ids = ids,
		.now = true,
		.force = arg_force,
		.dmi_dir = arg_dmi_dir,
		.progress = show_event,
		.userdata = &progress,
	};
	r = upload_run(&o, &sum);
	if (progress.bar && sum.sent + sum.deferred + sum.failed > 0)
		putchar('\n');
	if (r < 0)
		goto finish;

	printf("%u sent, %u deferred, %u failed", sum.sent, sum.deferred, sum.failed);
	if (sum.not_due > 0)
		printf(", %u held back (Retry-After or daily limit; --force sends them)",
		       sum.not_due);
	printf(".\n");
	r = sum.deferred > 0 || sum.failed > 0 ? -EAGAIN : 0;
finish:
	for (int i = 0; ids && i < argc; i++)
		free(ids[i]);
	free(ids);
	pstored_config_free(config);
	return r;
}
