/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The export document of a crash: what `pstorectl export` prints and what
 * the http-json upload target sends. It is crash.json with two additions:
 *
 *	"export_version": 1
 *	"dmesg": "<dmesg.txt, invalid UTF-8 replaced by U+FFFD>"   (absent if no log)
 *	"records": [{...crash.json's record fields..., "data": "<base64 of the raw file>"}]
 *
 * Nothing here logs; the functions return 0 or a negative errno and leave
 * *ret untouched on failure.
 */

#include <jansson.h>

#include "store/store.h"

#define UPLOAD_EXPORT_VERSION 1

/* A record file or log larger than this is refused (-EFBIG): pstore records are kilobytes. */
#define UPLOAD_EXPORT_FILE_MAX (64u * 1024 * 1024)

int upload_export_json(Store *s, const char *id, json_t **ret);
