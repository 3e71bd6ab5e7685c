// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "time-util.h"

/* Thu 2026-12-03 07:54:24 UTC */
#define NOW ((usec_t)1796284464 * USEC_PER_SEC)

static void utc(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
}

static usec_t span(const char *s)
{
	usec_t u = 0;

	cr_assert_eq(parse_timespan(s, USEC_PER_SEC, &u), 0, "parse_timespan(\"%s\")", s);
	return u;
}

static usec_t stamp(const char *s)
{
	usec_t u = 0;

	cr_assert_eq(parse_timestamp(s, NOW, &u), 0, "parse_timestamp(\"%s\")", s);
	return u;
}

Test(timespan, units)
{
	cr_assert_eq(span("5s"), 5 * USEC_PER_SEC);
	cr_assert_eq(span("5"), 5 * USEC_PER_SEC);
	cr_assert_eq(span("30d"), 30 * USEC_PER_DAY);
	cr_assert_eq(span("1h 30min"), 90 * USEC_PER_MINUTE);
	cr_assert_eq(span("1h30m"), 90 * USEC_PER_MINUTE);
	cr_assert_eq(span(" 2 hours "), 2 * USEC_PER_HOUR);
	cr_assert_eq(span("2.5s"), 2500 * USEC_PER_MSEC);
	cr_assert_eq(span(".5h"), 30 * USEC_PER_MINUTE);
	cr_assert_eq(span("1M"), USEC_PER_MONTH);
	cr_assert_eq(span("1m"), USEC_PER_MINUTE);
	cr_assert_eq(span("2w"), 14 * USEC_PER_DAY);
	cr_assert_eq(span("1y"), USEC_PER_YEAR);
	cr_assert_eq(span("250ms"), 250 * USEC_PER_MSEC);
	cr_assert_eq(span("7us"), 7);
	cr_assert_eq(span("7µs"), 7);
	cr_assert_eq(span("infinity"), USEC_INFINITY);
	cr_assert_eq(span(" infinity "), USEC_INFINITY);
}

Test(timespan, default_unit)
{
	usec_t u;

	cr_assert_eq(parse_timespan("100", USEC_PER_MSEC, &u), 0);
	cr_assert_eq(u, 100 * USEC_PER_MSEC);
}

Test(timespan, invalid)
{
	const char *bad[] = {"", " ", "s", "5x", "5 parsecs", "-5s", "5s-", "..", "inf"};
	usec_t u = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse_timespan(bad[i], USEC_PER_SEC, &u);

		cr_assert_eq(r, -EINVAL, "\"%s\" gave %d", bad[i], r);
		cr_assert_eq(u, 42, "output touched on failure");
	}
}

Test(timespan, overflow)
{
	usec_t u = 42;

	cr_assert_eq(parse_timespan("99999999999999999999s", USEC_PER_SEC, &u), -ERANGE);
	cr_assert_eq(parse_timespan("600000y", USEC_PER_SEC, &u), -ERANGE);
	cr_assert_eq(parse_timespan("18446744073709551615us", USEC_PER_SEC, &u), -ERANGE);
	cr_assert_eq(u, 42);
}

Test(timespan, rounds_to_zero)
{
	usec_t u = 42;

	/* Not 0, yet less than a microsecond: no span, nor the "no limit" that 0 may be. */
	cr_assert_eq(parse_timespan("0.0000001us", USEC_PER_SEC, &u), -EDOM);
	cr_assert_eq(parse_timespan("0.5us", USEC_PER_SEC, &u), -EDOM);
	cr_assert_eq(parse_timespan("0.0000001", USEC_PER_SEC, &u), -EDOM);
	cr_assert_eq(parse_timespan("0.5us 0.0000000000001d", USEC_PER_SEC, &u), -EDOM);
	cr_assert_eq(u, 42);
	cr_assert_eq(span("0.000s"), 0);
	cr_assert_eq(span("0 0.0us"), 0);
	cr_assert_eq(span("1s 0.1us"), USEC_PER_SEC);
}

Test(timestamp, keywords, .init = utc)
{
	cr_assert_eq(stamp("now"), NOW);
	cr_assert_eq(stamp("today"), (usec_t)1796256000 * USEC_PER_SEC);
	cr_assert_eq(stamp("yesterday"), (usec_t)(1796256000 - 86400) * USEC_PER_SEC);
	cr_assert_eq(stamp("tomorrow"), (usec_t)(1796256000 + 86400) * USEC_PER_SEC);
	cr_assert_eq(stamp("epoch"), 0);
	cr_assert_eq(stamp("@1796284464"), NOW);
	cr_assert_eq(stamp("@1796284464.5"), NOW + 500 * USEC_PER_MSEC);
}

Test(timestamp, relative, .init = utc)
{
	cr_assert_eq(stamp("-2h"), NOW - 2 * USEC_PER_HOUR);
	cr_assert_eq(stamp("+5min"), NOW + 5 * USEC_PER_MINUTE);
	cr_assert_eq(stamp("1 hour ago"), NOW - USEC_PER_HOUR);
	cr_assert_eq(stamp("3d ago"), NOW - 3 * USEC_PER_DAY);
	cr_assert_eq(stamp("1h 30min ago"), NOW - 90 * USEC_PER_MINUTE);
	cr_assert_eq(stamp("2 days left"), NOW + 2 * USEC_PER_DAY);
}

Test(timestamp, absolute, .init = utc)
{
	cr_assert_eq(stamp("2026-12-01 10:00"), (usec_t)1796119200 * USEC_PER_SEC);
	cr_assert_eq(stamp("2026-12-01 10:00:30"), (usec_t)1796119230 * USEC_PER_SEC);
	cr_assert_eq(stamp("2026-12-01T10:00:30"), (usec_t)1796119230 * USEC_PER_SEC);
	cr_assert_eq(stamp("26-12-01 10:00:30"), (usec_t)1796119230 * USEC_PER_SEC);
	cr_assert_eq(stamp("2026-12-01"), (usec_t)1796083200 * USEC_PER_SEC);
	cr_assert_eq(stamp("2026-12-01 10:00:30.25"), (usec_t)1796119230 * USEC_PER_SEC + 250000);
	cr_assert_eq(stamp("07:00"), (usec_t)(1796256000 + 7 * 3600) * USEC_PER_SEC);
	cr_assert_eq(stamp("07:00:05"), (usec_t)(1796256000 + 7 * 3600 + 5) * USEC_PER_SEC);
	cr_assert_eq(stamp("Tue 2026-12-01 10:00:30 UTC"), (usec_t)1796119230 * USEC_PER_SEC);
	cr_assert_eq(stamp("2026-12-01 10:00 UTC"), (usec_t)1796119200 * USEC_PER_SEC);
}

Test(timestamp, local_zone)
{
	/* 10:00 in Berlin in December (CET, UTC+1) is 09:00 UTC. */
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	cr_assert_eq(stamp("2026-12-01 10:00"), (usec_t)(1796119200 - 3600) * USEC_PER_SEC);
	cr_assert_eq(stamp("2026-12-01 10:00 UTC"), (usec_t)1796119200 * USEC_PER_SEC);
	cr_assert_eq(stamp("2026-12-01 10:00 CET"), (usec_t)(1796119200 - 3600) * USEC_PER_SEC);
	cr_assert_eq(stamp("today"), (usec_t)(1796256000 - 3600) * USEC_PER_SEC);
}

Test(timestamp, invalid, .init = utc)
{
	const char *bad[] = {"",
			     "never",
			     "2026-13-01",
			     "2026-12-01 25:00",
			     "Mon 2026-12-01",
			     "2026-12-01 10:00 XYZ",
			     "-",
			     "5 parsecs ago",
			     "@",
			     "10:00:00.5x"};
	usec_t u = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_lt(parse_timestamp(bad[i], NOW, &u), 0, "\"%s\" accepted", bad[i]);
		cr_assert_eq(u, 42, "output touched on failure");
	}
	cr_assert_eq(parse_timestamp("-60y", NOW, &u), -ERANGE);
}

Test(timestamp, format_round_trip, .init = utc)
{
	char buf[FORMAT_TIMESTAMP_MAX];
	usec_t u;

	cr_assert_str_eq(format_timestamp(buf, NOW, false), "Thu 2026-12-03 07:54:24 UTC");
	cr_assert_str_eq(format_timestamp(buf, NOW, true), "Thu 2026-12-03 07:54:24 UTC");
	cr_assert_eq(parse_timestamp(buf, 0, &u), 0);
	cr_assert_eq(u, NOW);
	cr_assert_null(format_timestamp(buf, 0, false));
	cr_assert_null(format_timestamp(buf, USEC_INFINITY, false));
	/* Every field zero-padded, every day name. */
	cr_assert_str_eq(format_timestamp(buf, USEC_PER_SEC, true), "Thu 1970-01-01 00:00:01 UTC");
	for (int d = 0; d < 7; d++) {
		static const char *const days[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};

		format_timestamp(buf, (usec_t)(d * 86400 + 3723) * USEC_PER_SEC, true);
		cr_assert_eq(strncmp(buf, days[d], 3), 0, "%s", buf);
		cr_assert_str_eq(buf + 15, "01:02:03 UTC");
	}
	/* Past year 9999 (µs since 1970 reach further): not shown. */
	cr_assert_null(format_timestamp(buf, (usec_t)253402300800 * USEC_PER_SEC, true));

	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	cr_assert_str_eq(format_timestamp(buf, NOW, false), "Thu 2026-12-03 08:54:24 CET");
	cr_assert_eq(parse_timestamp(buf, 0, &u), 0);
	cr_assert_eq(u, NOW);
}
