/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A streaming JSON writer: appends compact JSON text to one growing buffer,
 * byte for byte what jansson's json_dumps(v, JSON_COMPACT) prints for the
 * same values in the same order (strings escaped as RFC 8259 requires, with
 * jansson's choice of escapes; UTF-8 passed through). The buffer grows by
 * doubling, so writing a value allocates nothing in the steady state.
 *
 * A key is given with every value inside an object and is NULL inside an
 * array and at the top level. An allocation failure is remembered (oom) and
 * makes every later call a no-op; the caller checks once at the end.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_WRITER_MAX_DEPTH 64

typedef struct JsonWriter {
	char *buf;
	size_t len;
	size_t cap;
	unsigned depth;
	uint64_t has_member; /* bit d: the container at depth d holds a value already */
	uint64_t is_array;   /* bit d: the container at depth d is an array */
	bool oom;
} JsonWriter;

/* Empties w for new text, keeping its buffer. */
void json_writer_reset(JsonWriter *w);
/* Frees the buffer; w may be reused after json_writer_reset(). */
void json_writer_done(JsonWriter *w);

void json_writer_object_begin(JsonWriter *w, const char *key);
void json_writer_array_begin(JsonWriter *w, const char *key);
/* Closes the innermost object or array. */
void json_writer_end(JsonWriter *w);

void json_writer_string(JsonWriter *w, const char *key, const char *s);
void json_writer_stringn(JsonWriter *w, const char *key, const char *s, size_t n);
void json_writer_integer(JsonWriter *w, const char *key, int64_t v);
void json_writer_bool(JsonWriter *w, const char *key, bool v);

/*
 * Returns the text written so far, NUL-terminated, and its length in *ret_len; NULL if an
 * allocation failed at any point or no value was written.
 */
const char *json_writer_text(JsonWriter *w, size_t *ret_len);
/* The same, handing the buffer to the caller to free(); w is left empty. */
char *json_writer_take(JsonWriter *w, size_t *ret_len);
