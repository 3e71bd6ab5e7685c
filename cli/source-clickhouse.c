// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A ClickHouse server as a source of crashes (source.h): the table the
 * clickhouse target fills (upload/clickhouse.h). pstorectl links no libcurl:
 * the upload helper (pstorectl-upload.c) runs the query and writes the rows,
 * one JSONEachRow line each, to a pipe read here. A listing reads the columns
 * that a listing shows; "list --group" asks ClickHouse for the groups instead
 * (clickhouse_source_groups()): a row a signature, not a crash; show, dmesg
 * and export read the row of one crash, its log and its document. Rows come
 * from another machine: one that is too long or that is not a row of pstored
 * is named and skipped.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build-path.h"
#include "log.h"
#include "source.h"
#include "upload/clickhouse.h"
#include "upload/export-parse.h"

/*
 * Runs the helper with --clickhouse-select=URL (and --clickhouse-groups or --clickhouse-crash=),
 * its stdout into a pipe.
 */
static int spawn_select(const char *url, bool groups, const char *crash, pid_t *ret_pid,
			FILE **ret_rows)
{
	_cleanup_free_ char *helper = NULL, *option = NULL, *level = NULL, *extra_option = NULL;
	int fds[2];
	pid_t pid;
	FILE *f;

	if (helper_path("PSTORECTL_UPLOAD_HELPER", PSTORECTL_UPLOAD_HELPER, &helper) < 0 ||
	    asprintf(&option, "--clickhouse-select=%s", url) < 0 ||
	    asprintf(&level, "--log-level=%d", log_get_max_level()) < 0 ||
	    (crash && asprintf(&extra_option, "--clickhouse-crash=%s", crash) < 0) ||
	    (groups && !(extra_option = strdup("--clickhouse-groups"))))
		return log_oom();
	if (pipe2(fds, O_CLOEXEC) < 0)
		return log_error_errno(errno, "Failed to make a pipe: %m");
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return log_error_errno(errno, "Failed to fork: %m");
	}
	if (pid == 0) {
		/* The helper logs at pstorectl's level. */
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(EXIT_FAILURE);
		execl(helper, program_invocation_short_name, level, option, extra_option,
		      (char *)NULL);
		log_error_errno(errno,
				"Failed to run %s: %m (--clickhouse= needs it: reinstall pstored).",
				helper);
		_exit(EXIT_FAILURE);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f) {
		close(fds[0]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return log_oom();
	}
	*ret_pid = pid;
	*ret_rows = f;
	return 0;
}

/* Waits for the helper; r: how reading its rows went (<0 stops it first). */
static int wait_select(pid_t pid, FILE *rows, int r)
{
	int status;

	fclose(rows);
	if (r < 0)
		kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) < 0)
		return log_error_errno(errno, "Failed to wait for the ClickHouse query: %m");
	if (r < 0)
		return r;
	/* The helper said why. */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -EIO;
	return 0;
}

/*
 * Names row n that is not one of pstored.crashes, skipped. (The messages leave out the URL,
 * which may hold a password.)
 */
static void log_bad_row(size_t n, int error, size_t max)
{
	if (error == -E2BIG)
		log_warning("Row %zu from ClickHouse is over %zu bytes, or holds too many values "
			    "for its size: not a row of pstored.crashes; skipped.",
			    n, max);
	else
		log_warning("Row %zu from ClickHouse is not a row of pstored.crashes (of "
			    "%s): skipped.",
			    n, UPLOAD_CLICKHOUSE_SCHEMA);
}

/* Reads the rows of the helper's output, each with parse_row(); those it refuses are named. */
static int read_rows(FILE *rows, int (*parse_row)(const char *line, size_t len, void *userdata),
		     void *userdata)
{
	_cleanup_free_ char *line = NULL;
	size_t allocated = 0, len, n = 0;
	int r;

	for (;;) {
		r = upload_clickhouse_read_line(rows, UPLOAD_CLICKHOUSE_LIST_ROW_MAX, &line,
						&allocated, &len);
		if (r == 0)
			return 0;
		n++;
		if (r >= 0)
			r = parse_row(line, len, userdata);
		if (r == -ENOMEM)
			return log_oom();
		if (r == -EIO)
			return log_error_errno(r, "Failed to read the rows from ClickHouse: %m");
		if (r < 0)
			log_bad_row(n, r, UPLOAD_CLICKHOUSE_LIST_ROW_MAX);
	}
}

/* Runs the query of the helper, and parse_row() on each row of its answer. */
static int clickhouse_query(bool groups,
			    int (*parse_row)(const char *line, size_t len, void *userdata),
			    void *userdata)
{
	FILE *rows = NULL;
	pid_t pid = 0;
	int r;

	r = spawn_select(arg_clickhouse_url, groups, NULL, &pid, &rows);
	if (r < 0)
		return r;
	return wait_select(pid, rows, read_rows(rows, parse_row, userdata));
}

/* A row of UPLOAD_CLICKHOUSE_SELECT into the listing. */
static int add_crash_row(const char *line, size_t len, void *userdata)
{
	CrashListing *l = userdata;
	json_auto_t *crash = NULL;
	int r;

	r = upload_clickhouse_row_to_crash(line, len, &crash);
	if (r < 0)
		return r;
	return crash_listing_add(l, crash, NULL) < 0 ? -ENOMEM : 0;
}

int clickhouse_source_list(CrashListing *l)
{
	return clickhouse_query(false, add_crash_row, l);
}

void source_groups_free(SourceGroup *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++)
		json_decref(g[i].kernels);
	free(g);
}

/* What clickhouse_source_groups() fills. */
typedef struct GroupRows {
	CrashListing *listing;
	SourceGroup *groups;
	size_t n;
} GroupRows;

/* A row of UPLOAD_CLICKHOUSE_GROUP_SELECT: its newest crash into the listing, its counts. */
static int add_group_row(const char *line, size_t len, void *userdata)
{
	GroupRows *g = userdata;
	json_auto_t *newest = NULL;
	UploadClickhouseGroup u;
	SourceGroup *groups;
	int r;

	r = upload_clickhouse_group_row(line, len, &newest, &u);
	if (r < 0)
		return r;
	groups = reallocarray(g->groups, g->n + 1, sizeof(*groups));
	if (groups)
		g->groups = groups;
	if (!groups || crash_listing_add(g->listing, newest, NULL) < 0) {
		json_decref(u.kernels);
		return -ENOMEM;
	}
	g->groups[g->n++] = (SourceGroup){
		.count = u.crashes,
		.machines = u.machines,
		.first = u.first,
		.kernels = u.kernels,
	};
	return 0;
}

int clickhouse_source_groups(CrashListing **ret_newest, SourceGroup **ret_groups, size_t *ret_n)
{
	_cleanup_(crash_listing_freep) CrashListing *l = calloc(1, sizeof(CrashListing));
	GroupRows g = {.listing = l};
	int r;

	if (!l || !(l->crashes = json_array()))
		return log_oom();
	r = clickhouse_query(true, add_group_row, &g);
	if (r < 0) {
		source_groups_free(g.groups, g.n);
		return r;
	}
	*ret_newest = TAKE_PTR(l);
	*ret_groups = g.groups;
	*ret_n = g.n;
	return 0;
}

/* The document of the one row of the crash's query; -ENOENT, unlogged, when there is none. */
static int read_crash_row(const CrashEntry *e, FILE *rows, json_t **ret)
{
	_cleanup_free_ char *line = NULL;
	size_t allocated = 0, len = 0;
	int r;

	r = upload_clickhouse_read_line(rows, UPLOAD_CLICKHOUSE_CRASH_ROW_MAX, &line, &allocated,
					&len);
	if (r == 0)
		return -ENOENT;
	if (r > 0)
		r = upload_clickhouse_row_to_document(line, len, ret);
	if (r == -ENOMEM)
		return log_oom();
	if (r == -EIO)
		return log_error_errno(r, "Failed to read the row from ClickHouse: %m");
	if (r < 0) {
		log_bad_row(1, r, UPLOAD_CLICKHOUSE_CRASH_ROW_MAX);
		return log_error_errno(EBADMSG, "Crash %s of %s cannot be read from ClickHouse.",
				       e->crash.id, crash_entry_host(e));
	}
	return 0;
}

int clickhouse_source_open_crash(const CrashEntry *e, SourceCrash *c)
{
	_cleanup_free_ char *key = NULL;
	FILE *rows = NULL;
	pid_t pid = 0;
	int r;

	if (asprintf(&key, "%s/%s", e->machine_id, e->crash.id) < 0)
		return log_oom();
	r = spawn_select(arg_clickhouse_url, false, key, &pid, &rows);
	if (r < 0)
		return r;
	r = read_crash_row(e, rows, &c->document);
	r = wait_select(pid, rows, r == -ENOENT ? 0 : r);
	if (r < 0)
		return r;
	if (!c->document)
		return log_error_errno(ENOENT,
				       "Crash %s of %s is no longer in ClickHouse: was it deleted "
				       "since it was listed?",
				       e->crash.id, crash_entry_host(e));
	c->id = strdup(e->crash.id);
	c->location = strdup("ClickHouse (pstored.crashes)");
	if (!c->id || !c->location)
		return log_oom();
	return 0;
}
