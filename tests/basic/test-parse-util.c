// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>

#include "macro.h"
#include "parse-util.h"

Test(parse_util, boolean)
{
	static const char *const yes[] = {"1", "yes", "YES", "y", "true", "True", "t", "on", "ON"};
	static const char *const no[] = {"0", "no", "No", "n", "false", "FALSE", "f", "off"};
	static const char *const bad[] = {"", "2", "yess", "enable", " yes", "yes ", "-1", "o"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		bool b = false;
		cr_assert_eq(parse_boolean(yes[i], &b), 0, "%s", yes[i]);
		cr_assert(b, "%s", yes[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		bool b = true;
		cr_assert_eq(parse_boolean(no[i], &b), 0, "%s", no[i]);
		cr_assert(!b, "%s", no[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		bool b = true;
		cr_assert_eq(parse_boolean(bad[i], &b), -EINVAL, "'%s'", bad[i]);
		cr_assert(b, "changed on failure");
	}
}

Test(parse_util, uint64)
{
	uint64_t v = 7;

	cr_assert_eq(parse_uint64("0", &v), 0);
	cr_assert_eq(v, 0);
	cr_assert_eq(parse_uint64("18446744073709551615", &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	v = 7;
	cr_assert_eq(parse_uint64("18446744073709551616", &v), -ERANGE);
	cr_assert_eq(parse_uint64("", &v), -EINVAL);
	cr_assert_eq(parse_uint64("-1", &v), -EINVAL);
	cr_assert_eq(parse_uint64("+1", &v), -EINVAL);
	cr_assert_eq(parse_uint64("1 ", &v), -EINVAL);
	cr_assert_eq(parse_uint64("1K", &v), -EINVAL);
	cr_assert_eq(parse_uint64("0x10", &v), -EINVAL);
	cr_assert_eq(v, 7, "changed on failure");
}

Test(parse_util, size)
{
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = {
		{"0", 0},
		{"4096", 4096},
		{"1B", 1},
		{"1K", 1024},
		{"512K", 512 * 1024},
		{"1M", 1 << 20},
		{"256M", 256ULL << 20},
		{"1.5G", 3ULL << 29},
		{"2 T", 2ULL << 40},
		{"1P", 1ULL << 50},
		{"15E", 15ULL << 60},
		{"0.5K", 512},
		{"1.25K", 1280},
		{"0.001K", 1},
		{"0.000K", 0},
	};
	static const struct {
		const char *s;
		int r;
	} bad[] = {
		{"", -EINVAL},	    {"K", -EINVAL},
		{"1k", -EINVAL},    {"1KB", -EINVAL},
		{"1 K B", -EINVAL}, {"-1K", -EINVAL},
		{"1.5", -EINVAL},   {"1.5B", -EINVAL},
		{"1.K", -EINVAL},   {"1X", -EINVAL},
		{".5K", -EINVAL},   {"infinity", -EINVAL},
		{"16E", -ERANGE},   {"99999999999999999999", -ERANGE},
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		uint64_t v = 0;
		cr_assert_eq(parse_size(good[i].s, &v), 0, "%s", good[i].s);
		cr_assert_eq(v, good[i].v, "%s: %" PRIu64, good[i].s, v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t v = 7;
		cr_assert_eq(parse_size(bad[i].s, &v), bad[i].r, "'%s'", bad[i].s);
		cr_assert_eq(v, 7, "changed on failure");
	}
}

Test(parse_util, size_rounds_to_zero)
{
	uint64_t v = 7;

	/* Not 0, yet less than a byte: no size, nor the "no limit" that 0 may be. */
	cr_assert_eq(parse_size("0.0001K", &v), -EDOM);
	cr_assert_eq(parse_size("0.0000001K", &v), -EDOM);
	cr_assert_eq(parse_size("0.0000000001K", &v), -EDOM);
	cr_assert_eq(v, 7);
}
