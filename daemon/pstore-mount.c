// SPDX-License-Identifier: GPL-2.0-or-later
/* Finding, and if need be mounting, the pstore filesystem. */

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "pstore-mount.h"
#include "pstore/pstore.h"

static int fd_is_pstorefs(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	return (unsigned long)sfs.f_type == (unsigned long)PSTORE_FS_MAGIC;
}

int pstore_dir_open(const char *dir, bool mount_if_needed, int *ret_fd, char **error_message)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && mount_if_needed) {
			log_info("%s does not exist: this kernel has no pstore; nothing to do.",
				 dir);
			return 0;
		}
		return log_error_errno_save(errno, error_message, "Cannot open %s: %m", dir);
	}
	if (!mount_if_needed) {
		*ret_fd = TAKE_FD(fd);
		return 1;
	}

	r = fd_is_pstorefs(fd);
	if (r < 0)
		return log_error_errno_save(r, error_message,
					    "Cannot check the filesystem of %s: %m", dir);
	if (r > 0) {
		*ret_fd = TAKE_FD(fd);
		return 1;
	}

	if (mount("pstore", dir, "pstore", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		if (errno == ENODEV) {
			log_info("This kernel has no pstore filesystem; nothing to do.");
			return 0;
		}
		return log_error_errno_save(
			errno, error_message,
			"pstore is not mounted on %s and mounting it failed: %m "
			"(mount it with 'mount -t pstore pstore %s')",
			dir, dir);
	}
	log_debug("Mounted pstore on %s.", dir);

	/* The fd still refers to the directory below the new mount. */
	close(TAKE_FD(fd));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return log_error_errno_save(errno, error_message, "Cannot open %s: %m", dir);
	*ret_fd = TAKE_FD(fd);
	return 1;
}
