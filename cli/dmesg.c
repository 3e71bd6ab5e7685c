// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl dmesg [ID]: the crash's reassembled kernel log, oldest line first,
 * through the pager, escaped but for its newlines and tabs; with --raw as
 * stored, to a pipe or a file only; with --json {"id": ..., "dmesg": "..."}.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "crash-util.h"
#include "fs-util.h"
#include "log.h"
#include "match.h"
#include "pager.h"
#include "pstorectl.h"
#include "source.h"
#include "utf8-util.h"

/* A log larger than this is not a pstore log: refuse to hold it in memory (but for --raw). */
#define DMESG_MAX (64u * 1024 * 1024)

static bool arg_raw;

enum {
	ARG_RAW = ARG_VERB_BASE,
};

static int handle_dmesg_option(int c, const char *arg)
{
	switch (c) {
	case ARG_RAW:
		arg_raw = true;
		return 0;
	default:
		return match_parse_option(c, arg);
	}
}

static const OptionSpec dmesg_option_table[] = {
	{"raw", no_argument, ARG_RAW, NULL,
	 "The log as stored, control characters included (not to a\nterminal)"},
	{}};

const VerbOptions dmesg_options = {dmesg_option_table, match_options, handle_dmesg_option};

/* The log as it is, byte for byte, in pieces: --raw, for a pipe or a file. */
static int dmesg_raw(int fd, const char *path)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return log_error_errno(errno, "Failed to read %s: %m", path);
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			return log_error_errno(EIO, "Failed to write the log: %m");
	}
	if (fflush(stdout) != 0)
		return log_error_errno(errno, "Failed to write the log: %m");
	return 0;
}

static int dmesg_json(const char *id, const char *buf, size_t n)
{
	_cleanup_free_ char *text = NULL;
	json_auto_t *v = NULL;

	/* Kernel text need not be UTF-8; JSON must be. */
	text = utf8_sanitize(buf, n, &n);
	if (!text)
		return log_oom();
	v = json_pack("{s:s, s:s%}", "id", id, "dmesg", text, n);
	if (!v)
		return log_oom();
	return print_json(v);
}

int verb_dmesg(int argc, char *argv[])
{
	_cleanup_(source_crash_freep) SourceCrash *c = NULL;
	_cleanup_free_ char *path = NULL, *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t n;
	int r;

	/* Records come from firmware and from userspace (pmsg): what they hold is not for a terminal. */
	if (arg_raw && arg_json == JSON_OFF && isatty(STDOUT_FILENO))
		return log_error_errno(
			EINVAL, "--raw writes the log as stored, escape sequences included: "
				"redirect it to a file or a pipe, or leave --raw out to see it "
				"on a terminal.");

	r = source_open_crash(argc > 1 ? argv[1] : NULL, &c);
	if (r < 0)
		return r;

	/* The store's log in pieces, as large as it is. */
	if (c->store && arg_raw && arg_json == JSON_OFF) {
		r = store_crash_path(c->store, c->id, "dmesg.txt", &path);
		if (r < 0)
			return log_oom();
		fd = open_regular_at(AT_FDCWD, path, O_RDONLY, 0);
		if (fd < 0)
			return log_store_error(fd, path);
		return dmesg_raw(fd, path);
	}

	r = source_crash_dmesg(c, DMESG_MAX, &buf, &n);
	if (r == -EFBIG)
		return log_error_errno(
			r, "The log of crash %s: %m (over %u MiB; use --raw and a pipe)", c->id,
			DMESG_MAX >> 20);
	if (r == -ENOENT && !c->store)
		return log_error_errno(r, "Crash %s came without its log (%s).", c->id,
				       c->location);
	if (r < 0)
		return log_store_error(r, c->id);

	if (arg_json != JSON_OFF)
		return dmesg_json(c->id, buf, n);
	if (arg_raw)
		return fwrite(buf, 1, n, stdout) == n && fflush(stdout) == 0
			       ? 0
			       : log_error_errno(EIO, "Failed to write the log: %m");

	pager_open();
	if (utf8_escape_fwrite(buf, n, UTF8_ESCAPE_KEEP_LINES, stdout) < 0 || fflush(stdout) != 0)
		return log_error_errno(EIO, "Failed to write the log: %m");
	return 0;
}
