// SPDX-License-Identifier: GPL-2.0-or-later
/* Running pstorectl-symbolize for show and decode (symbolize.h). */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build-path.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "symbolize.h"

/* Its answer: a few hundred bytes a frame, DMESG_CALL_TRACE_MAX frames and their inlined calls. */
#define SYMBOLIZE_REPLY_MAX (4U * 1024 * 1024)

static bool arg_no_symbolize = false;
static char **arg_debug_dirs = NULL;
static size_t n_debug_dirs = 0;

int symbolize_parse_option(int c, const char *arg)
{
	char **dirs;

	switch (c) {
	case ARG_NO_SYMBOLIZE:
		arg_no_symbolize = true;
		return 0;
	case ARG_DEBUG_DIR:
		dirs = reallocarray(arg_debug_dirs, n_debug_dirs + 1, sizeof(char *));
		if (!dirs)
			return log_oom();
		arg_debug_dirs = dirs;
		arg_debug_dirs[n_debug_dirs++] = (char *)arg;
		return 0;
	default:
		return -ENOENT;
	}
}

/* Runs the helper with request on its stdin; its stdout into *ret. */
static int run_helper(const char *helper, const char *request, char **ret, size_t *ret_len)
{
	_cleanup_close_ int in_read = -EBADF, in_write = -EBADF, out_read = -EBADF,
			    out_write = -EBADF;
	int in[2], out[2], status, r;
	char level[] = {'0' + log_get_max_level(), '\0'};
	char **args;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return -errno;
	in_read = in[0], in_write = in[1];
	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	out_read = out[0], out_write = out[1];
	args = calloc(n_debug_dirs + 3, sizeof(char *));
	if (!args)
		return -ENOMEM;
	args[0] = (char *)"pstorectl-symbolize";
	if (asprintf(&args[1], "--log-level=%s", level) < 0) {
		free(args);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_debug_dirs; i++)
		if (asprintf(&args[i + 2], "--debug-dir=%s", arg_debug_dirs[i]) < 0)
			break; /* run with the directories that fit */

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (dup2(in_read, STDIN_FILENO) < 0 || dup2(out_write, STDOUT_FILENO) < 0)
			_exit(EXIT_FAILURE);
		execv(helper, args);
		log_error_errno(errno, "Failed to run %s: %m", helper);
		_exit(127);
	}
	for (size_t i = 1; args[i]; i++)
		free(args[i]);
	free(args);
	if (pid < 0)
		return -errno;
	close(TAKE_FD(in_read));
	close(TAKE_FD(out_write));
	/* The request is small (DMESG_CALL_TRACE_MAX frames): the pipe takes it all. */
	r = write_full(in_write, request, strlen(request));
	close(TAKE_FD(in_write));
	if (r >= 0)
		r = read_full_fd(out_read, SYMBOLIZE_REPLY_MAX, ret, ret_len);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (r >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		free(*ret);
		*ret = NULL;
		return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -EPROTO;
	}
	return r;
}

int symbolize_analysis(json_t *analysis, json_t *build_ids)
{
	json_t *frames = json_object_get(analysis, "frames"), *result, *frame;
	_cleanup_free_ char *helper = NULL, *request = NULL, *reply = NULL;
	json_auto_t *req = NULL, *answer = NULL;
	size_t len, i;
	int r;

	if (arg_no_symbolize || json_array_size(frames) == 0)
		return 0;
	if (helper_path("PSTORECTL_SYMBOLIZE_HELPER", PSTORECTL_SYMBOLIZE_HELPER, &helper) < 0)
		return log_oom();
	/* It comes in a package of its own, with libdw: a machine may well go without. */
	if (access(helper, X_OK) < 0 && errno == ENOENT) {
		log_notice("%s is not installed: the frames are shown without source lines "
			   "(on Debian, install pstored-symbolize; --no-symbolize skips this).",
			   helper);
		return 0;
	}
	req = json_pack("{s:O?, s:O?, s:O?, s:O}", "release",
			json_object_get(analysis, "kernel_version"), "build_ids", build_ids,
			"function", json_object_get(analysis, "function"), "frames", frames);
	request = req ? json_dumps(req, JSON_COMPACT) : NULL;
	if (!request)
		return log_oom();
	r = run_helper(helper, request, &reply, &len);
	if (r == -ENOMEM)
		return log_oom();
	if (r >= 0)
		answer = json_loadb(reply, len, 0, NULL);
	if (r < 0 || !json_is_array(answer) || json_array_size(answer) != json_array_size(frames)) {
		log_warning_errno(r < 0 ? r : EPROTO,
				  "Failed to symbolize the call trace with %s: %m; the frames are "
				  "shown without source lines (--no-symbolize skips this).",
				  helper);
		return 0;
	}
	json_array_foreach(frames, i, frame) {
		result = json_array_get(answer, i);
		if (json_is_object(frame) && json_is_object(result) &&
		    json_object_update(frame, result) < 0)
			return log_oom();
	}
	return 0;
}
