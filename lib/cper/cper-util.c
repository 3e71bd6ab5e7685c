// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bounds-checked field readers and JSON helpers for the CPER decoders.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cper-internal.h"

uint64_t cper_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

_printf_(4, 0) static void add_message(CperCtx *c, json_t *messages, size_t offset, const char *fmt,
				       va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (json_array_append_new(messages, json_pack("{s:I,s:s}", "offset", (json_int_t)offset,
						      "message", msg)) < 0)
		c->oom = true;
}

void cper_error(CperCtx *c, size_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_message(c, c->errors, offset, fmt, ap);
	va_end(ap);
}

void cper_note(CperCtx *c, size_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_message(c, c->notes, offset, fmt, ap);
	va_end(ap);
}

/*
 * The tree: stores v under key in the innermost container (appends it in an array) and takes a
 * reference of its own; -1 when there is none or on allocation failure.
 */
static int tree_store(CperCtx *c, const char *key, json_t *v)
{
	json_t *parent = c->depth > 0 ? c->tree[c->depth - 1] : NULL;

	if (!parent || !v)
		return -1;
	/* Keys are the decoder's own ASCII literals: no need for jansson to check them. */
	return key ? json_object_set_nocheck(parent, key, v) : json_array_append(parent, v);
}

/* The same, stealing the caller's reference to v. */
static void tree_add(CperCtx *c, const char *key, json_t *v)
{
	if (tree_store(c, key, v) < 0)
		c->oom = true;
	json_decref(v);
}

static void open_container(CperCtx *c, const char *key, bool array)
{
	if (c->text) {
		if (array)
			json_writer_array_begin(c->text, key);
		else
			json_writer_object_begin(c->text, key);
		c->depth++;
		return;
	}
	if (c->depth >= CPER_MAX_DEPTH) {
		c->oom = true;
		return;
	}
	json_t *v = array ? json_array() : json_object();
	/* Below the root, the parent holds the reference: v is valid as long as the parent. At
	 * depth 0, v is the root, a reference the caller takes from c->tree[0]. */
	if (c->depth > 0) {
		int r = tree_store(c, key, v);
		json_decref(v);
		if (r < 0)
			v = NULL;
	}
	if (!v)
		c->oom = true;
	c->tree[c->depth++] = v;
}

void cper_emit_open_object(CperCtx *c, const char *key)
{
	open_container(c, key, false);
}

void cper_emit_open_array(CperCtx *c, const char *key)
{
	open_container(c, key, true);
}

void cper_emit_close(CperCtx *c)
{
	if (c->depth == 0)
		return;
	c->depth--;
	if (c->text)
		json_writer_end(c->text);
}

void cper_emit_close_to(CperCtx *c, unsigned depth)
{
	while (c->depth > depth)
		cper_emit_close(c);
}

void cper_emit_int(CperCtx *c, const char *key, int64_t v)
{
	if (c->text)
		json_writer_integer(c->text, key, v);
	else
		tree_add(c, key, json_integer((json_int_t)v));
}

void cper_emit_bool(CperCtx *c, const char *key, bool v)
{
	if (c->text)
		json_writer_bool(c->text, key, v);
	else
		tree_add(c, key, json_boolean(v));
}

void cper_emit_stringn(CperCtx *c, const char *key, const char *s, size_t n)
{
	if (c->text)
		json_writer_stringn(c->text, key, s, n);
	else
		tree_add(c, key, json_stringn_nocheck(s, n));
}

void cper_emit_string(CperCtx *c, const char *key, const char *s)
{
	cper_emit_stringn(c, key, s, strlen(s));
}

void cper_emit_messages(CperCtx *c, const char *key, const json_t *messages)
{
	size_t i;
	const json_t *m;

	cper_emit_open_array(c, key);
	json_array_foreach(messages, i, m) {
		cper_emit_open_object(c, NULL);
		cper_emit_int(c, "offset", json_integer_value(json_object_get(m, "offset")));
		cper_emit_string(c, "message", json_string_value(json_object_get(m, "message")));
		cper_emit_close(c);
	}
	cper_emit_close(c);
}

static const char hexdigits[] = "0123456789abcdef";

/* snprintf() is the decoder's hottest path otherwise: format by hand. */
void cper_emit_hex(CperCtx *c, const char *key, uint64_t v, unsigned width)
{
	char buf[19];
	unsigned n = MIN(width, 8u) * 2;

	buf[0] = '0';
	buf[1] = 'x';
	for (unsigned i = 0; i < n; i++)
		buf[2 + i] = hexdigits[(v >> (4 * (n - 1 - i))) & 0xf];
	cper_emit_stringn(c, key, buf, 2 + n);
}

static char *hex_bytes(char *d, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*d++ = hexdigits[p[i] >> 4];
		*d++ = hexdigits[p[i] & 0xf];
	}
	return d;
}

void cper_guid_format(const uint8_t *g, char buf[static 37])
{
	/* The first three fields are little-endian, the last eight bytes in order. */
	const uint8_t be[8] = {g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6]};
	char *d = buf;

	d = hex_bytes(d, be, 4);
	*d++ = '-';
	d = hex_bytes(d, be + 4, 2);
	*d++ = '-';
	d = hex_bytes(d, be + 6, 2);
	*d++ = '-';
	d = hex_bytes(d, g + 8, 2);
	*d++ = '-';
	d = hex_bytes(d, g + 10, 6);
	*d = '\0';
}

void cper_emit_guid(CperCtx *c, const char *key, const uint8_t *g)
{
	char buf[37];

	cper_guid_format(g, buf);
	cper_emit_stringn(c, key, buf, 36);
}

bool cper_field(const CperBuf *b, size_t off, size_t width, bool valid, const char *name,
		uint64_t *ret)
{
	if (!valid)
		return false;
	if (!cper_buf_has(b, off, width)) {
		cper_error(b->ctx, b->base + off,
			   "%s: field marked valid lies past the end of the %zu-byte structure",
			   name, b->len);
		return false;
	}
	*ret = cper_le(b->p + off, width);
	return true;
}

bool cper_put_hex(const CperBuf *b, const char *name, size_t off, size_t width, bool valid)
{
	uint64_t v;

	if (!cper_field(b, off, width, valid, name, &v))
		return false;
	cper_emit_hex(b->ctx, name, v, (unsigned)width);
	return true;
}

bool cper_put_uint(const CperBuf *b, const char *name, size_t off, size_t width, bool valid)
{
	uint64_t v;

	if (!cper_field(b, off, width, valid, name, &v))
		return false;
	/* 8-byte counters could exceed json_int_t: those are printed in hex. */
	if (width < 8)
		cper_emit_int(b->ctx, name, (int64_t)v);
	else
		cper_emit_hex(b->ctx, name, v, (unsigned)width);
	return true;
}

void cper_key_suffixed(char *key, size_t size, const char *name, const char *suffix)
{
	size_t n = strnlen(name, size - 1), m = MIN(strlen(suffix), size - 1 - n);

	memcpy(key, name, n);
	memcpy(key + n, suffix, m);
	key[n + m] = '\0';
}

void cper_put_enum_value(CperCtx *c, const char *name, uint64_t v, const char *const *strs,
			 size_t n_strs)
{
	char key[64];

	cper_key_suffixed(key, sizeof(key), name, "_name");
	cper_emit_int(c, name, (int64_t)v);
	cper_emit_string(c, key, v < n_strs && strs[v] ? strs[v] : "unknown");
}

bool cper_put_enum(const CperBuf *b, const char *name, size_t off, size_t width, bool valid,
		   const char *const *strs, size_t n_strs)
{
	uint64_t v;

	if (!cper_field(b, off, width, valid, name, &v))
		return false;
	cper_put_enum_value(b->ctx, name, v, strs, n_strs);
	return true;
}

void cper_put_bits(CperCtx *c, const char *name, uint64_t v, unsigned width,
		   const char *const *strs, size_t n_strs)
{
	char key[64];

	cper_key_suffixed(key, sizeof(key), name, "_names");
	cper_emit_hex(c, name, v, width);
	cper_emit_open_array(c, key);
	for (size_t i = 0; i < n_strs && i < 64; i++)
		if ((v & (UINT64_C(1) << i)) && strs[i])
			cper_emit_string(c, NULL, strs[i]);
	cper_emit_close(c);
}

void cper_put_dump(const CperBuf *b, const char *name, size_t off, size_t n)
{
	_cleanup_free_ char *s = NULL;

	if (off > b->len)
		n = 0;
	else
		n = MIN(n, b->len - off);
	s = malloc(2 * n + 1);
	if (!s) {
		b->ctx->oom = true;
		return;
	}
	hex_bytes(s, b->p + off, n);
	cper_emit_stringn(b->ctx, name, s, 2 * n);
}

bool cper_put_guid(const CperBuf *b, const char *name, size_t off, bool valid)
{
	if (!valid)
		return false;
	if (!cper_buf_has(b, off, 16)) {
		cper_error(b->ctx, b->base + off,
			   "%s: field marked valid lies past the end of the %zu-byte structure",
			   name, b->len);
		return false;
	}
	cper_emit_guid(b->ctx, name, b->p + off);
	return true;
}

bool cper_put_text(const CperBuf *b, const char *name, size_t off, size_t n, bool valid)
{
	char s[257];
	size_t k = 0;

	if (!valid)
		return false;
	if (!cper_buf_has(b, off, n) || n >= sizeof(s)) {
		cper_error(b->ctx, b->base + off,
			   "%s: field marked valid lies past the end of the %zu-byte structure",
			   name, b->len);
		return false;
	}
	/* Firmware pads with NULs or spaces; anything unprintable is shown as '?'. */
	for (size_t i = 0; i < n && b->p[off + i]; i++)
		s[k++] = b->p[off + i] >= 0x20 && b->p[off + i] < 0x7f ? (char)b->p[off + i] : '?';
	while (k > 0 && s[k - 1] == ' ')
		k--;
	s[k] = '\0';
	cper_emit_stringn(b->ctx, name, s, k);
	return true;
}

bool cper_need(const CperBuf *b, size_t n, const char *what)
{
	if (b->len >= n)
		return true;
	cper_error(b->ctx, b->base,
		   "%s: %zu bytes, shorter than the %zu bytes of its fixed part; decoding what is "
		   "present",
		   what, b->len, n);
	return false;
}

bool cper_section_begin(const CperBuf *b, size_t n, const char *what, uint64_t *ret_valid)
{
	cper_need(b, n, what);
	if (!cper_field(b, 0, 8, true, "validation_bits", ret_valid))
		return false;
	cper_emit_hex(b->ctx, "validation_bits", *ret_valid, 8);
	return true;
}

/* Error type, bits 8-15 of the generic error status (UEFI N.2.5, Table N-19). */
static const char *const error_status_type_strs[] = {
	[1] = "Error detected internal to the component",
	[4] = "Storage error in DRAM memory",
	[5] = "Storage error in TLB",
	[6] = "Storage error in cache",
	[7] = "Error in one or more functional units",
	[8] = "Component failed self test",
	[9] = "Overflow or undervalue of internal queue",
	[16] = "Error detected in the bus",
	[17] = "Virtual address not found on IO-TLB or IO-PDIR",
	[18] = "Improper access error",
	[19] = "Access to a memory address which is not mapped to any component",
	[20] = "Loss of Lockstep",
	[21] = "Response not associated with a request",
	[22] = "Bus parity error - must also set the A, C, or D Bits",
	[23] = "Detection of a protocol error",
	[24] = "Detection of a PATH_ERROR",
	[25] = "Bus operation timeout",
	[26] = "A read was issued to data that has been poisoned",
};

void cper_put_error_status(const CperBuf *b, size_t off, bool valid)
{
	static const char *const bits[] = {
		[16] = "address",
		[17] = "control",
		[18] = "data",
		[19] = "detected_by_responder",
		[20] = "detected_by_requester",
		[21] = "first_error",
		[22] = "overflow_not_logged",
	};
	CperCtx *c = b->ctx;
	uint64_t v;

	if (!cper_field(b, off, 8, valid, "error_status", &v))
		return;

	unsigned type = (v >> 8) & 0xff;
	const char *type_name =
		type < ARRAY_SIZE(error_status_type_strs) ? error_status_type_strs[type] : NULL;

	cper_emit_open_object(c, "error_status");
	cper_emit_hex(c, "value", v, 8);
	cper_emit_int(c, "type", type);
	cper_emit_string(c, "type_name", type_name ?: "Reserved");
	cper_emit_open_array(c, "flags");
	for (size_t i = 16; i < ARRAY_SIZE(bits); i++)
		if (v & (UINT64_C(1) << i))
			cper_emit_string(c, NULL, bits[i]);
	cper_emit_close(c);
	cper_emit_close(c);
}
