/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

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
