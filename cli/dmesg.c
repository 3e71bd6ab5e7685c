// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl dmesg ID: the crash's reassembled kernel log, oldest line first,
 * through the pager; with --json {"id": ..., "dmesg": "..."}.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "crash-util.h"
#include "fs-util.h"
#include "log.h"
#include "pager.h"
#include "pstorectl.h"
#include "utf8-util.h"

/* A log larger than this is not a pstore log: refuse to hold it in memory for --json. */
#define DMESG_JSON_MAX (64u * 1024 * 1024)

static int dmesg_json(const char *id, int fd, const char *path)
{
	_cleanup_free_ char *buf = NULL, *text = NULL;
	json_auto_t *v = NULL;
	size_t n;
	int r;

	r = read_full_fd(fd, DMESG_JSON_MAX, &buf, &n);
	if (r == -EFBIG)
		return log_error_errno(r, "%s: %m (over %u MiB; use it without --json)", path,
				       DMESG_JSON_MAX >> 20);
	if (r < 0)
		return log_error_errno(r, "Failed to read %s: %m", path);

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
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *id = NULL, *path = NULL;
	_cleanup_close_ int fd = -1;
	char buf[65536];
	ssize_t n;
	int r;

	r = open_crash(argv[1], &s, &id);
	if (r < 0)
		return r;
	r = store_crash_path(s, id, "dmesg.txt", &path);
	if (r < 0)
		return log_oom();

	fd = open_regular_at(AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return log_store_error(fd, path);

	if (arg_json != JSON_OFF)
		return dmesg_json(id, fd, path);

	pager_open();
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
