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

Test(utf8, is_valid)
{
	cr_assert(utf8_is_valid("", 0));
	cr_assert(utf8_is_valid("dmesg-erst-1 \xc3\xbc\xe2\x82\xac", 19));
	cr_assert_not(utf8_is_valid("dmesg-erst-\xff", 12));
	cr_assert_not(utf8_is_valid("\xc0\xaf", 2), "overlong");
	cr_assert_not(utf8_is_valid("\xed\xa0\x80", 3), "surrogate");
	cr_assert_not(utf8_is_valid("a\xe2\x82", 3), "cut off at the end");
}

/* A string literal and its length, NULs inside included. */
#define TEXT(s) s, sizeof(s) - 1

static void check_escape(const char *in, size_t n, Utf8EscapeFlags flags, const char *want)
{
	_cleanup_free_ char *s = utf8_escape(in, n, flags);
	_cleanup_free_ char *w = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&w, &size);

	cr_assert_not_null(s);
	cr_assert_str_eq(s, want);
	cr_assert_leq(strlen(s), UTF8_ESCAPE_MAX * n);

	/* The stream form writes the same. */
	cr_assert_not_null(f);
	cr_assert_eq(utf8_escape_fwrite(in, n, flags, f), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(size, strlen(want));
	cr_assert_arr_eq(w, want, size);
}

Test(utf8_escape, printable_text_is_kept)
{
	check_escape(TEXT(""), 0, "");
	check_escape(TEXT("Kernel panic - not syncing"), 0, "Kernel panic - not syncing");
	check_escape(TEXT("µs ü € \xf0\x9f\x90\xa7"), 0, "µs ü € \xf0\x9f\x90\xa7");
	/* U+00A0, the first code point after C1, is no control. */
	check_escape(TEXT("\xc2\xa0"), 0, "\xc2\xa0");
	/* A backslash stays: ACPI paths. */
	check_escape(TEXT("ACPI: \\_SB.PCI0"), 0, "ACPI: \\_SB.PCI0");
}

Test(utf8_escape, c0_and_del)
{
	check_escape(TEXT("\x1b[2J\x1b]0;owned\a"), 0, "\\x1b[2J\\x1b]0;owned\\a");
	check_escape(TEXT("a\nb\tc\rd\b\v\f"), 0, "a\\nb\\tc\\rd\\b\\v\\f");
	check_escape(TEXT("\x01\x1f\x7f"), 0, "\\x01\\x1f\\x7f");
	check_escape(TEXT("a\0b"), 0, "a\\x00b");
}

Test(utf8_escape, keep_lines_keeps_only_newline_and_tab)
{
	check_escape(TEXT("line 1\n\tline 2\r\n\x1b[31mred\n"), UTF8_ESCAPE_KEEP_LINES,
		     "line 1\n\tline 2\\r\n\\x1b[31mred\n");
}

Test(utf8_escape, c1_controls)
{
	/* CSI (U+009B) ? 25 l hides the cursor of a terminal that takes C1 in UTF-8. */
	check_escape(TEXT("\xc2\x9b?25l"), 0, "\\u009b?25l");
	check_escape(TEXT("\xc2\x80\xc2\x85\xc2\x9f"), 0, "\\u0080\\u0085\\u009f");
	/* The same bytes alone are no UTF-8: shown as bytes. */
	check_escape(TEXT("\x9b?25l"), 0, "\\x9b?25l");
}

Test(utf8_escape, invalid_utf8_is_shown_byte_by_byte)
{
	/* Lone continuation bytes, a lead byte without its continuation. */
	check_escape(TEXT("\x80\xbf"), 0, "\\x80\\xbf");
	check_escape(TEXT("\xc3("), 0, "\\xc3(");
	/* Overlong '/' and overlong ESC, a surrogate, past U+10FFFF, bytes never in UTF-8. */
	check_escape(TEXT("\xc0\xaf"), 0, "\\xc0\\xaf");
	check_escape(TEXT("\xc0\x9b"), 0, "\\xc0\\x9b");
	check_escape(TEXT("\xe0\x80\x9b"), 0, "\\xe0\\x80\\x9b");
	check_escape(TEXT("\xed\xa0\x80"), 0, "\\xed\\xa0\\x80");
	check_escape(TEXT("\xf4\x90\x80\x80"), 0, "\\xf4\\x90\\x80\\x80");
	check_escape(TEXT("\xfe\xff"), UTF8_ESCAPE_KEEP_LINES, "\\xfe\\xff");
	/* Sequences cut off at the end of the buffer. */
	check_escape(TEXT("ok\xe2\x82"), 0, "ok\\xe2\\x82");
	check_escape(TEXT("ok\xf0\x9f\x90"), 0, "ok\\xf0\\x9f\\x90");
	check_escape(TEXT("ok\xc2"), 0, "ok\\xc2");
}

Test(utf8_escape, stream_crosses_its_buffer)
{
	/* Far more than the stream's 4 KiB buffer, escapes on every boundary. */
	size_t n = 3 * 8192;
	_cleanup_free_ char *in = malloc(n), *want = malloc(4 * n + 1);
	char *w = want;

	cr_assert_not_null(in);
	cr_assert_not_null(want);
	for (size_t i = 0; i < n; i += 3) {
		memcpy(in + i, "\xc2\x9b\x1b", 3);
		w = stpcpy(w, "\\u009b\\x1b");
	}
	check_escape(in, n, 0, want);
}

Test(utf8, control_length)
{
	cr_assert_eq(utf8_control_length((const uint8_t *)"\x1b[", 2), 1);
	cr_assert_eq(utf8_control_length((const uint8_t *)"\x7f", 1), 1);
	cr_assert_eq(utf8_control_length((const uint8_t *)"\0", 1), 1);
	cr_assert_eq(utf8_control_length((const uint8_t *)"\xc2\x9b", 2), 2);
	cr_assert_eq(utf8_control_length((const uint8_t *)"\xc2\x9b", 1), 0);
	cr_assert_eq(utf8_control_length((const uint8_t *)"\xc2\xa0", 2), 0);
	cr_assert_eq(utf8_control_length((const uint8_t *)"a", 1), 0);
	cr_assert_eq(utf8_control_length((const uint8_t *)"", 0), 0);
}
