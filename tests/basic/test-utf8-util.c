// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "utf8-util.h"

static void check(const char *in, size_t n, const char *want)
{
	size_t len = 0;
	_cleanup_free_ char *s = utf8_sanitize(in, n, &len);

	cr_assert_not_null(s);
	cr_assert_eq(len, strlen(want));
	cr_assert_str_eq(s, want);
}

Test(utf8, valid_text_is_kept)
{
	check("Kernel panic - not syncing", 26, "Kernel panic - not syncing");
	check("µs ü €", 10, "µs ü €");
	check("\xf0\x9f\x90\xa7", 4, "\xf0\x9f\x90\xa7");
	check("", 0, "");
}

Test(utf8, bad_bytes_become_replacement_characters)
{
	check("a\xffz", 3, "a\xef\xbf\xbdz");
	/* A lead byte without its continuation, then an overlong '/', then a surrogate. */
	check("\xc3(", 2, "\xef\xbf\xbd(");
	check("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd");
	check("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* Cut off at the end of the buffer. */
	check("ok\xe2\x82", 4, "ok\xef\xbf\xbd\xef\xbf\xbd");
}

Test(utf8, nul_bytes_are_dropped)
{
	check("a\0b\0", 4, "ab");
}

Test(utf8, sequence_length)
{
	cr_assert_eq(utf8_sequence_length((const uint8_t *)"a", 1), 1);
	cr_assert_eq(utf8_sequence_length((const uint8_t *)"\xc3\xbc", 2), 2);
	cr_assert_eq(utf8_sequence_length((const uint8_t *)"\xe2\x82\xac", 3), 3);
	cr_assert_eq(utf8_sequence_length((const uint8_t *)"\xf4\x90\x80\x80", 4), 0);
	cr_assert_eq(utf8_sequence_length((const uint8_t *)"", 0), 0);
}
