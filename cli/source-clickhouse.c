// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A ClickHouse server as a source of crashes (source.h): the table the
 * clickhouse target fills (upload/clickhouse.h). pstorectl links no libcurl:
 * the upload helper (pstorectl-upload.c) runs the query and writes the rows,
 * one JSONEachRow line each, to a pipe read here. Lists only: the rows keep
 * what a listing shows, and show, dmesg and export are refused with this
 * source (source_check_verb()).
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

/* Runs the helper with --clickhouse-select=URL, its stdout into a pipe. */
static int spawn_select(const char *url, pid_t *ret_pid, FILE **ret_rows)
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
		execl(helper, program_invocation_short_name, level, option, (char *)NULL);
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
 * The rows of the helper's output into the listing; the first that is not a row ends it. (The
 * messages leave out the URL, which may hold a password.)
 */
static int read_rows(CrashListing *l, FILE *rows)
{
	_cleanup_free_ char *line = NULL;
	size_t allocated = 0, n = 0;
	ssize_t len;
	int r;

	while ((len = getline(&line, &allocated, rows)) >= 0) {
		json_auto_t *row = NULL, *crash = NULL;

		n++;
		if (len > ROW_MAX)
			return log_error_errno(
				EBADMSG,
				"Row %zu from ClickHouse is over %d bytes: not a row "
				"of pstored.crashes.",
				n, ROW_MAX);
		row = json_loadb(line, (size_t)len, 0, NULL);
		r = row ? upload_clickhouse_row_to_crash(row, &crash) : -EBADMSG;
		if (r == -ENOMEM)
			return log_oom();
		if (r < 0)
			return log_error_errno(
				r,
				"Row %zu from ClickHouse is not a row of "
				"pstored.crashes (/usr/share/pstored/clickhouse/schema.sql).",
				n);
		r = crash_listing_add(l, crash, NULL);
		if (r < 0)
			return log_oom();
	}
	return ferror(rows) ? log_error_errno(EIO, "Failed to read the rows from ClickHouse.") : 0;
}

int clickhouse_source_list(CrashListing *l)
{
	FILE *rows = NULL;
	pid_t pid = 0;
	int r, status;

	r = spawn_select(arg_clickhouse_url, &pid, &rows);
	if (r < 0)
		return r;
	r = read_rows(l, rows);
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
