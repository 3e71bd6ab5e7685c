/* SPDX-License-Identifier: LGPL-2.1-or-later */

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
