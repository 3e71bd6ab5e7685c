/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Listings of the crash store: every crash's summary (store_list()), or the
 * columns of the index as a listing shows them (store_list_entries()).
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "memory-util.h"
#include "store-internal.h"

static int compare_summaries(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t tx = json_integer_value(json_object_get(x, "time"));
	json_int_t ty = json_integer_value(json_object_get(y, "time"));

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "id")),
		      json_string_value(json_object_get(y, "id")));
}

int map_to_sorted_array(json_t *map, json_t **ret)
{
	_cleanup_free_ json_t **v = NULL;
	json_t *array, *summary;
	const char *id;
	size_t n = 0;

	v = calloc(json_object_size(map) + 1, sizeof(json_t *));
	array = json_array();
	if (!v || !array) {
		json_decref(array);
		return -ENOMEM;
	}
	json_object_foreach(map, id, summary)
		v[n++] = summary;
	qsort(v, n, sizeof(json_t *), compare_summaries);
	for (size_t i = 0; i < n; i++)
		if (json_array_append(array, v[i]) < 0) {
			json_decref(array);
			return -ENOMEM;
		}
	*ret = array;
	return 0;
}

/* The summaries from the checked index; repairs the file when that is possible without waiting. */
int store_list(Store *s, json_t **ret_summaries)
{
	json_auto_t *map = NULL;
	int r;

	r = index_load(s, &map);
	if (r >= 0 && (r > 0 || !index_is_fresh(s)) && !(s->flags & STORE_READONLY)) {
		_cleanup_close_ int lock_fd = store_lock(s, false);

		/* Reloaded under the lock so that no concurrent update is lost. */
		if (lock_fd >= 0)
			return index_repair(s, ret_summaries);
	}
	if (r < 0)
		return r;
	return map_to_sorted_array(map, ret_summaries);
}

/*
 * Listing reads the index through a read-only mapping and copies out only the
 * columns of the crashes it lists, into one block: on a store of 10,000
 * crashes the page faults of a byte-by-byte copy cost more than the parsing.
 * The entries and the strings are mapped whole (MAP_POPULATE,
 * mmap_populated()) instead of one page fault at a time.
 */
struct StoreListing {
	StoreListEntry *entries;
	size_t n_entries, n_allocated;
	char *strings; /* the index entries' strings, NUL-terminated, one after another */
	size_t strings_size;
	const char *index; /* the mapped index, which the summaries point into */
	size_t index_size;
	json_t *loaded;	    /* summaries of crashes the index lacked, owning their strings */
	char **loaded_text; /* and those summaries as JSON */
	size_t n_loaded_text;
};

StoreListing *store_listing_free(StoreListing *l)
{
	if (!l)
		return NULL;
	if (l->entries)
		munmap(l->entries, l->n_allocated * sizeof(*l->entries));
	if (l->strings)
		munmap(l->strings, l->strings_size);
	if (l->index)
		munmap((void *)l->index, l->index_size);
	json_decref(l->loaded);
	for (size_t i = 0; i < l->n_loaded_text; i++)
		free(l->loaded_text[i]);
	free(l->loaded_text);
	free(l);
	return NULL;
}

size_t store_listing_size(const StoreListing *l)
{
	return l->n_entries;
}

const StoreListEntry *store_listing_entry(const StoreListing *l, size_t i)
{
	return i < l->n_entries ? &l->entries[i] : NULL;
}

/*
 * Adds the entry of a crash, from the text of its columns, col[c] for each
 * column before COLUMN_SUMMARY but COLUMN_TIME. store_list_entries() made
 * room for every crash it lists.
 */
static void listing_add(StoreListing *l, const char *const *col, uint64_t time, const char *summary,
			size_t summary_len)
{
	l->entries[l->n_entries++] = (StoreListEntry){
		.id = col[COLUMN_ID],
		.time = time,
		.kind = col[COLUMN_KIND],
		.reason = col[COLUMN_REASON],
		.kernel_version = col[COLUMN_KERNEL],
		.signature = col[COLUMN_SIGNATURE],
		.upload = col[COLUMN_UPLOAD],
		.headline = col[COLUMN_HEADLINE],
		.summary = summary,
		.summary_len = summary_len,
	};
}

/* An entry for a crash the index lacks, from its crash.json (the slow way). */
static int listing_add_loaded(StoreListing *l, Store *s, const char *id)
{
	const char *col[COLUMN_SUMMARY];
	json_t *summary;
	char **text;
	int r;

	r = crash_summary_load(s, id, &summary);
	if (r < 0 || !summary)
		return r;
	if (json_array_append_new(l->loaded, summary) < 0)
		return -ENOMEM;
	text = reallocarray(l->loaded_text, l->n_loaded_text + 1, sizeof(char *));
	if (!text)
		return -ENOMEM;
	l->loaded_text = text;
	text[l->n_loaded_text] = json_dumps(summary, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text[l->n_loaded_text])
		return -ENOMEM;
	for (int c = COLUMN_ID; c < COLUMN_SUMMARY; c++)
		col[c] = summary_column(summary, c) ?: "";
	listing_add(l, col, (uint64_t)MAX(json_integer_value(json_object_get(summary, "time")), 0),
		    text[l->n_loaded_text], strlen(text[l->n_loaded_text]));
	l->n_loaded_text++;
	return 0;
}

static int compare_entries(const void *a, const void *b)
{
	const StoreListEntry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* Copies the columns of the listed index lines out of the mapping into l->strings. */
static int listing_copy_strings(StoreListing *l, IndexLine *const *keep, size_t n)
{
	static const int text_columns[] = {COLUMN_ID,	   COLUMN_KIND,	     COLUMN_REASON,
					   COLUMN_KERNEL,  COLUMN_SIGNATURE, COLUMN_UPLOAD,
					   COLUMN_HEADLINE};
	size_t size = 0;
	char *w;

	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < ARRAY_SIZE(text_columns); c++)
			size += keep[i]->end[text_columns[c]] -
				column_begin(keep[i], text_columns[c]) + 1;
	if (size == 0)
		return 0;
	w = mmap_populated(size);
	if (!w)
		return -errno;
	l->strings = w;
	l->strings_size = size;

	for (size_t i = 0; i < n; i++) {
		uint32_t json = column_begin(keep[i], COLUMN_SUMMARY);
		const char *col[COLUMN_SUMMARY];

		for (size_t c = 0; c < ARRAY_SIZE(text_columns); c++) {
			uint32_t b = column_begin(keep[i], text_columns[c]);
			uint32_t len = keep[i]->end[text_columns[c]] - b;

			memcpy(w, keep[i]->start + b, len);
			w[len] = '\0';
			col[text_columns[c]] = w;
			w += len + 1;
		}
		listing_add(l, col, keep[i]->time, keep[i]->start + json,
			    keep[i]->end[COLUMN_SUMMARY] - json);
	}
	return 0;
}

/*
 * The entries: the indexed crashes copied out in the order of the listing,
 * which then needs sorting only for the crashes the index lacked (missing),
 * read from their crash.json.
 */
static int listing_fill(StoreListing *l, Store *s, IndexLine **lines, size_t n,
			const CrashIdSlot *missing, size_t n_missing)
{
	int r;

	if (n > 0)
		qsort(lines, n, sizeof(*lines), compare_index_lines_by_time);
	l->n_allocated = n + n_missing + 1;
	l->entries = mmap_populated(l->n_allocated * sizeof(*l->entries));
	if (!l->entries)
		return -errno;
	r = listing_copy_strings(l, lines, n);
	for (size_t k = 0; r >= 0 && k < n_missing; k++)
		r = listing_add_loaded(l, s, missing[k]);
	if (r < 0)
		return r;
	if (n_missing > 0)
		qsort(l->entries, l->n_entries, sizeof(*l->entries), compare_entries);
	return 0;
}

int store_list_entries(Store *s, StoreListing **ret)
{
	_cleanup_(store_listing_freep) StoreListing *l = NULL;
	_cleanup_(index_lines_done) IndexLines ix = {};
	_cleanup_free_ CrashIdSlot *missing = NULL;
	size_t n_missing;
	int r;

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->loaded = json_array();
	if (!l->loaded)
		return -ENOMEM;

	r = index_lines_read(s, &ix);
	if (r < 0)
		return r;
	/* A corrupt index: list from the crash directories, and tell. */
	if (ix.corrupt)
		ix.n_by_id = 0;
	/* Unless the store directory is as a writer left it after checking the index (then the
	 * index holds every crash, and only those), the crash directories tell. */
	r = index_reconcile(s, &ix, true, &missing, &n_missing);
	if (r < 0)
		return r;
	r = listing_fill(l, s, ix.by_id, ix.n_by_id, missing, n_missing);
	if (r < 0)
		return r;
	/* The summaries point into the mapping: the listing keeps it. */
	l->index = TAKE_PTR(ix.buf);
	l->index_size = ix.buf_size;
	*ret = TAKE_PTR(l);
	return ix.corrupt;
}

int store_resolve_id(Store *s, const char *prefix, char **ret_id, json_t **ret_matches)
{
	json_auto_t *summaries = NULL, *matches = NULL;
	size_t len = prefix ? strlen(prefix) : 0;
	json_t *summary;
	size_t i;
	int r;

	if (len == 0 || len > STORE_CRASH_ID_LEN)
		return -EINVAL;
	for (const char *p = prefix; *p; p++)
		if (!isxdigit((unsigned char)*p) && *p != '-')
			return -EINVAL;

	r = store_list(s, &summaries);
	if (r < 0)
		return r;
	matches = json_array();
	if (!matches)
		return -ENOMEM;
	json_array_foreach(summaries, i, summary) {
		const char *id = json_string_value(json_object_get(summary, "id"));

		if (strncasecmp(id, prefix, len) == 0 && json_array_append(matches, summary) < 0)
			return -ENOMEM;
	}

	if (json_array_size(matches) == 0)
		return -ENOENT;
	if (json_array_size(matches) > 1) {
		if (ret_matches)
			*ret_matches = TAKE_PTR(matches);
		return -ENOTUNIQ;
	}
	if (ret_id) {
		char *id = strdup(
			json_string_value(json_object_get(json_array_get(matches, 0), "id")));

		if (!id)
			return -ENOMEM;
		*ret_id = id;
	}
	if (ret_matches)
		*ret_matches = TAKE_PTR(matches);
	return 0;
}
