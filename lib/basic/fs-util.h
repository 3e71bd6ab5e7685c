/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * File helpers for durable, link-safe I/O. All return 0 or a negative errno
 * and leave output parameters untouched on failure.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* write(2) until everything is written, retrying on EINTR and short writes. */
int write_full(int fd, const void *buf, size_t len);

/* read(2) until size bytes are read or the end of the file, retrying on EINTR. */
int read_full(int fd, void *buf, size_t size, size_t *ret_len);

/*
 * Reads an open file to its end into a NUL-terminated buffer (the NUL is not
 * counted in *ret_len). -EFBIG if it holds more than max bytes: the read is
 * bounded, so a huge or endless file cannot exhaust memory.
 */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_len);

/*
 * Opens the regular file dir_fd/name with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
 * O_NOCTTY added to flags (mode if O_CREAT is among them): -ELOOP for a
 * symlink, -EISDIR for a directory, -EBADFD (as systemd's
 * stat_verify_regular()) for anything else that is not a regular file. A FIFO
 * or a device planted where a file is expected is never waited on or read.
 * O_NONBLOCK stays set, which changes nothing for a regular file.
 */
int open_regular_at(int dir_fd, const char *name, int flags, mode_t mode);

/* read_full_fd() of a file opened with open_regular_at(). */
int read_full_file_at(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_len);

/*
 * Gives the open file fd the permission bits mode (0777 at most), whatever the
 * umask took away when it was created; a directory keeps the set-group-ID bit
 * it inherited from its parent. Only calls fchmod(2) when the bits differ.
 */
int fd_set_mode(int fd, mode_t mode);

/*
 * Opens the regular file dir_fd/name for writing (open_regular_at()), creating
 * it with the permission bits mode (fd_set_mode()); flags adds to O_WRONLY |
 * O_CREAT. Returns the fd.
 */
int open_create_at(int dir_fd, const char *name, int flags, mode_t mode);

/*
 * Creates the directory dir_fd/name with the permission bits mode
 * (fd_set_mode()), or takes the one there unless exclusive, and opens it with
 * O_NOFOLLOW. Returns the fd.
 */
int open_mkdir_at(int dir_fd, const char *name, bool exclusive, mode_t mode);

/* Writes a file below dir_fd with the permission bits mode (fd_set_mode()), fsyncs it, closes it. */
int write_file_at(int dir_fd, const char *name, int flags, mode_t mode, const void *buf,
		  size_t len);
/* The same without the fsync, for a caller that makes many files durable at once (syncfs). */
int write_file_at_nosync(int dir_fd, const char *name, int flags, mode_t mode, const void *buf,
			 size_t len);

/*
 * Replaces dir_fd/name atomically: writes a new file of a unique name,
 * .#name and 16 random hex digits, with the permission bits mode, fsyncs it,
 * renames it over name and fsyncs the directory. Writers at once each write
 * their own file; the last rename wins. A writer killed before its rename
 * leaves its file behind.
 */
int write_file_atomic_at(int dir_fd, const char *name, mode_t mode, const void *buf, size_t len);
/*
 * The same without the fsyncs, for a file that may be lost in a power cut
 * (a cache, a report): readers see the old content or the new, and after a
 * power cut possibly an empty or partly written file, which they must detect.
 */
int write_file_atomic_at_nosync(int dir_fd, const char *name, mode_t mode, const void *buf,
				size_t len);

/*
 * The first half of write_file_atomic_at() (with sync) or write_file_atomic_at_nosync(), for a
 * caller that replaces many files at once: writes the new file, its name returned in ret_tmp,
 * without renaming it over name.
 */
int write_file_tmp_at(int dir_fd, const char *name, mode_t mode, const void *buf, size_t len,
		      bool sync, char ret_tmp[static NAME_MAX + 1]);

/* Opens the directory dir_fd/name for readdir(); flags adds to O_DIRECTORY | O_CLOEXEC. */
int opendir_at(int dir_fd, const char *name, int flags, DIR **ret);

static inline bool dot_or_dot_dot(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/*
 * Loops over the entries of the directory stream d other than "." and ".."
 * (systemd's FOREACH_DIRENT_ALL over readdir_no_dot()). When readdir(3) fails,
 * on_error runs with errno set (for example "r = -errno") and the loop ends;
 * a "break" in the body ends it without running on_error.
 */
#define FOREACH_DIRENT(de, d, on_error)                                                            \
	for (errno = 0, (de) = readdir(d);; errno = 0, (de) = readdir(d))                          \
		if (!(de)) {                                                                       \
			if (errno > 0) {                                                           \
				on_error;                                                          \
			}                                                                          \
			break;                                                                     \
		} else if (dot_or_dot_dot((de)->d_name))                                           \
			continue;                                                                  \
		else

/* Removes dir_fd/name and everything below it, never following symlinks. */
int rm_rf_at(int dir_fd, const char *name);
