// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the store's readers: the index, crash.json and
 * last-archive.json. An input is the three files one after the other,
 * separated by a line holding a form feed ("\n\f\n"); the harness makes a
 * store of them in a temporary directory, with the crash directory named by
 * crash.json's "id" (or a fixed id if it has none that is valid), and reads
 * it through the public functions pstorectl uses: listing from the index
 * alone and through the JSON summaries, resolving an id, loading the crash
 * and its summary, reading the last run, then the same listing on a
 * writable store, which repairs the index. Built with ./configure
 * --enable-fuzzing CC=clang; seeds: tests/lib/fuzz-seeds.
 */

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "store/last-archive.h"
#include "store/store.h"

#define FALLBACK_ID "0d9a3c4e-5b6f-4a71-8c2d-3e4f5a6b7c8d"

static char base[] = "/dev/shm/fuzz-store.XXXXXX";
static int base_fd = -1;
static char store_dir[sizeof(base) + 8];

static void remove_base(void)
{
	(void)rm_rf_at(base_fd, "store");
	(void)rmdir(base);
}

/* The next part of the input, up to the separator or the end. */
static const uint8_t *next_part(const uint8_t **p, const uint8_t *end, size_t *ret_len)
{
	const uint8_t *part = *p, *sep = memmem(part, (size_t)(end - part), "\n\f\n", 3);

	*ret_len = (size_t)((sep ?: end) - part);
	*p = sep ? sep + 3 : end;
	return part;
}

static void write_or_abort(int dir_fd, const char *name, const void *buf, size_t len)
{
	if (write_file_at_nosync(dir_fd, name, O_TRUNC, 0640, buf, len) < 0)
		abort();
}

static void read_store(StoreOpenFlags flags, const char *crash_id)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_(store_listing_freep) StoreListing *l = NULL;
	json_t *list = NULL, *matches = NULL, *crash = NULL, *summary = NULL, *run = NULL;
	char *id = NULL;

	if (store_open(store_dir, flags, &s) < 0)
		abort();
	if (store_list_entries(s, &l) == 0)
		for (size_t i = 0; i < store_listing_size(l); i++) {
			const StoreListEntry *e = store_listing_entry(l, i);

			if (!e->id || !e->kind || !e->reason || !e->kernel_version ||
			    !e->signature || !e->upload || !e->headline || !e->summary)
				abort();
		}
	if (store_list(s, &list) == 0)
		json_decref(list);
	if (store_resolve_id(s, "0", &id, &matches) == 0)
		free(id);
	json_decref(matches);
	if (store_load_crash(s, crash_id, &crash) == 0) {
		if (store_crash_summary(crash, &summary) == 0)
			json_decref(summary);
		json_decref(crash);
	}
	if (store_read_last_archive(s, &run) == 0)
		json_decref(run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *index, *crash, *last;
	size_t index_len, crash_len, last_len;
	_cleanup_close_ int store_fd = -1, crash_fd = -1;
	char id[STORE_CRASH_ID_LEN + 1] = FALLBACK_ID;
	json_t *doc;

	if (base_fd < 0) {
		if (!mkdtemp(base))
			abort();
		base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (base_fd < 0)
			abort();
		snprintf(store_dir, sizeof(store_dir), "%s/store", base);
		atexit(remove_base);
	}
	index = next_part(&p, end, &index_len);
	crash = next_part(&p, end, &crash_len);
	last = next_part(&p, end, &last_len);

	doc = json_loadb((const char *)crash, crash_len, 0, NULL);
	if (store_crash_id_is_valid(json_string_value(json_object_get(doc, "id"))))
		memcpy(id, json_string_value(json_object_get(doc, "id")), sizeof(id));
	json_decref(doc);

	if (rm_rf_at(base_fd, "store") < 0)
		abort();
	store_fd = open_mkdir_at(base_fd, "store", true, 0700);
	if (store_fd < 0)
		abort();
	crash_fd = open_mkdir_at(store_fd, id, true, 0750);
	if (crash_fd < 0)
		abort();
	write_or_abort(store_fd, "index", index, index_len);
	write_or_abort(crash_fd, "crash.json", crash, crash_len);
	write_or_abort(store_fd, STORE_LAST_ARCHIVE_FILE, last, last_len);

	read_store(STORE_READONLY, id);
	read_store(0, id);
	return 0;
}
