/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "utf8-util.h"

size_t utf8_sequence_length(const uint8_t *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF are not UTF-8. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool utf8_is_valid(const void *buf, size_t n)
{
	const uint8_t *p = buf;

	for (size_t i = 0, l; i < n; i += l) {
		l = utf8_sequence_length(p + i, n - i);
		if (l == 0)
			return false;
	}
	return true;
}

char *utf8_sanitize(const void *buf, size_t n, size_t *ret_len)
{
	const uint8_t *p = buf;
	char *s;
	size_t k = 0;

	/* Each bad byte becomes three: the replacement character's encoding. */
	if (n > (SIZE_MAX - 1) / 3)
		return NULL;
	s = malloc(3 * n + 1);
	if (!s)
		return NULL;

	for (size_t i = 0; i < n;) {
		size_t l = utf8_sequence_length(p + i, n - i);

		if (l == 0) {
			memcpy(s + k, "\xef\xbf\xbd", 3);
			k += 3;
			i++;
			continue;
		}
		if (p[i] != '\0') {
			memcpy(s + k, p + i, l);
			k += l;
		}
		i += l;
	}
	s[k] = '\0';
	if (ret_len)
		*ret_len = k;
	return s;
}

size_t utf8_control_length(const uint8_t *p, size_t n)
{
	if (n == 0)
		return 0;
	if (p[0] < 0x20 || p[0] == 0x7f)
		return 1;
	if (n >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0)
		return 2;
	return 0;
}

static const char hex_digits[] = "0123456789abcdef";

static char *escape_byte(char *d, uint8_t c)
{
	static const char names[] = {
		['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
		['\v'] = 'v', ['\f'] = 'f', ['\r'] = 'r',
	};

	*d++ = '\\';
	if (c < sizeof(names) && names[c]) {
		*d++ = names[c];
		return d;
	}
	*d++ = 'x';
	*d++ = hex_digits[c >> 4];
	*d++ = hex_digits[c & 0xf];
	return d;
}

/*
 * Escapes the character at p (n > 0 bytes left) to d: at most 6 bytes, for
 * the 2 of a C1 control. Returns the end of what it wrote; *ret_len gets the
 * bytes of p it took.
 */
static char *escape_next(char *d, const uint8_t *p, size_t n, Utf8EscapeFlags flags,
			 size_t *ret_len)
{
	size_t l = utf8_sequence_length(p, n);

	*ret_len = l ?: 1;
	if (l == 0)
		return escape_byte(d, p[0]);
	if ((flags & UTF8_ESCAPE_KEEP_LINES) && (p[0] == '\n' || p[0] == '\t')) {
		*d++ = (char)p[0];
		return d;
	}
	switch (utf8_control_length(p, l)) {
	case 1:
		return escape_byte(d, p[0]);
	case 2:
		/* U+0080 to U+009F: the second byte is the code point. */
		d = mempcpy(d, "\\u00", 4);
		*d++ = hex_digits[p[1] >> 4];
		*d++ = hex_digits[p[1] & 0xf];
		return d;
	default:
		return mempcpy(d, p, l);
	}
}

size_t utf8_escape_to(char *dst, const void *buf, size_t n, Utf8EscapeFlags flags)
{
	const uint8_t *p = buf;
	char *d = dst;

	for (size_t i = 0, l; i < n; i += l)
		d = escape_next(d, p + i, n - i, flags, &l);
	return (size_t)(d - dst);
}

char *utf8_escape(const void *buf, size_t n, Utf8EscapeFlags flags)
{
	char *s;

	if (n > (SIZE_MAX - 1) / UTF8_ESCAPE_MAX)
		return NULL;
	s = malloc(UTF8_ESCAPE_MAX * n + 1);
	if (!s)
		return NULL;
	s[utf8_escape_to(s, buf, n, flags)] = '\0';
	return s;
}

int utf8_escape_fwrite(const void *buf, size_t n, Utf8EscapeFlags flags, FILE *f)
{
	const uint8_t *p = buf;
	char out[4096], *d = out;

	for (size_t i = 0, l; i < n; i += l) {
		/* Room for the longest escape of one character. */
		if (d - out > (ptrdiff_t)sizeof(out) - 8) {
			if (fwrite(out, 1, d - out, f) != (size_t)(d - out))
				return -EIO;
			d = out;
		}
		d = escape_next(d, p + i, n - i, flags, &l);
	}
	if (fwrite(out, 1, d - out, f) != (size_t)(d - out))
		return -EIO;
	return 0;
}
