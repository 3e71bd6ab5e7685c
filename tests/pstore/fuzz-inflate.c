// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the inflation of compressed records (zlib-wrapped or
 * raw deflate, zlib-util.h): every input is an .enc.z record inflated by
 * pstore_record_inflate() into at most INFLATE_MAX bytes. A success must
 * respect the limit and NUL-terminate, and its output, deflated again, must
 * inflate to the same bytes. Built with ./configure --enable-fuzzing
 * CC=clang; seeds: tests/lib/fuzz-seeds.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pstore/pstore.h"
#include "zlib-util.h"

/* Small enough for many runs per second, large enough for a bomb to hit it. */
#define INFLATE_MAX (1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *out = NULL, *again = NULL;
	_cleanup_free_ uint8_t *z = NULL;
	size_t out_len = 0, again_len = 0;
	ssize_t z_len;
	int r;

	r = pstore_record_inflate((const char *)data, size, INFLATE_MAX, &out, &out_len);
	if (r < 0) {
		if (out || out_len || (r != -EBADMSG && r != -EFBIG && r != -ENOMEM))
			abort();
		return 0;
	}
	if (out_len > INFLATE_MAX || out[out_len] != 0)
		abort();

	z = malloc(compressBound(out_len));
	if (!z)
		abort();
	z_len = zlib_deflate_buffer(out, out_len, -15, z, compressBound(out_len));
	if (z_len < 0 ||
	    pstore_record_inflate((const char *)z, (size_t)z_len, INFLATE_MAX, &again, &again_len) <
		    0 ||
	    again_len != out_len || memcmp(again, out, out_len) != 0)
		abort();
	return 0;
}
