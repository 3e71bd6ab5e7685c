/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <string.h>

#include "last-archive.h"
#include "macro.h"
#include "store-internal.h"

/* The record is a few hundred bytes; anything much larger is not ours. */
#define LAST_ARCHIVE_MAX (64u * 1024)

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
	return json_object_read_at(s->dir_fd, STORE_LAST_ARCHIVE_FILE, LAST_ARCHIVE_MAX, ret);
}
