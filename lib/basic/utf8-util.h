/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/*
 * Returns a NUL-terminated copy of the n bytes at p that is valid UTF-8, for
 * JSON strings made from kernel logs and firmware text: NUL bytes are
 * dropped and every byte that does not start a valid sequence (overlong
 * forms and surrogates included) becomes U+FFFD. *ret_len (optional) gets
 * the length without the NUL. NULL on allocation failure.
 */
char *utf8_sanitize(const void *p, size_t n, size_t *ret_len);
