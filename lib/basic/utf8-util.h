/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Kernel logs are bytes, JSON strings are UTF-8: the bridge between the two.
 */

#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0 if it is not one. */
size_t utf8_sequence_length(const uint8_t *p, size_t n);

/*
 * Copies n bytes of text, with every byte that is not part of valid UTF-8
 * replaced by U+FFFD and NUL bytes dropped, NUL-terminated. Returns NULL when
 * out of memory; *ret_len (if not NULL) gets the length.
 */
char *utf8_sanitize(const void *buf, size_t n, size_t *ret_len);
