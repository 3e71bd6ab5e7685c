// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The upload helper of "pstorectl upload" (see upload.c), the one part of
 * pstorectl that links the uploader and libcurl:
 *
 *   pstorectl-upload --store-dir=DIR [--config=FILE] [--target=NAME]
 *                    [--dmi-dir=DIR] [--force] [--] [ID...]
 *
 * ID: full crash ids, which pstorectl resolved. Sends the crashes now,
 * without waiting for their backoff (lib/upload/upload.h), with a line per
 * crash (a progress bar on a terminal) and a summary.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash-util.h"
#include "log.h"
#include "macro.h"
#include "upload-options.h"
#include "upload/upload.h"
#include "utf8-util.h"

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
	/* The message holds the collector's answer: escaped as the programs' log lines are. */
	printf("%-8s %-10s %s %6s ", upload_result_to_string(e->result), e->target, e->id,
	       format_bytes(size, e->bytes) ?: "-");
	utf8_escape_fputs(e->message, stdout);
	putchar('\n');
	if (p->bar)
		print_bar(e);
	p->shown++;
}

static int parse_argv(int argc, char *argv[], const char **ret_store_dir)
{
	enum { ARG_STORE_DIR = 0x100, ARG_LOG_LEVEL };
	static const OptionSpec options[] = {
		{"store-dir", required_argument, ARG_STORE_DIR, "DIR", "The crash store"},
		{"log-level", required_argument, ARG_LOG_LEVEL, "LEVEL", "Log up to LEVEL"},
		UPLOAD_CONFIG_OPTIONS,
		UPLOAD_FORCE_OPTION,
		{}};
	const OptionSpec *const tables[] = {options, NULL};
	_cleanup_free_ struct option *longopts = NULL;
	_cleanup_free_ char *shortopts = NULL;
	const char *store_dir = NULL;
	int c, r = 0;

	if (options_to_getopt(tables, "", &longopts, &shortopts) < 0)
		return log_oom();
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0) {
		if (c == ARG_STORE_DIR)
			store_dir = optarg;
		else if (c == ARG_LOG_LEVEL)
			r = log_set_max_level_from_option(optarg);
		else if (c == '?')
			r = -EINVAL;
		else
			r = handle_upload_option(c, optarg);
		if (r < 0)
			return -EINVAL;
	}
	if (!store_dir)
		return log_error_errno(EINVAL, "No --store-dir=: run 'pstorectl upload' instead.");
	for (int i = optind; i < argc; i++)
		if (!store_crash_id_is_valid(argv[i]))
			return log_error_errno(EINVAL, "Not a full crash id: '%s'.", argv[i]);
	*ret_store_dir = store_dir;
	return 0;
}

static int run_upload(const char *store_dir, char **ids)
{
	PstoredConfig *config = NULL;
	UploadSummary sum = {};
	Progress progress = {.bar = isatty(STDOUT_FILENO)};
	int r;

	r = load_upload_config(&config);
	if (r < 0)
		return r;

	UploadOptions o = {
		.store_dir = store_dir,
		.config = config,
		.target = arg_upload_target,
		.ids = ids,
		.now = true,
		.force = arg_upload_force,
		.dmi_dir = arg_upload_dmi_dir,
		.progress = show_event,
		.log = log_library_message,
		.userdata = &progress,
	};
	r = upload_run(&o, &sum);
	pstored_config_free(config);
	if (progress.bar && sum.sent + sum.deferred + sum.failed > 0)
		putchar('\n');
	if (r < 0)
		return r;

	printf("%u sent, %u deferred, %u failed", sum.sent, sum.deferred, sum.failed);
	if (sum.not_due > 0)
		printf(", %u held back (Retry-After or daily limit; --force sends them)",
		       sum.not_due);
	if (sum.failed_before > 0)
		printf(", %u failed permanently for this target configuration (the collector "
		       "refused them: fix the target's URL=, Method= or credentials, or use "
		       "--force)",
		       sum.failed_before);
	printf(".\n");
	return sum.deferred > 0 || sum.failed > 0 || sum.failed_before > 0 ? -EAGAIN : 0;
}

int main(int argc, char *argv[])
{
	const char *store_dir = NULL;
	int r;

	r = parse_argv(argc, argv, &store_dir);
	if (r < 0)
		return EXIT_FAILURE;
	/* The ids are argv[optind...], NULL-terminated as upload_run() wants them. */
	r = run_upload(store_dir, optind < argc ? argv + optind : NULL);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
