/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Internals shared by the record walker and the section decoders.
 *
 * Every binary field is read through a CperBuf: a window onto the input
 * that knows its absolute offset (for error messages) and its length (for
 * bounds checks). A field that does not fit is never read; if its
 * validation bit claims it, an error with the field's byte offset is
 * reported and the field is left out of the output.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cper.h"
#include "json-writer.h"
#include "macro.h"

/* Objects and arrays nest this deep at most in a decoded record. */
#define CPER_MAX_DEPTH 16

/*
 * Where decoded values go: a jansson tree (tree[0..depth), the open containers, innermost
 * last) or, when text is set, JSON text. The decoders write every value into the innermost
 * open container through the cper_emit_*() calls, in the order of the schema, so both give
 * the same JSON.
 */
typedef struct CperCtx {
	json_t *errors; /* array of {"offset": N, "message": "..."}: what could not be decoded */
	json_t *notes;	/* the same form: what was decoded but is unusual */
	bool oom;	/* an allocation failed somewhere: the result is incomplete */
	size_t budget;	/* bytes left to decode (see cper_decode_json_budget()) */
	bool spent;	/* the budget stopped decoding somewhere */
	JsonWriter *text;
	json_t *tree[CPER_MAX_DEPTH];
	unsigned depth;
} CperCtx;

typedef struct CperBuf {
	const uint8_t *p;
	size_t len;
	size_t base; /* absolute offset of p[0] in the caller's buffer */
	CperCtx *ctx;
} CperBuf;

static inline uint16_t cper_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t cper_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t cper_le64(const uint8_t *p)
{
	return (uint64_t)cper_le32(p) | (uint64_t)cper_le32(p + 4) << 32;
}

/* Reads n (1, 2, 3, 4 or 8) little-endian bytes. */
uint64_t cper_le(const uint8_t *p, size_t n);

static inline bool cper_buf_has(const CperBuf *b, size_t off, size_t n)
{
	return off <= b->len && n <= b->len - off;
}

/* A sub-window; the caller checked that it lies inside b. */
static inline CperBuf cper_buf_sub(const CperBuf *b, size_t off, size_t n)
{
	return (CperBuf){.p = b->p + off, .len = n, .base = b->base + off, .ctx = b->ctx};
}

void cper_error(CperCtx *c, size_t offset, const char *fmt, ...) _printf_(3, 4);
void cper_note(CperCtx *c, size_t offset, const char *fmt, ...) _printf_(3, 4);

/*
 * Output. Each call writes one value under key into the innermost open container (key is
 * NULL inside arrays); allocation failures are recorded in c->oom.
 */
void cper_emit_open_object(CperCtx *c, const char *key);
void cper_emit_open_array(CperCtx *c, const char *key);
/* Closes the innermost container; cper_emit_close_to() closes all above depth. */
void cper_emit_close(CperCtx *c);
void cper_emit_close_to(CperCtx *c, unsigned depth);
void cper_emit_int(CperCtx *c, const char *key, int64_t v);
void cper_emit_bool(CperCtx *c, const char *key, bool v);
void cper_emit_string(CperCtx *c, const char *key, const char *s);
/* s must be valid UTF-8 (the decoders' own text is). */
void cper_emit_stringn(CperCtx *c, const char *key, const char *s, size_t n);
/* "0x" and 2*width hex digits */
void cper_emit_hex(CperCtx *c, const char *key, uint64_t v, unsigned width);
void cper_emit_guid(CperCtx *c, const char *key, const uint8_t *g);
/* An array of {"offset": N, "message": "..."} as cper_error() collects them. */
void cper_emit_messages(CperCtx *c, const char *key, const json_t *messages);

/* name + suffix into key, truncated to fit: cheaper than snprintf() on hot paths. */
void cper_key_suffixed(char *key, size_t size, const char *name, const char *suffix);
void cper_guid_format(const uint8_t *g, char buf[static 37]);

/*
 * Field readers. Each reads a little-endian field of the given width at
 * off inside b when valid is true. A valid field past the end of b is an
 * error ("section too short"); an invalid one is silently absent.
 * Returns true when the value was read into *ret.
 */
bool cper_field(const CperBuf *b, size_t off, size_t width, bool valid, const char *name,
		uint64_t *ret);
/* "name": 0x... (hex string of 2*width digits) */
bool cper_put_hex(const CperBuf *b, const char *name, size_t off, size_t width, bool valid);
/* "name": N (integer) */
bool cper_put_uint(const CperBuf *b, const char *name, size_t off, size_t width, bool valid);
/* "name": N and "name_name": strs[N] (or "unknown") */
bool cper_put_enum(const CperBuf *b, const char *name, size_t off, size_t width, bool valid,
		   const char *const *strs, size_t n_strs);
/* Value-based variants for bit fields extracted by the caller. */
void cper_put_enum_value(CperCtx *c, const char *name, uint64_t v, const char *const *strs,
			 size_t n_strs);
/* "name": v (hex), "name_names": [strs[i] for each set bit i] */
void cper_put_bits(CperCtx *c, const char *name, uint64_t v, unsigned width,
		   const char *const *strs, size_t n_strs);
/* "name": "hex bytes" of [off, off+n) clipped to b; "_dump" keys print as hex dumps. */
void cper_put_dump(const CperBuf *b, const char *name, size_t off, size_t n);
/* "name": GUID string */
bool cper_put_guid(const CperBuf *b, const char *name, size_t off, bool valid);
/* "name": printable ASCII of a fixed-size, possibly unterminated text field */
bool cper_put_text(const CperBuf *b, const char *name, size_t off, size_t n, bool valid);

/* Reports a section shorter than the fixed part its type needs. */
bool cper_need(const CperBuf *b, size_t n, const char *what);

/*
 * The start of most sections: checks the fixed size n with cper_need(), reads the 64-bit
 * validation bits at offset 0 into *ret_valid and prints them. False when the section is too
 * short to hold even those.
 */
bool cper_section_begin(const CperBuf *b, size_t n, const char *what, uint64_t *ret_valid);

/* The generic error status field (UEFI N.2.5 Table N-19), used by several sections. */
void cper_put_error_status(const CperBuf *b, size_t off, bool valid);

/*
 * Section decoders: write the body from b (the section's bytes) into the open body object.
 * They may return with containers of their own still open: the caller closes them.
 */
typedef void (*CperSectionDecoder)(const CperBuf *b);

typedef struct CperSectionType {
	uint8_t guid[16];
	const char *name; /* the kernel's wording where it has one */
	CperSectionDecoder decode;
} CperSectionType;

const CperSectionType *cper_section_type_find(const uint8_t *guid);
const char *cper_guid_name(const uint8_t *guid); /* creator, notification type */

void cper_decode_proc_generic(const CperBuf *b);
void cper_decode_proc_ia(const CperBuf *b);
void cper_decode_proc_arm(const CperBuf *b);
void cper_decode_mce(const CperBuf *b);

/* Builds a GUID's 16 bytes in the EFI mixed-endian layout. */
#define CPER_GUID(d1, d2, d3, b0, b1, b2, b3, b4, b5, b6, b7)                                      \
	{                                                                                          \
		(d1) & 0xff, ((d1) >> 8) & 0xff, ((d1) >> 16) & 0xff, ((d1) >> 24) & 0xff,         \
			(d2)&0xff, ((d2) >> 8) & 0xff, (d3)&0xff, ((d3) >> 8) & 0xff, (b0), (b1),  \
			(b2), (b3), (b4), (b5), (b6), (b7)                                         \
	}
