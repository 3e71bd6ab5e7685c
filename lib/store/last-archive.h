/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The record of the last archive run, <store>/last-archive.json, written by
 * `pstored archive` when it ends (whatever the result) and shown by
 * `pstorectl status`:
 *
 *	{"started_at": T, "finished_at": T,          µs since the epoch, as in crash.json
 *	 "result": "success" | "failure",
 *	 "error": "...",                             only with "failure"
 *	 "crashes_archived": N, "records_erased": N,
 *	 "boot_id": "..."}
 *
 * Other keys may be added; readers ignore what they do not know.
 */

#include <jansson.h>

#include "store.h"

#define STORE_LAST_ARCHIVE_FILE "last-archive.json"

/*
 * Replaces the record atomically (written, fsync'ed, renamed into place), with
 * store_write_file(): takes the write lock, so no transaction of s is open.
 */
int store_write_last_archive(Store *s, json_t *run);

/* -ENOENT if no run was recorded; -EBADMSG if the file is not a JSON object. */
int store_read_last_archive(Store *s, json_t **ret);
