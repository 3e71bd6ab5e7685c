/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int read_full(int fd, void *buf, size_t size, size_t *ret_len)
{
	char *p = buf;
	size_t len = 0;

	while (len < size) {
		ssize_t n = read(fd, p + len, size - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret_len = len;
	return 0;
}

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, allocated = 0;
	struct stat st;

	/* Start with the file size when it is known, and a byte more to see the end without
	 * growing the buffer; pstore and sysfs files may lie (0). */
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		allocated = MIN((size_t)st.st_size, max) + 2;
	if (allocated < 4096)
		allocated = MIN(max, (size_t)4096) + 1;

	buf = malloc(allocated);
	if (!buf)
		return -ENOMEM;

	for (;;) {
		size_t want, n;
		int r;

		if (size + 1 >= allocated) {
			char *p;

			if (size > max)
				return -EFBIG;
			want = MIN(allocated * 2, max + 2);
			p = realloc(buf, want);
			if (!p)
				return -ENOMEM;
			buf = p;
			allocated = want;
		}

		want = allocated - 1 - size;
		r = read_full(fd, buf + size, want, &n);
		if (r < 0)
			return r;
		size += n;
		if (size > max)
			return -EFBIG;
		if (n < want)
			break; /* the end of the file */
	}

	buf[size] = 0;
	*ret = TAKE_PTR(buf);
	if (ret_len)
		*ret_len = size;
	return 0;
}

int open_regular_at(int dir_fd, const char *name, int flags, mode_t mode)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	return TAKE_FD(fd);
}

int read_full_file_at(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = open_regular_at(dir_fd, name, O_RDONLY, 0);

	if (fd < 0)
		return fd;
	return read_full_fd(fd, max, ret, ret_len);
}

int fd_set_mode(int fd, mode_t mode)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((st.st_mode & 0777) == mode)
		return 0;
	/* chmod(2) clears the set-group-ID bit unless it is asked for again. */
	if (fchmod(fd, (st.st_mode & S_ISGID) | mode) < 0)
		return -errno;
	return 0;
}

/* Gives the new fd the permission bits mode (fd_set_mode()); closes it on failure. */
static int fd_with_mode(int fd, mode_t mode)
{
	_cleanup_close_ int owned = fd;
	int r;

	if (owned < 0)
		return owned;
	r = fd_set_mode(owned, mode);
	if (r < 0)
		return r;
	return TAKE_FD(owned);
}

int open_create_at(int dir_fd, const char *name, int flags, mode_t mode)
{
	return fd_with_mode(open_regular_at(dir_fd, name, O_WRONLY | O_CREAT | flags, mode), mode);
}

int open_mkdir_at(int dir_fd, const char *name, bool exclusive, mode_t mode)
{
	int fd;

	if (mkdirat(dir_fd, name, mode) < 0 && (exclusive || errno != EEXIST))
		return -errno;
	fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd_with_mode(fd < 0 ? -errno : fd, mode);
}

static int write_file(int dir_fd, const char *name, int flags, mode_t mode, const void *buf,
		      size_t len, bool sync)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd = open_create_at(dir_fd, name, flags, mode);
	if (fd < 0)
		return fd;
	r = write_full(fd, buf, len);
	if (r < 0)
		return r;
	if (sync && fsync(fd) < 0)
		return -errno;
	/* close() can report a deferred write error (NFS); do not lose it. */
	if (close(TAKE_FD(fd)) < 0)
		return -errno;
	return 0;
}

int write_file_at(int dir_fd, const char *name, int flags, mode_t mode, const void *buf, size_t len)
{
	return write_file(dir_fd, name, flags, mode, buf, len, true);
}

int write_file_at_nosync(int dir_fd, const char *name, int flags, mode_t mode, const void *buf,
			 size_t len)
{
	return write_file(dir_fd, name, flags, mode, buf, len, false);
}

/*
 * A name for a temporary file next to name: ".#", name and 16 hex digits, as
 * systemd's tempfn_random() makes them, so that two writers of name at once
 * never share one. Unique enough with O_EXCL, which retries on a collision:
 * not a secret, so without entropy at boot, the pid and the clock serve.
 */
static int tmp_name_random(const char *name, char ret[static NAME_MAX + 1])
{
	struct timespec ts;
	uint64_t rnd;

	if (getrandom(&rnd, sizeof(rnd), GRND_INSECURE) != (ssize_t)sizeof(rnd) &&
	    getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		rnd = ((uint64_t)getpid() << 40) ^ ((uint64_t)ts.tv_sec << 30) ^
		      (uint64_t)ts.tv_nsec;
	}
	if ((size_t)snprintf(ret, NAME_MAX + 1, ".#%s%016" PRIx64, name, rnd) > NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* Writes buf to a new file of a unique name next to name, returned in ret_tmp. */
static int write_file_tmp(int dir_fd, const char *name, mode_t mode, const void *buf, size_t len,
			  bool sync, char ret_tmp[static NAME_MAX + 1])
{
	int r;

	/* Created anew, never opened: whatever is there (a FIFO would block an open for writing). */
	do {
		r = tmp_name_random(name, ret_tmp);
		if (r < 0)
			return r;
		r = write_file(dir_fd, ret_tmp, O_EXCL, mode, buf, len, sync);
	} while (r == -EEXIST);
	if (r < 0) {
		(void)unlinkat(dir_fd, ret_tmp, 0);
		return r;
	}
	return 0;
}

int write_file_tmp_at(int dir_fd, const char *name, mode_t mode, const void *buf, size_t len,
		      bool sync, char ret_tmp[static NAME_MAX + 1])
{
	return write_file_tmp(dir_fd, name, mode, buf, len, sync, ret_tmp);
}

static int write_file_atomic(int dir_fd, const char *name, mode_t mode, const void *buf, size_t len,
			     bool sync)
{
	char tmp[NAME_MAX + 1];
	int r;

	r = write_file_tmp(dir_fd, name, mode, buf, len, sync, tmp);
	if (r < 0)
		return r;
	if (renameat(dir_fd, tmp, dir_fd, name) < 0) {
		r = -errno;
		(void)unlinkat(dir_fd, tmp, 0);
		return r;
	}
	if (sync && fsync(dir_fd) < 0)
		return -errno;
	return 0;
}

int write_file_atomic_at(int dir_fd, const char *name, mode_t mode, const void *buf, size_t len)
{
	return write_file_atomic(dir_fd, name, mode, buf, len, true);
}

int write_file_atomic_at_nosync(int dir_fd, const char *name, mode_t mode, const void *buf,
				size_t len)
{
	return write_file_atomic(dir_fd, name, mode, buf, len, false);
}

int opendir_at(int dir_fd, const char *name, int flags, DIR **ret)
{
	int fd, r;
	DIR *d;

	fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret = d;
	return 0;
}

int rm_rf_at(int dir_fd, const char *name)
{
	DIR *d;
	struct dirent *de;
	int r;

	if (unlinkat(dir_fd, name, 0) >= 0)
		return 0;
	if (errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;

	r = opendir_at(dir_fd, name, O_NOFOLLOW, &d);
	if (r < 0)
		return r;

	FOREACH_DIRENT(de, d, r = -errno) {
		r = rm_rf_at(dirfd(d), de->d_name);
		if (r < 0)
			break;
	}
	closedir(d);
	if (r < 0)
		return r;

	if (unlinkat(dir_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
