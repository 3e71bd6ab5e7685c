// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A ClickHouse server as a source of crashes (source.h): the table the
 * clickhouse target fills (upload/clickhouse.h). pstorectl links no libcurl:
 * the upload helper (pstorectl-upload.c) runs the query and writes the rows,
 * one JSONEachRow line each, to a pipe read here. Lists only: the rows keep
 * what a listing shows, and show, dmesg and export are refused with this
 * source (source_check_verb()). "list --group" asks ClickHouse for the groups
 * instead (clickhouse_source_groups()): a row a signature, not a crash.
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

/* A row is a few hundred bytes; one over this is not a row of ours. */
#define ROW_MAX (1024 * 1024)

/* Runs the helper with --clickhouse-select=URL (and --clickhouse-groups), its stdout into a pipe. */
static int spawn_select(const char *url, bool groups, pid_t *ret_pid, FILE **ret_rows)
{
	_cleanup_free_ char *helper = NULL, *option = NULL, *level = NULL;
	int fds[2];
	pid_t pid;
	FILE *f;

	if (helper_path("PSTORECTL_UPLOAD_HELPER", PSTORECTL_UPLOAD_HELPER, &helper) < 0 ||
	    asprintf(&option, "--clickhouse-select=%s", url) < 0 ||
	    asprintf(&level, "--log-level=%d", log_get_max_level()) < 0)
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
		execl(helper, program_invocation_short_name, level, option,
		      groups ? "--clickhouse-groups" : NULL, (char *)NULL);
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

/*
 * Reads the rows of the helper's output, each with parse_row(); the first that is not a row
 * ends it. (The messages leave out the URL, which may hold a password.)
 */
static int read_rows(FILE *rows, int (*parse_row)(json_t *row, void *userdata), void *userdata)
{
	_cleanup_free_ char *line = NULL;
	size_t allocated = 0, n = 0;
	ssize_t len;
	int r;

	while ((len = getline(&line, &allocated, rows)) >= 0) {
		json_auto_t *row = NULL;

		n++;
		if (len > ROW_MAX)
			return log_error_errno(
				EBADMSG,
				"Row %zu from ClickHouse is over %d bytes: not a row "
				"of pstored.crashes.",
				n, ROW_MAX);
		row = json_loadb(line, (size_t)len, 0, NULL);
		r = row ? parse_row(row, userdata) : -EBADMSG;
		if (r == -ENOMEM)
			return log_oom();
		if (r < 0)
			return log_error_errno(
				r,
				"Row %zu from ClickHouse is not a row of "
				"pstored.crashes (/usr/share/pstored/clickhouse/schema.sql).",
				n);
	}
	return ferror(rows) ? log_error_errno(EIO, "Failed to read the rows from ClickHouse.") : 0;
}

/* Runs the query of the helper, and parse_row() on each row of its answer. */
static int clickhouse_query(bool groups, int (*parse_row)(json_t *row, void *userdata),
			    void *userdata)
{
	FILE *rows = NULL;
	pid_t pid = 0;
	int r, status;

	r = spawn_select(arg_clickhouse_url, groups, &pid, &rows);
	if (r < 0)
		return r;
	r = read_rows(rows, parse_row, userdata);
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

/* A row of UPLOAD_CLICKHOUSE_SELECT into the listing. */
static int add_crash_row(json_t *row, void *userdata)
{
	CrashListing *l = userdata;
	json_auto_t *crash = NULL;
	int r;

	r = upload_clickhouse_row_to_crash(row, &crash);
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
static int add_group_row(json_t *row, void *userdata)
{
	GroupRows *g = userdata;
	json_auto_t *newest = NULL;
	UploadClickhouseGroup u;
	SourceGroup *groups;
	int r;

	r = upload_clickhouse_group_row(row, &newest, &u);
	if (r < 0)
		return r;
	groups = reallocarray(g->groups, g->n + 1, sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	g->groups = groups;
	if (crash_listing_add(g->listing, newest, NULL) < 0)
		return -ENOMEM;
	g->groups[g->n++] = (SourceGroup){
		.count = u.crashes,
		.machines = u.machines,
		.first = u.first,
		.kernels = json_incref(u.kernels),
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
