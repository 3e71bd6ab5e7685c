/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Kernel logs are bytes, JSON strings are UTF-8: the bridge between the two.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0 if it is not one. */
size_t utf8_sequence_length(const uint8_t *p, size_t n);

/* True if all n bytes are valid UTF-8. */
bool utf8_is_valid(const void *buf, size_t n);

/*
 * Copies n bytes of text, with every byte that is not part of valid UTF-8
 * replaced by U+FFFD and NUL bytes dropped, NUL-terminated. Returns NULL when
 * out of memory; *ret_len (if not NULL) gets the length.
 */
char *utf8_sanitize(const void *buf, size_t n, size_t *ret_len);

/*
 * Length of the control character at p (at most n bytes): 1 for C0 (NUL
 * included) and DEL, 2 for C1 (U+0080 to U+009F, "\xc2\x80" to "\xc2\x9f");
 * 0 for anything else. A terminal acts on all of them: C1 holds CSI (U+009B),
 * the one-character ESC [.
 */
size_t utf8_control_length(const uint8_t *p, size_t n);

typedef enum Utf8EscapeFlags {
	UTF8_ESCAPE_KEEP_LINES = 1 << 0, /* '\n' and '\t' pass as they are: the lines of a log */
} Utf8EscapeFlags;

/* The most bytes utf8_escape_to() makes of one byte of text: "\xff". */
#define UTF8_ESCAPE_MAX 4

/*
 * Text from outside (record names, kernel logs, the store) for a terminal or
 * a log line, as systemd's utf8_escape_non_printable() shows it: valid,
 * printable UTF-8 is kept, everything else escaped in ASCII:
 *  - C0 controls and DEL: \a \b \t \n \v \f \r by name, the others as \x1b;
 *  - C1 controls: \u0085, \u009b;
 *  - each byte that is not part of valid UTF-8 (overlong forms, surrogates,
 *    lone continuation bytes, a sequence cut off at the end): \xff.
 * A backslash is kept as it is (ACPI paths in kernel logs read \_SB.PCI0):
 * the result is for reading, not to be unescaped.
 *
 * utf8_escape_to() writes at most UTF8_ESCAPE_MAX * n bytes to dst, without a
 * NUL, and returns how many it wrote.
 */
size_t utf8_escape_to(char *dst, const void *buf, size_t n, Utf8EscapeFlags flags);

/* The same as a NUL-terminated string; NULL when out of memory. */
char *utf8_escape(const void *buf, size_t n, Utf8EscapeFlags flags);

/* The same written to f, in pieces; 0, or -EIO if f failed. */
int utf8_escape_fwrite(const void *buf, size_t n, Utf8EscapeFlags flags, FILE *f);

static inline int utf8_escape_fputs(const char *s, FILE *f)
{
	return utf8_escape_fwrite(s, strlen(s), 0, f);
}
