/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fs-util.h"
#include "last-archive.h"
#include "macro.h"

/* The record is a few hundred bytes; anything much larger is not ours. */
#define LAST_ARCHIVE_MAX (64u * 1024)

static int open_store_dir(Store *s)
{
	int fd = open(store_path(s), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int store_write_last_archive(Store *s, json_t *run)
{
	_cleanup_free_ char *text = NULL;

	if (!json_is_object(run))
		return -EINVAL;
	text = json_dumps(run, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return -ENOMEM;
	return store_write_file(s, STORE_LAST_ARCHIVE_FILE, text, strlen(text));
}

int store_read_last_archive(Store *s, json_t **ret)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	json_t *v;
	size_t len;
	int r;

	fd = open_store_dir(s);
	if (fd < 0)
		return fd;
	r = read_full_file_at(fd, STORE_LAST_ARCHIVE_FILE, LAST_ARCHIVE_MAX, &text, &len);
	if (r < 0)
		return r;
	v = json_loadb(text, len, 0, NULL);
	if (!json_is_object(v)) {
		json_decref(v);
		return -EBADMSG;
	}
	*ret = v;
	return 0;
}
