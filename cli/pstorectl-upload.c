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
 *
 *   pstorectl-upload --clickhouse-select=URL
 *                    [--clickhouse-groups | --clickhouse-crash=MACHINE_ID/ID]
 *
 * The reader of "pstorectl --clickhouse=URL": the crashes of the ClickHouse
 * server at URL on stdout, one JSONEachRow line each, as
 * UPLOAD_CLICKHOUSE_SELECT (upload/clickhouse.h) reads them; or their groups
 * as "list --group" shows them, aggregated by ClickHouse
 * (UPLOAD_CLICKHOUSE_GROUP_SELECT); or the row of one crash, its log and
 * document (upload_clickhouse_select_crash()).
 */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "crash-util.h"
#include "log.h"
#include "macro.h"
#include "time-util.h"
#include "upload-options.h"
#include "upload/clickhouse.h"
#include "upload/http.h"
#include "upload/upload.h"
#include "upload/url.h"
#include "utf8-util.h"

/* A listing of millions of crashes takes a while to stream. */
#define CLICKHOUSE_SELECT_TIMEOUT_USEC (10 * USEC_PER_MINUTE)
#define CLICKHOUSE_CONNECT_TIMEOUT_USEC (10 * USEC_PER_SEC)

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

static int parse_argv(int argc, char *argv[], const char **ret_store_dir,
		      const char **ret_clickhouse_url, bool *ret_clickhouse_groups,
		      const char **ret_clickhouse_crash)
{
	enum {
		ARG_STORE_DIR = 0x100,
		ARG_LOG_LEVEL,
		ARG_CLICKHOUSE_SELECT,
		ARG_CLICKHOUSE_GROUPS,
		ARG_CLICKHOUSE_CRASH,
	};
	static const OptionSpec options[] = {
		{"store-dir", required_argument, ARG_STORE_DIR, "DIR", "The crash store"},
		{"clickhouse-select", required_argument, ARG_CLICKHOUSE_SELECT, "URL",
		 "Print the crashes of the ClickHouse server at URL"},
		{"clickhouse-groups", no_argument, ARG_CLICKHOUSE_GROUPS, NULL,
		 "Print their groups by signature instead"},
		{"clickhouse-crash", required_argument, ARG_CLICKHOUSE_CRASH, "MACHINE_ID/ID",
		 "Only the row of this crash, with its log and document"},
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
		else if (c == ARG_CLICKHOUSE_SELECT)
			*ret_clickhouse_url = optarg;
		else if (c == ARG_CLICKHOUSE_GROUPS)
			*ret_clickhouse_groups = true;
		else if (c == ARG_CLICKHOUSE_CRASH)
			*ret_clickhouse_crash = optarg;
		else if (c == ARG_LOG_LEVEL)
			r = log_set_max_level_from_option(optarg);
		else if (c == '?')
			r = -EINVAL;
		else
			r = handle_upload_option(c, optarg);
		if (r < 0)
			return -EINVAL;
	}
	if (*ret_clickhouse_url)
		return 0;
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

/* Why the query got no rows: what ClickHouse (or curl) said, escaped. */
static int log_select_failure(const char *masked_url, const UploadHttpResponse *resp)
{
	const char *said = resp->status == 0 ? resp->error : resp->body;
	size_t n = strlen(said);
	_cleanup_free_ char *escaped = NULL;

	while (n > 0 && strchr(" \t\r\n", said[n - 1]))
		n--;
	escaped = utf8_escape(said, n, 0);
	if (!escaped)
		return log_oom();
	if (resp->status == 0)
		return log_error_errno(EIO, "Cannot read the crashes from ClickHouse at %s: %s",
				       masked_url, escaped);
	return log_error_errno(EIO,
			       "ClickHouse at %s answered HTTP %ld: %s (is %s applied, and may the "
			       "user of the URL read pstored.crashes?)",
			       masked_url, resp->status, escaped, UPLOAD_CLICKHOUSE_SCHEMA);
}

/* The query of --clickhouse-crash=MACHINE_ID/ID; with crash NULL of the listing or its groups. */
static int clickhouse_query(bool groups, const char *crash, char **ret)
{
	_cleanup_free_ char *machine_id = NULL;
	const char *slash;
	int r;

	if (!crash) {
		*ret = strdup(groups ? UPLOAD_CLICKHOUSE_GROUP_SELECT : UPLOAD_CLICKHOUSE_SELECT);
		return *ret ? 0 : log_oom();
	}
	slash = strchr(crash, '/');
	machine_id = slash ? strndup(crash, slash - crash) : NULL;
	if (slash && !machine_id)
		return log_oom();
	r = slash ? upload_clickhouse_select_crash(machine_id, slash + 1, ret) : -EINVAL;
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_error_errno(r, "Not a machine id and a crash id: '%s'.", crash);
	return 0;
}

/* --clickhouse-select=URL [--clickhouse-groups | --clickhouse-crash=]: see the top of the file. */
static int clickhouse_select(const char *url, bool groups, const char *crash)
{
	_cleanup_free_ char *masked = NULL, *query = NULL;
	UploadHttpResponse resp = {};
	UploadHttp *h = NULL;
	int r;

	UploadHttpOptions o = {
		.timeout_usec = CLICKHOUSE_SELECT_TIMEOUT_USEC,
		.connect_timeout_usec = CLICKHOUSE_CONNECT_TIMEOUT_USEC,
	};
	UploadHttpRequest req = {
		.method = "POST",
		.url = url,
		.content_type = "text/plain; charset=utf-8",
		.sink = stdout,
	};

	r = clickhouse_query(groups, crash, &query);
	if (r < 0)
		return r;
	req.body = query;
	req.body_len = strlen(query);
	if (upload_url_mask(url, &masked) < 0)
		return log_oom();
	r = upload_http_new(&o, &h);
	if (r < 0)
		return log_error_errno(r, "Cannot set up libcurl: %m");
	r = upload_http_send(h, &req, &resp);
	if (r < 0)
		r = log_oom();
	else if (resp.status != 200)
		r = log_select_failure(masked, &resp);
	else if (fflush(stdout) != 0)
		r = log_error_errno(errno, "Failed to write the crashes: %m");
	upload_http_response_done(&resp);
	upload_http_free(h);
	return r;
}

int main(int argc, char *argv[])
{
	const char *store_dir = NULL, *clickhouse_url = NULL, *clickhouse_crash = NULL;
	bool clickhouse_groups = false;
	int r;

	r = parse_argv(argc, argv, &store_dir, &clickhouse_url, &clickhouse_groups,
		       &clickhouse_crash);
	if (r < 0)
		return EXIT_FAILURE;
	if (clickhouse_url) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			log_error("Failed to initialise libcurl.");
			return EXIT_FAILURE;
		}
		r = clickhouse_select(clickhouse_url, clickhouse_groups, clickhouse_crash);
		curl_global_cleanup();
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	/* The ids are argv[optind...], NULL-terminated as upload_run() wants them. */
	r = run_upload(store_dir, optind < argc ? argv + optind : NULL);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
