// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Streaming JSON writer. See json-writer.h.
 */

#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "macro.h"

void json_writer_reset(JsonWriter *w)
{
	w->len = 0;
	w->depth = 0;
	w->has_member = 0;
	w->is_array = 0;
	w->oom = false;
}

void json_writer_done(JsonWriter *w)
{
	free(w->buf);
	*w = (JsonWriter){};
}

/* Room for n more bytes and a NUL; false (and oom) if there is none. */
static bool reserve(JsonWriter *w, size_t n)
{
	if (w->oom)
		return false;
	if (_likely_(n < w->cap - w->len))
		return true;

	size_t cap = MAX(w->cap, (size_t)4096);
	while (n >= cap - w->len) {
		if (cap > SIZE_MAX / 2) {
			w->oom = true;
			return false;
		}
		cap *= 2;
	}
	char *p = realloc(w->buf, cap);
	if (!p) {
		w->oom = true;
		return false;
	}
	w->buf = p;
	w->cap = cap;
	return true;
}

/* Bytes the escaped form of s[0..n) may take at most: "\u00XX" for each. */
static size_t escaped_max(size_t n)
{
	return n > (SIZE_MAX - 2) / 6 ? SIZE_MAX : 6 * n + 2;
}

/* Appends "s" escaped as jansson does (dump.c: dump_string() without flags); room reserved. */
static void put_string(JsonWriter *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	char *d = w->buf + w->len;

	*d++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (_likely_(ch >= 0x20 && ch != '"' && ch != '\\')) {
			*d++ = (char)ch;
			continue;
		}
		*d++ = '\\';
		switch (ch) {
		case '"':
		case '\\':
			*d++ = (char)ch;
			break;
		case '\b':
			*d++ = 'b';
			break;
		case '\f':
			*d++ = 'f';
			break;
		case '\n':
			*d++ = 'n';
			break;
		case '\r':
			*d++ = 'r';
			break;
		case '\t':
			*d++ = 't';
			break;
		default:
			memcpy(d, "u00", 3);
			d[3] = hex[ch >> 4];
			d[4] = hex[ch & 0xf];
			d += 5;
			break;
		}
	}
	*d++ = '"';
	w->len = (size_t)(d - w->buf);
}

/*
 * Starts a value: the separator after the previous member and the key. Reserves room for the
 * key and extra bytes of value; false when out of memory or nesting.
 */
static bool begin_value(JsonWriter *w, const char *key, size_t extra)
{
	size_t klen = key ? strlen(key) : 0, kmax = escaped_max(klen);

	/* Nothing that large fits in memory anyway; and the sum below cannot wrap. */
	if (kmax > SIZE_MAX / 4 || extra > SIZE_MAX / 4) {
		w->oom = true;
		return false;
	}
	/* The key, quoted and escaped, the ',' before it and the ':' after it. */
	if (!reserve(w, kmax + 2 + extra))
		return false;
	if (w->has_member & (UINT64_C(1) << w->depth))
		w->buf[w->len++] = ',';
	w->has_member |= UINT64_C(1) << w->depth;
	if (key) {
		put_string(w, key, klen);
		w->buf[w->len++] = ':';
	}
	return true;
}

static void container_begin(JsonWriter *w, const char *key, bool array)
{
	if (w->depth + 1 >= JSON_WRITER_MAX_DEPTH) {
		w->oom = true;
		return;
	}
	if (!begin_value(w, key, 1))
		return;
	w->buf[w->len++] = array ? '[' : '{';
	w->depth++;
	w->has_member &= ~(UINT64_C(1) << w->depth);
	if (array)
		w->is_array |= UINT64_C(1) << w->depth;
	else
		w->is_array &= ~(UINT64_C(1) << w->depth);
}

void json_writer_object_begin(JsonWriter *w, const char *key)
{
	container_begin(w, key, false);
}

void json_writer_array_begin(JsonWriter *w, const char *key)
{
	container_begin(w, key, true);
}

void json_writer_end(JsonWriter *w)
{
	if (w->depth == 0 || !reserve(w, 1))
		return;
	w->buf[w->len++] = w->is_array & (UINT64_C(1) << w->depth) ? ']' : '}';
	w->depth--;
}

void json_writer_stringn(JsonWriter *w, const char *key, const char *s, size_t n)
{
	if (begin_value(w, key, escaped_max(n)))
		put_string(w, s, n);
}

void json_writer_string(JsonWriter *w, const char *key, const char *s)
{
	json_writer_stringn(w, key, s, strlen(s));
}

void json_writer_integer(JsonWriter *w, const char *key, int64_t v)
{
	char digits[20];
	size_t n = 0;
	/* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	if (!begin_value(w, key, 21))
		return;
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0);
	if (v < 0)
		w->buf[w->len++] = '-';
	while (n > 0)
		w->buf[w->len++] = digits[--n];
}

void json_writer_bool(JsonWriter *w, const char *key, bool v)
{
	if (!begin_value(w, key, 5))
		return;
	memcpy(w->buf + w->len, v ? "true" : "false", v ? 4 : 5);
	w->len += v ? 4 : 5;
}

const char *json_writer_text(JsonWriter *w, size_t *ret_len)
{
	if (w->oom || !w->buf)
		return NULL;
	w->buf[w->len] = '\0';
	*ret_len = w->len;
	return w->buf;
}

char *json_writer_take(JsonWriter *w, size_t *ret_len)
{
	char *text = w->buf;

	if (!json_writer_text(w, ret_len))
		return NULL;
	*w = (JsonWriter){};
	return text;
}
