// SPDX-License-Identifier: GPL-2.0-or-later
/* The reader of the export document (export-parse.h). */

#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export-parse.h"
#include "macro.h"
#include "store/store.h"

/*
 * jansson allocates each value on its own: "{}", 3 bytes of text, is some 240 bytes of
 * memory, and a document of [{},{},...] would take 80 times its size. While a document is
 * parsed, jansson's allocations go through these, which count them against the budget of
 * export-parse.h for the bytes read so far; past it, allocation fails and so does the parse.
 * They wrap the allocator that was set, which must return malloc()'s blocks
 * (malloc_usable_size()). jansson's allocator is global: pstorectl and the fuzzer run one
 * thread.
 */
typedef struct ParseState {
	UploadExportRead read;
	void *userdata;
	size_t consumed; /* bytes read */
	size_t used;	 /* bytes jansson holds that it allocated since */
	json_malloc_t malloc;
	json_free_t free;
	bool over_budget, out_of_memory;
} ParseState;

static ParseState *parse_state;

static size_t parse_budget(const ParseState *p)
{
	if (p->consumed >
	    (UPLOAD_EXPORT_MEMORY_MAX - UPLOAD_EXPORT_MEMORY_BASE) / UPLOAD_EXPORT_MEMORY_FACTOR)
		return UPLOAD_EXPORT_MEMORY_MAX;
	return UPLOAD_EXPORT_MEMORY_FACTOR * p->consumed + UPLOAD_EXPORT_MEMORY_BASE;
}

static void *budget_malloc(size_t size)
{
	ParseState *p = parse_state;
	size_t budget = parse_budget(p);
	void *m;

	if (p->used > budget || size > budget - p->used) {
		p->over_budget = true;
		return NULL;
	}
	m = p->malloc(size);
	if (!m) {
		p->out_of_memory = true;
		return NULL;
	}
	p->used += malloc_usable_size(m);
	return m;
}

/* While the budget holds, jansson frees only what it allocated during the parse. */
static void budget_free(void *m)
{
	ParseState *p = parse_state;

	if (m)
		p->used -= MIN(malloc_usable_size(m), p->used);
	p->free(m);
}

static size_t counting_read(void *buffer, size_t size, void *userdata)
{
	ParseState *p = userdata;
	size_t n = p->read(buffer, size, p->userdata);

	if (n != (size_t)-1)
		p->consumed += n;
	return n;
}

int upload_export_load(UploadExportRead read, void *userdata, json_error_t *error, json_t **ret)
{
	ParseState p = {.read = read, .userdata = userdata};
	json_t *v;

	json_get_alloc_funcs(&p.malloc, &p.free);
	parse_state = &p;
	json_set_alloc_funcs(budget_malloc, budget_free);
	v = json_load_callback(counting_read, &p, 0, error);
	json_set_alloc_funcs(p.malloc, p.free);
	parse_state = NULL;
	if (!v && p.out_of_memory)
		return -ENOMEM;
	if (!v && p.over_budget)
		return -E2BIG;
	if (!v)
		return -EINVAL;
	*ret = v;
	return 0;
}

int upload_export_parse(UploadExportRead read, void *userdata, json_error_t *error, json_t **ret)
{
	json_auto_t *doc = NULL;
	int r;

	r = upload_export_load(read, userdata, error, &doc);
	if (r < 0)
		return r;
	if (!json_is_integer(json_object_get(doc, "export_version")) ||
	    !store_crash_id_is_valid(json_string_value(json_object_get(doc, "id")) ?: ""))
		return -EBADMSG;
	*ret = TAKE_PTR(doc);
	return 0;
}

typedef struct Buffer {
	const char *p;
	size_t left;
} Buffer;

/* Hands out the text in pieces, as a file is read: the budget grows as it is read. */
static size_t read_buffer(void *buffer, size_t size, void *userdata)
{
	Buffer *b = userdata;
	size_t n = MIN(size, b->left);

	memcpy(buffer, b->p, n);
	b->p += n;
	b->left -= n;
	return n;
}

int upload_export_load_buffer(const char *buf, size_t len, json_error_t *error, json_t **ret)
{
	return upload_export_load(read_buffer, &(Buffer){buf, len}, error, ret);
}

int upload_export_parse_buffer(const char *buf, size_t len, json_error_t *error, json_t **ret)
{
	return upload_export_parse(read_buffer, &(Buffer){buf, len}, error, ret);
}

void upload_export_strip(json_t *doc)
{
	json_t *record;
	size_t i;

	(void)json_object_del(doc, "dmesg");
	(void)json_object_del(doc, "export_version");
	json_array_foreach(json_object_get(doc, "records"), i, record)
		(void)json_object_del(record, "data");
}
