// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for utf8_escape(): any bytes, with and without
 * UTF8_ESCAPE_KEEP_LINES. The result must be valid UTF-8 without a control
 * character (but the newlines and tabs kept), at most UTF8_ESCAPE_MAX times
 * the input, and the same from every form. Built with ./configure
 * --enable-fuzzing CC=clang; seeds: any text, tests/analyse/cases/\*\/dmesg.txt.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, Utf8EscapeFlags flags)
{
	char *s = utf8_escape(data, size, flags), *w = NULL;
	size_t len, wlen = 0;
	FILE *f;

	if (!s)
		abort();
	len = strlen(s);
	if (len > UTF8_ESCAPE_MAX * size)
		abort();
	for (size_t i = 0, l; i < len; i += l) {
		l = utf8_sequence_length((const uint8_t *)s + i, len - i);
		if (l == 0)
			abort();
		if (utf8_control_length((const uint8_t *)s + i, l) > 0 &&
		    !((flags & UTF8_ESCAPE_KEEP_LINES) && (s[i] == '\n' || s[i] == '\t')))
			abort();
	}

	f = open_memstream(&w, &wlen);
	if (!f || utf8_escape_fwrite(data, size, flags, f) < 0 || fclose(f) != 0)
		abort();
	if (wlen != len || memcmp(w, s, len) != 0)
		abort();
	free(w);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, 0);
	check(data, size, UTF8_ESCAPE_KEEP_LINES);
	return 0;
}
