// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The build ids of the crashed kernel and of the modules in its call trace, for symbolizing the
 * trace by build id later (pstorectl(1), SYMBOLIZATION). The kernel shows them while it runs:
 * /sys/kernel/notes holds vmlinux's ELF notes, /sys/module/NAME/notes/.note.gnu.build-id a loaded
 * module's. They are the crashed kernel's only when it is the running one, which after a crash
 * and a reboot it usually is: the same release is taken for the same kernel (a rebuild under the
 * same release is what the symbolizer's check of each function's size catches). A few small
 * reads, nothing decompressed; what cannot be read is left out.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "archive.h"
#include "elf-note.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "pstored.h"

/* Notes files are a few hundred bytes; Xen's notes make the kernel's longest. */
#define NOTES_MAX (16U * 1024)

/* The build id in the notes file dir_fd/path into hex; false when there is none to read. */
static bool read_build_id(int dir_fd, const char *path, char hex[static ELF_BUILD_ID_HEX_MAX])
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = read_full_file_at(dir_fd, path, NOTES_MAX, &buf, &len);
	if (r >= 0)
		r = elf_notes_build_id(buf, len, hex);
	if (r < 0) {
		log_debug_errno(r, "%s/%s: no build id: %m", arg_sysfs_dir, path);
		return false;
	}
	return true;
}

static int add_module_build_ids(int sys_fd, json_t *frames, json_t *modules)
{
	char hex[ELF_BUILD_ID_HEX_MAX];
	json_t *frame;
	size_t i;

	json_array_foreach(frames, i, frame) {
		const char *name = json_string_value(json_object_get(frame, "module"));
		_cleanup_free_ char *path = NULL;

		if (!name || json_object_get(modules, name) || !kernel_module_name_is_valid(name))
			continue;
		if (asprintf(&path, "module/%s/notes/.note.gnu.build-id", name) < 0)
			return -ENOMEM;
		if (read_build_id(sys_fd, path, hex) &&
		    json_object_set_new(modules, name, json_string(hex)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int crash_add_build_ids(json_t *crash)
{
	json_t *analysis = json_object_get(crash, "analysis");
	const char *release = json_string_value(json_object_get(analysis, "kernel_version"));
	json_auto_t *ids = NULL, *modules = NULL;
	_cleanup_close_ int sys_fd = -EBADF;
	char hex[ELF_BUILD_ID_HEX_MAX];
	struct utsname u;
	int r;

	if (!release || uname(&u) < 0 || !streq(release, u.release))
		return 0;
	sys_fd = open(arg_sysfs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sys_fd < 0) {
		log_debug_errno(errno, "Failed to open %s, crashes get no build ids: %m",
				arg_sysfs_dir);
		return 0;
	}
	ids = json_object();
	modules = json_object();
	if (!ids || !modules)
		return -ENOMEM;
	if (read_build_id(sys_fd, "kernel/notes", hex) &&
	    json_object_set_new(ids, "vmlinux", json_string(hex)) < 0)
		return -ENOMEM;
	r = add_module_build_ids(sys_fd, json_object_get(analysis, "frames"), modules);
	if (r < 0)
		return r;
	if (json_object_size(modules) > 0 && json_object_set(ids, "modules", modules) < 0)
		return -ENOMEM;
	if (json_object_size(ids) > 0 && json_object_set(crash, "build_ids", ids) < 0)
		return -ENOMEM;
	return 0;
}
