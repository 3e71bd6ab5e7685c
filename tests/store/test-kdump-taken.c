// SPDX-License-Identifier: GPL-2.0-or-later
/* lib/store/kdump-taken.c: the record of the kdump dumps taken, written and read back. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "store/kdump-taken.h"

#define ID1 "6d0e6b3e-1c55-5b4e-9a0d-0f3b4c2a1e11"
#define ID2 "6d0e6b3e-1c55-5b4e-9a0d-0f3b4c2a1e22"

static const KdumpTakenEntry one = {1, 2, 3, 1765000000123456, ID1, "202612072201"};
static const KdumpTakenEntry two = {18446744073709551615ULL, 0, 5, 6, ID2, "host-202612072202"};

static char *format(const KdumpTakenEntry *e, size_t n, size_t *len)
{
	KdumpTaken t = {.entries = (KdumpTakenEntry *)e, .n = n};
	char *text = NULL;

	cr_assert_eq(kdump_taken_format(&t, &text, len), 0);
	return text;
}

Test(kdump_taken, format_exact)
{
	KdumpTakenEntry both[] = {one, two};
	_cleanup_free_ char *text = NULL;
	size_t len;

	text = format(both, 2, &len);
	/* The CRCs are zlib's crc32() of the line before its last tab (python3 zlib.crc32). */
	cr_assert_str_eq(text,
			 "1\t2\t3\t1765000000123456\t" ID1 "\t202612072201\t8e694da6\n"
			 "18446744073709551615\t0\t5\t6\t" ID2 "\thost-202612072202\tc7c4e5c3\n");
	cr_assert_eq(len, strlen(text));
}

Test(kdump_taken, round_trip)
{
	KdumpTakenEntry both[] = {one, two};
	_cleanup_free_ char *text = NULL;
	KdumpTaken t = {};
	size_t len;

	text = format(both, 2, &len);
	cr_assert_eq(kdump_taken_parse(text, len, &t), 0);
	cr_assert_eq(t.n, 2);
	cr_assert_eq(t.n_bad, 0);
	cr_assert_eq(memcmp(t.entries, both, sizeof(both)), 0);
	cr_assert_eq(kdump_taken_find(&t, 1, 2, 3, 1765000000123456), &t.entries[0]);
	/* the same directory and dmesg inode, but another capture */
	cr_assert_null(kdump_taken_find(&t, 1, 2, 3, 1765000000123457));
	kdump_taken_done(&t);
}

/* Each bad line is dropped, and counted; the others stay. */
Test(kdump_taken, bad_lines)
{
	KdumpTakenEntry both[] = {one, two};
	_cleanup_free_ char *good = NULL;
	static const char *const bad[] = {
		"",
		"\n",
		"1\t2\t3\t4\t" ID1 "\tname\t00000000\n", /* CRC does not match */
		"1\t2\t3\t4\t" ID1 "\tname\n",		 /* no CRC */
		"-1\t2\t3\t4\t" ID1 "\tname\t",		 /* torn: no newline */
	};
	size_t len;

	good = format(both, 2, &len);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_free_ char *text = NULL;
		KdumpTaken t = {};

		cr_assert_gt(asprintf(&text, "%.*s%s%s", (int)(strchr(good, '\n') + 1 - good), good,
				      bad[i], strchr(good, '\n') + 1),
			     0);
		cr_assert_eq(kdump_taken_parse(text, strlen(text), &t), 0);
		/* a line without its newline swallows the next one */
		cr_assert_eq(t.n, bad[i][0] && !strchr(bad[i], '\n') ? 1 : 2, "case %zu", i);
		cr_assert_eq(t.n_bad, bad[i][0] ? 1 : 0, "case %zu", i);
		kdump_taken_done(&t);
	}
}

/* Fields that the CRC covers but that are not what a writer writes. */
Test(kdump_taken, bad_fields_with_right_crc)
{
	static const KdumpTakenEntry not_ids = {1,  2, 3, 4, "not-a-crash-id-of-36-characters-xxxx",
						"d"};
	KdumpTakenEntry tab = one;
	char *text = NULL;
	size_t len;

	memcpy(tab.name, "a\tb", 4);
	cr_assert_eq(kdump_taken_format(&(KdumpTaken){.entries = &tab, .n = 1}, &text, &len),
		     -EINVAL);
	cr_assert_eq(
		kdump_taken_format(&(KdumpTaken){.entries = (KdumpTakenEntry *)&not_ids, .n = 1},
				   &text, &len),
		-EINVAL);
	cr_assert_null(text);
}
