// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "macro.h"
#include "zlib-util.h"

/* Grows the output buffer geometrically, to max_out + 2 bytes at the most. */
static int inflate_grow(unsigned char **out, size_t *cap, size_t max_out)
{
	size_t ncap = *cap - 2 >= max_out / 2 ? max_out + 2 : *cap * 2;
	unsigned char *n = realloc(*out, ncap);

	if (!n)
		return -ENOMEM;
	*out = n;
	*cap = ncap;
	return 0;
}

/*
 * Inflates into the room left in out (keeping a byte for the NUL). Returns 1
 * at the end of the stream, 0 when it wants more room, -EBADMSG for a
 * corrupt stream or one that ends early, -ENOMEM.
 */
static int inflate_step(z_stream *zs, unsigned char *out, size_t cap, size_t *len)
{
	size_t room = MIN(cap - 1 - *len, (size_t)UINT_MAX);
	int z;

	zs->next_out = out + *len;
	zs->avail_out = (unsigned)room;
	z = inflate(zs, Z_NO_FLUSH);
	*len += room - zs->avail_out;
	if (z == Z_STREAM_END)
		return 1;
	if (z == Z_MEM_ERROR)
		return -ENOMEM;
	if (z != Z_OK && z != Z_BUF_ERROR)
		return -EBADMSG;
	/* Output room left but no input: the stream was cut short. */
	if (zs->avail_out > 0 && zs->avail_in == 0)
		return -EBADMSG;
	return 0;
}

/*
 * One inflate pass with the given windowBits (15: zlib header, -15: raw).
 * The output buffer grows geometrically up to max_out + 1 bytes of data plus
 * the NUL: the one byte over the limit tells "more output" (-EFBIG, or with
 * head 1 and the first max_out bytes) from "the stream ends exactly at
 * max_out" and from "the input ends early" (-EBADMSG).
 */
static int inflate_with(const void *in, size_t in_len, size_t max_out, int window_bits, bool head,
			void **ret, size_t *ret_len)
{
	_cleanup_free_ unsigned char *out = NULL;
	size_t cap, len = 0;
	z_stream zs = {};
	int r;

	if (in_len > UINT_MAX)
		return -EFBIG;
	max_out = MIN(max_out, SIZE_MAX - 2);

	cap = MIN(MAX(in_len * 4, (size_t)4096), max_out) + 2;
	out = malloc(cap);
	if (!out || inflateInit2(&zs, window_bits) != Z_OK)
		return -ENOMEM;

	zs.next_in = (unsigned char *)in;
	zs.avail_in = (unsigned)in_len;
	do {
		r = len + 1 == cap ? inflate_grow(&out, &cap, max_out) : 0;
		if (r >= 0)
			r = inflate_step(&zs, out, cap, &len);
	} while (r == 0 && len <= max_out);
	inflateEnd(&zs);
	if (r < 0)
		return r;

	/* Past max_out, at the end of the stream or not: more output than wanted. */
	if (len > max_out) {
		if (!head)
			return -EFBIG;
		r = 1;
		len = max_out;
	} else
		r = 0;
	out[len] = '\0';
	*ret = TAKE_PTR(out);
	*ret_len = len;
	return r;
}

static int inflate_buffer(const void *in, size_t in_len, size_t max_out, bool head, void **ret,
			  size_t *ret_len)
{
	int r;

	if (!in && in_len > 0)
		return -EINVAL;

	r = inflate_with(in, in_len, max_out, 15, head, ret, ret_len);
	if (r != -EBADMSG)
		return r;
	return inflate_with(in, in_len, max_out, -15, head, ret, ret_len);
}

int zlib_inflate_buffer(const void *in, size_t in_len, size_t max_out, void **ret, size_t *ret_len)
{
	return inflate_buffer(in, in_len, max_out, false, ret, ret_len);
}

int zlib_inflate_buffer_head(const void *in, size_t in_len, size_t max_out, void **ret,
			     size_t *ret_len)
{
	return inflate_buffer(in, in_len, max_out, true, ret, ret_len);
}

ssize_t zlib_deflate_buffer(const void *in, size_t in_len, int window_bits, void *out, size_t cap)
{
	z_stream zs = {};
	int z;

	if (in_len > UINT_MAX || cap > UINT_MAX || cap > SSIZE_MAX)
		return -EFBIG;
	z = deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
	if (z != Z_OK)
		return z == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (unsigned)in_len;
	zs.next_out = out;
	zs.avail_out = (unsigned)cap;
	z = deflate(&zs, Z_FINISH);
	deflateEnd(&zs);
	if (z != Z_STREAM_END)
		return -ENOBUFS;
	return (ssize_t)(cap - zs.avail_out);
}
