/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Time spans and timestamps, written and read the way systemd does
 * (systemd.time(7)): spans such as "30d", "1h 30min", "2.5s", "infinity";
 * timestamps such as "2026-12-01 10:00", "yesterday", "-2h", "1 hour ago",
 * "@1764583200". Microseconds since the epoch throughout, as in systemd.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t usec_t;

#define USEC_INFINITY ((usec_t)UINT64_MAX)
#define USEC_PER_MSEC ((usec_t)1000ULL)
#define USEC_PER_SEC ((usec_t)1000000ULL)
#define USEC_PER_MINUTE (60ULL * USEC_PER_SEC)
#define USEC_PER_HOUR (60ULL * USEC_PER_MINUTE)
#define USEC_PER_DAY (24ULL * USEC_PER_HOUR)
#define USEC_PER_WEEK (7ULL * USEC_PER_DAY)
#define USEC_PER_MONTH (2629800ULL * USEC_PER_SEC) /* 30.44 days */
#define USEC_PER_YEAR (31557600ULL * USEC_PER_SEC) /* 365.25 days */

/* "Thu 2026-12-03 07:54:24 UTC" plus the terminating NUL fits. */
#define FORMAT_TIMESTAMP_MAX 64

/* Current CLOCK_REALTIME in microseconds. */
usec_t now_usec(void);
/* Current CLOCK_MONOTONIC in microseconds, for deadlines. */
usec_t now_monotonic_usec(void);

/*
 * Parses a time span: one or more "<number>[<unit>]" terms, optionally
 * separated by spaces ("1h 30min", "2.5s"), or "infinity". A term without a
 * unit counts in default_unit. Returns -EINVAL on a malformed span,
 * -ERANGE on overflow, -EDOM for a span that is not 0 but rounds down to 0 µs
 * ("0.1us"); *ret is untouched on failure.
 */
int parse_timespan(const char *s, usec_t default_unit, usec_t *ret);

/*
 * Parses a timestamp relative to now (CLOCK_REALTIME, microseconds):
 *   "now", "today", "yesterday", "tomorrow" (midnights in local time),
 *   "+SPAN", "-SPAN", "SPAN ago", "SPAN left", "@SECONDS[.FRACTION]",
 *   "[WEEKDAY] [YY]YY-MM-DD[ HH:MM[:SS[.FRACTION]]][ UTC]" (a 'T' may stand
 *   for the space between date and time), "HH:MM[:SS]" (today).
 * Absolute times are local time unless followed by " UTC".
 * Returns -EINVAL if the string is none of these, -ERANGE if out of range.
 */
int parse_timestamp(const char *s, usec_t now, usec_t *ret);

/*
 * Formats t as journalctl and coredumpctl show it, "Thu 2026-12-03 07:54:24 UTC"
 * (local time, or UTC if utc). Returns buf, or NULL if t cannot be shown.
 */
char *format_timestamp(char buf[static FORMAT_TIMESTAMP_MAX], usec_t t, bool utc);
