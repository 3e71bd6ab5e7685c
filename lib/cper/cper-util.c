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
	cper_append(c, messages,
		    json_pack("{s:I,s:s}", "offset", (json_int_t)offset, "message", msg));
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

/* Keys are the decoder's own ASCII literals: no need for jansson to check them. */
void cper_set(CperCtx *c, json_t *o, const char *key, json_t *v)
{
	if (json_object_set_new_nocheck(o, key, v) < 0)
		c->oom = true;
}

void cper_append(CperCtx *c, json_t *a, json_t *v)
{
	if (json_array_append_new(a, v) < 0)
		c->oom = true;
}

static json_t *child(CperCtx *c, json_t *parent, const char *key, json_t *v)
{
	int r;

	if (!v) {
		c->oom = true;
		return NULL;
	}
	/* Borrowed reference, valid as long as parent: the set steals v. */
	r = key ? json_object_set_new_nocheck(parent, key, v) : json_array_append_new(parent, v);
	if (r < 0) {
		c->oom = true;
		return NULL;
	}
	return v;
}

json_t *cper_child_object(CperCtx *c, json_t *parent, const char *key)
{
	return child(c, parent, key, json_object());
}

json_t *cper_child_array(CperCtx *c, json_t *parent, const char *key)
{
	return child(c, parent, key, json_array());
}

static const char hexdigits[] = "0123456789abcdef";

/* snprintf() is the decoder's hottest path otherwise: format by hand. */
json_t *cper_hex_u64(uint64_t v, unsigned width)
{
	char buf[19];
	unsigned n = MIN(width, 8u) * 2;

	buf[0] = '0';
	buf[1] = 'x';
	for (unsigned i = 0; i < n; i++)
		buf[2 + i] = hexdigits[(v >> (4 * (n - 1 - i))) & 0xf];
	return json_stringn_nocheck(buf, 2 + n);
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

json_t *cper_guid_json(const uint8_t *g)
{
	char buf[37];

	cper_guid_format(g, buf);
	return json_stringn_nocheck(buf, 36);
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

bool cper_put_hex(const CperBuf *b, json_t *o, const char *name, size_t off, size_t width,
		  bool valid)
{
	uint64_t v;

	if (!cper_field(b, off, width, valid, name, &v))
		return false;
	cper_set(b->ctx, o, name, cper_hex_u64(v, (unsigned)width));
	return true;
}

bool cper_put_uint(const CperBuf *b, json_t *o, const char *name, size_t off, size_t width,
		   bool valid)
{
	uint64_t v;

	if (!cper_field(b, off, width, valid, name, &v))
		return false;
	/* 8-byte counters could exceed json_int_t: those are printed in hex. */
	cper_set(b->ctx, o, name,
		 width < 8 ? json_integer((json_int_t)v) : cper_hex_u64(v, (unsigned)width));
	return true;
}

void cper_key_suffixed(char *key, size_t size, const char *name, const char *suffix)
{
	size_t n = strnlen(name, size - 1), m = MIN(strlen(suffix), size - 1 - n);

	memcpy(key, name, n);
	memcpy(key + n, suffix, m);
	key[n + m] = '\0';
}

void cper_put_enum_value(CperCtx *c, json_t *o, const char *name, uint64_t v,
			 const char *const *strs, size_t n_strs)
{
	char key[64];

	cper_key_suffixed(key, sizeof(key), name, "_name");
	cper_set(c, o, name, json_integer((json_int_t)v));
	cper_set(c, o, key, json_string(v < n_strs && strs[v] ? strs[v] : "unknown"));
}

bool cper_put_enum(const CperBuf *b, json_t *o, const char *name, size_t off, size_t width,
		   bool valid, const char *const *strs, size_t n_strs)
{
	uint64_t v;

	if (!cper_field(b, off, width, valid, name, &v))
		return false;
	cper_put_enum_value(b->ctx, o, name, v, strs, n_strs);
	return true;
}

void cper_put_bits(CperCtx *c, json_t *o, const char *name, uint64_t v, unsigned width,
		   const char *const *strs, size_t n_strs)
{
	char key[64];
	json_t *names = json_array();

	cper_key_suffixed(key, sizeof(key), name, "_names");
	for (size_t i = 0; i < n_strs && i < 64; i++)
		if ((v & (UINT64_C(1) << i)) && strs[i])
			cper_append(c, names, json_string(strs[i]));
	cper_set(c, o, name, cper_hex_u64(v, width));
	cper_set(c, o, key, names);
}

void cper_put_dump(const CperBuf *b, json_t *o, const char *name, size_t off, size_t n)
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
	cper_set(b->ctx, o, name, json_stringn_nocheck(s, 2 * n));
}

bool cper_put_guid(const CperBuf *b, json_t *o, const char *name, size_t off, bool valid)
{
	if (!valid)
		return false;
	if (!cper_buf_has(b, off, 16)) {
		cper_error(b->ctx, b->base + off,
			   "%s: field marked valid lies past the end of the %zu-byte structure",
			   name, b->len);
		return false;
	}
	cper_set(b->ctx, o, name, cper_guid_json(b->p + off));
	return true;
}

bool cper_put_text(const CperBuf *b, json_t *o, const char *name, size_t off, size_t n, bool valid)
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
	cper_set(b->ctx, o, name, json_string(s));
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

bool cper_section_begin(const CperBuf *b, json_t *o, size_t n, const char *what,
			uint64_t *ret_valid)
{
	cper_need(b, n, what);
	if (!cper_field(b, 0, 8, true, "validation_bits", ret_valid))
		return false;
	cper_set(b->ctx, o, "validation_bits", cper_hex_u64(*ret_valid, 8));
	return true;
}

void cper_put_error_status(const CperBuf *b, json_t *o, size_t off, bool valid)
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
	uint64_t v;

	if (!cper_field(b, off, 8, valid, "error_status", &v))
		return;

	const char *type;
	switch ((v >> 8) & 0xff) {
	case 1:
		type = "Error detected internal to the component";
		break;
	case 4:
		type = "Storage error in DRAM memory";
		break;
	case 5:
		type = "Storage error in TLB";
		break;
	case 6:
		type = "Storage error in cache";
		break;
	case 7:
		type = "Error in one or more functional units";
		break;
	case 8:
		type = "Component failed self test";
		break;
	case 9:
		type = "Overflow or undervalue of internal queue";
		break;
	case 16:
		type = "Error detected in the bus";
		break;
	case 17:
		type = "Virtual address not found on IO-TLB or IO-PDIR";
		break;
	case 18:
		type = "Improper access error";
		break;
	case 19:
		type = "Access to a memory address which is not mapped to any component";
		break;
	case 20:
		type = "Loss of Lockstep";
		break;
	case 21:
		type = "Response not associated with a request";
		break;
	case 22:
		type = "Bus parity error - must also set the A, C, or D Bits";
		break;
	case 23:
		type = "Detection of a protocol error";
		break;
	case 24:
		type = "Detection of a PATH_ERROR";
		break;
	case 25:
		type = "Bus operation timeout";
		break;
	case 26:
		type = "A read was issued to data that has been poisoned";
		break;
	default:
		type = "Reserved";
		break;
	}

	json_t *st = cper_child_object(b->ctx, o, "error_status");
	if (!st)
		return;
	cper_set(b->ctx, st, "value", cper_hex_u64(v, 8));
	cper_set(b->ctx, st, "type", json_integer((json_int_t)((v >> 8) & 0xff)));
	cper_set(b->ctx, st, "type_name", json_string(type));
	json_t *names = json_array();
	for (size_t i = 16; i < ARRAY_SIZE(bits); i++)
		if (v & (UINT64_C(1) << i))
			cper_append(b->ctx, names, json_string(bits[i]));
	cper_set(b->ctx, st, "flags", names);
}
