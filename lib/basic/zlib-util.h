/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/*
 * Inflates a whole compressed buffer into a newly allocated one.
 *
 * Accepts a zlib-wrapped stream (RFC 1950) and a raw deflate stream
 * (RFC 1951): the kernel's "deflate" pstore compressor, which writes
 * pstore's .enc.z files and ERST compressed-dmesg sections, emits raw
 * deflate (windowBits -15). The zlib header is tried first, then raw.
 *
 * The output is NUL-terminated (not counted in *ret_len) so that text can be
 * used as a string. Returns 0, -EBADMSG on corrupt or truncated data,
 * -EFBIG when the output would exceed max_out bytes, -ENOMEM. *ret and
 * *ret_len are untouched on failure.
 */
int zlib_inflate_buffer(const void *in, size_t in_len, size_t max_out, void **ret, size_t *ret_len);

/*
 * The same, but a stream that inflates to more than max_out bytes is not an
 * error: returns 1 and its first max_out bytes (a budget that keeps what
 * fits), 0 when the whole stream fit. Corruption after the first max_out
 * bytes goes unseen.
 */
int zlib_inflate_buffer_head(const void *in, size_t in_len, size_t max_out, void **ret,
			     size_t *ret_len);

/*
 * Deflates in_len bytes into out (cap bytes) in one pass, with windowBits as
 * for deflateInit2(): 15 for a zlib-wrapped stream, -15 for raw deflate as the
 * kernel writes it. Returns the compressed length, -ENOBUFS when cap is too
 * small, -EFBIG when a length does not fit zlib's, -EINVAL on a bad
 * windowBits, -ENOMEM. For making compressed records (fixtures,
 * benchmarks); pstored itself only inflates.
 */
ssize_t zlib_deflate_buffer(const void *in, size_t in_len, int window_bits, void *out, size_t cap);
