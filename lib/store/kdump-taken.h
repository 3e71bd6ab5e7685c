/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The kdump dumps that 'pstored archive' took, <store>/kdump-taken, so that
 * each is taken once across runs and boots, whatever its directory is called
 * later: the format is described in kdump-taken.c, which parses it.
 *
 * The file is a record of what was done, not the crashes themselves: it is
 * replaced atomically but without waiting for the disk (store_write_file()).
 * Should a power cut lose it, the dumps are read again and found in the store
 * by their crash id, as a rerun finds pstore records.
 */

#include <stddef.h>
#include <stdint.h>

#include "store.h"

#define STORE_KDUMP_TAKEN_FILE "kdump-taken"
/* Far more than the lines of the dumps a disk can hold; a larger file is not ours. */
#define STORE_KDUMP_TAKEN_MAX (16u * 1024 * 1024)
#define KDUMP_TAKEN_NAME_MAX 255

typedef struct KdumpTakenEntry {
	uint64_t dev, ino;		/* of the dump's directory */
	uint64_t dmesg_ino, dmesg_time; /* of its dmesg; the mtime in µs */
	char crash_id[STORE_CRASH_ID_LEN + 1];
	char name[KDUMP_TAKEN_NAME_MAX + 1]; /* of the directory when it was taken */
} KdumpTakenEntry;

typedef struct KdumpTaken {
	KdumpTakenEntry *entries;
	size_t n, allocated;
	size_t n_bad; /* lines that did not parse, and were dropped */
} KdumpTaken;

void kdump_taken_done(KdumpTaken *t);

/* Parses the file's bytes; never fails on bad lines, which it counts. -ENOMEM only. */
int kdump_taken_parse(const char *buf, size_t len, KdumpTaken *ret);
/* The file's lines, in order and each a whole line; -EINVAL for an entry that cannot be one. */
int kdump_taken_format(const KdumpTaken *t, char **ret, size_t *ret_len);

/* The entry of the capture of dmesg_ino/dmesg_time in the directory dev/ino, or NULL. */
const KdumpTakenEntry *kdump_taken_find(const KdumpTaken *t, uint64_t dev, uint64_t ino,
					uint64_t dmesg_ino, uint64_t dmesg_time);
int kdump_taken_add(KdumpTaken *t, const KdumpTakenEntry *e);

/* An empty list when the file is missing; -EFBIG past STORE_KDUMP_TAKEN_MAX. */
int store_kdump_taken_read(Store *s, KdumpTaken *ret);
int store_kdump_taken_write(Store *s, const KdumpTaken *t);
