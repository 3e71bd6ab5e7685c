// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What pstorectl show and decode run to symbolize a call trace (cli/symbolize.c): the only
 * program that links libdw and libdebuginfod, so that pstorectl itself starts without them.
 *
 *	pstorectl-symbolize [--log-level=N] [--debug-dir=DIR]...
 *
 * reads {"release":..., "build_ids":{...}, "function":..., "frames":[...]} (crash.json's
 * kernel_version, build_ids, analysis.function and analysis.frames) on stdin and writes the
 * array of symbolizer_frames() on stdout.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "symbolize/symbolize.h"
#include "verbs.h"

enum {
	ARG_DEBUG_DIR = _ARG_COMMON_MAX,
};

static const OptionSpec options[] = {
	COMMON_OPTIONS,
	{"debug-dir", required_argument, ARG_DEBUG_DIR, "DIR", "Look for debug files in DIR too"},
	{},
};

/* A cold lookup can download hundreds of megabytes: on a terminal, one line that says so. */
static void show_progress(const char *what, long done, long total, void *userdata)
{
	bool *shown = userdata;

	*shown = true;
	if (total > 0)
		fprintf(stderr,
			"\r\033[KFetching the debug file of %s from debuginfod: %ld/%ld KiB", what,
			done / 1024, total / 1024);
	else
		fprintf(stderr, "\r\033[KFetching the debug file of %s from debuginfod: %ld KiB",
			what, done / 1024);
}

int main(int argc, char *argv[])
{
	const OptionSpec *const tables[] = {options, NULL};
	_cleanup_free_ struct option *longopts = NULL;
	_cleanup_free_ char *shortopts = NULL;
	_cleanup_free_ char **dirs = NULL;
	_cleanup_(symbolizer_freep) Symbolizer *s = NULL;
	json_auto_t *request = NULL, *result = NULL;
	json_error_t err;
	size_t n_dirs = 0;
	bool progress_shown = false;
	int c, r;

	log_parse_environment();
	dirs = calloc((size_t)argc + 1, sizeof(char *));
	if (!dirs || options_to_getopt(tables, "", &longopts, &shortopts) < 0)
		return log_oom(), EXIT_FAILURE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0) {
		if (c == '?')
			return log_option_error(tables, argv, NULL), EXIT_FAILURE;
		if (c == ARG_DEBUG_DIR) {
			dirs[n_dirs++] = optarg;
			continue;
		}
		if (c == 'h') {
			printf("%s [OPTIONS...] <REQUEST\n\nSymbolizes a call trace for "
			       "pstorectl.\n\n",
			       program_invocation_short_name);
			options_print_help(options, stdout);
			return EXIT_SUCCESS;
		}
		r = parse_common_option(c, optarg);
		if (r <= 0)
			return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	}

	request = json_loadf(stdin, 0, &err);
	if (!request)
		return log_error_errno(EINVAL, "Failed to read the request: %s", err.text),
		       EXIT_FAILURE;
	r = symbolizer_new(json_string_value(json_object_get(request, "release")),
			   json_object_get(request, "build_ids"), dirs, &s);
	if (r >= 0)
		symbolizer_set_fault_function(
			s, json_string_value(json_object_get(request, "function")));
	if (r >= 0 && isatty(STDERR_FILENO))
		symbolizer_set_progress(s, show_progress, &progress_shown);
	if (r >= 0)
		r = symbolizer_frames(s, json_object_get(request, "frames"), &result);
	if (progress_shown)
		fputs("\r\033[K", stderr);
	if (r < 0)
		return log_error_errno(r, "Failed to symbolize: %m"), EXIT_FAILURE;
	if (json_dumpf(result, stdout, JSON_COMPACT) < 0 || fflush(stdout) != 0)
		return log_error_errno(EIO, "Failed to write the result: %m"), EXIT_FAILURE;
	return EXIT_SUCCESS;
}
