/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "macro.h"
#include "time-util.h"

#define WHITESPACE " \t\n\r"

static bool is_space(char c)
{
	return c != '\0' && strchr(WHITESPACE, c);
}

static usec_t now_clock_usec(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return 0;
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

usec_t now_usec(void)
{
	return now_clock_usec(CLOCK_REALTIME);
}

usec_t now_monotonic_usec(void)
{
	return now_clock_usec(CLOCK_MONOTONIC);
}

/* Unit names as systemd.time(7) lists them; "M" (month) and "m" (minute) differ by case. */
static const struct {
	const char *name;
	usec_t usec;
} timespan_units[] = {
	{"us", 1},
	{"usec", 1},
	{"µs", 1},
	{"μs", 1},
	{"ms", USEC_PER_MSEC},
	{"msec", USEC_PER_MSEC},
	{"s", USEC_PER_SEC},
	{"sec", USEC_PER_SEC},
	{"second", USEC_PER_SEC},
	{"seconds", USEC_PER_SEC},
	{"m", USEC_PER_MINUTE},
	{"min", USEC_PER_MINUTE},
	{"minute", USEC_PER_MINUTE},
	{"minutes", USEC_PER_MINUTE},
	{"h", USEC_PER_HOUR},
	{"hr", USEC_PER_HOUR},
	{"hour", USEC_PER_HOUR},
	{"hours", USEC_PER_HOUR},
	{"d", USEC_PER_DAY},
	{"day", USEC_PER_DAY},
	{"days", USEC_PER_DAY},
	{"w", USEC_PER_WEEK},
	{"week", USEC_PER_WEEK},
	{"weeks", USEC_PER_WEEK},
	{"M", USEC_PER_MONTH},
	{"month", USEC_PER_MONTH},
	{"months", USEC_PER_MONTH},
	{"y", USEC_PER_YEAR},
	{"year", USEC_PER_YEAR},
	{"years", USEC_PER_YEAR},
};

/* A unit name is a run of letters; bytes >= 0x80 let "µs" in. */
static bool is_unit_char(char c)
{
	return isalpha((unsigned char)c) || (unsigned char)c >= 0x80;
}

static int lookup_unit(const char *name, size_t len, usec_t *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(timespan_units); i++)
		if (strlen(timespan_units[i].name) == len &&
		    memcmp(timespan_units[i].name, name, len) == 0) {
			*ret = timespan_units[i].usec;
			return 0;
		}
	return -EINVAL;
}

/*
 * Parses one "<number>[ ]<unit>" term at *p and advances *p past it. Returns 1 if the number
 * is not 0 (whatever it rounds to), else 0.
 */
static int parse_timespan_term(const char **p, usec_t default_unit, usec_t *ret)
{
	const char *s = *p, *word;
	uint64_t n = 0;
	usec_t unit, frac = 0;
	bool digits = false, nonzero = false;
	int r;

	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = *s - '0';

		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
		digits = true;
		nonzero = nonzero || d > 0;
	}

	/* Digits after the point, kept until the unit is known. */
	const char *fraction = NULL;
	if (*s == '.') {
		fraction = ++s;
		while (isdigit((unsigned char)*s)) {
			nonzero = nonzero || *s != '0';
			s++;
			digits = true;
		}
	}
	if (!digits)
		return -EINVAL;

	s += strspn(s, WHITESPACE);
	for (word = s; is_unit_char(*s); s++)
		;
	if (s == word)
		unit = default_unit;
	else {
		r = lookup_unit(word, s - word, &unit);
		if (r < 0)
			return r;
	}

	/* Each further decimal place is worth a tenth of the one before; sub-µs digits drop out. */
	if (fraction)
		for (usec_t place = unit / 10; isdigit((unsigned char)*fraction) && place > 0;
		     fraction++, place /= 10)
			frac += (usec_t)(*fraction - '0') * place;

	if (n > (UINT64_MAX - 1 - frac) / unit)
		return -ERANGE;

	*ret = n * unit + frac;
	*p = s;
	return nonzero;
}

int parse_timespan(const char *s, usec_t default_unit, usec_t *ret)
{
	const char *p = s + strspn(s, WHITESPACE);
	usec_t total = 0;
	bool any = false, nonzero = false;
	int r;

	if (strneq(p, "infinity", 8) && p[8 + strspn(p + 8, WHITESPACE)] == '\0') {
		*ret = USEC_INFINITY;
		return 0;
	}

	for (;;) {
		usec_t term;

		p += strspn(p, WHITESPACE);
		if (*p == '\0')
			break;
		r = parse_timespan_term(&p, default_unit, &term);
		if (r < 0)
			return r;
		if (term >= USEC_INFINITY - total)
			return -ERANGE;
		total += term;
		any = true;
		nonzero = nonzero || r > 0;
	}
	if (!any)
		return -EINVAL;
	if (total == 0 && nonzero)
		return -EDOM;

	*ret = total;
	return 0;
}

static const char *const weekdays[7][2] = {
	{"Sun", "Sunday"},   {"Mon", "Monday"}, {"Tue", "Tuesday"},  {"Wed", "Wednesday"},
	{"Thu", "Thursday"}, {"Fri", "Friday"}, {"Sat", "Saturday"},
};

/* Strips a leading weekday name off *s; returns its tm_wday, or -1 if none. */
static int strip_weekday(char **s)
{
	for (int i = 0; i < 7; i++)
		for (int j = 0; j < 2; j++) {
			size_t l = strlen(weekdays[i][j]);

			if (strncasecmp(*s, weekdays[i][j], l) == 0 && is_space((*s)[l])) {
				*s += l + strspn(*s + l, WHITESPACE);
				return i;
			}
		}
	return -1;
}

/* Strips a trailing word from s if it equals suffix (case-insensitively), and the blanks before it. */
static bool strip_suffix_word(char *s, const char *suffix)
{
	size_t l = strlen(s), k = strlen(suffix);

	if (l <= k || !is_space(s[l - k - 1]) || strcasecmp(s + l - k, suffix) != 0)
		return false;
	l -= k;
	while (l > 0 && is_space(s[l - 1]))
		l--;
	s[l] = '\0';
	return true;
}

/* Local midnight at the start of the day that is days away from the day of now. */
static int midnight(usec_t now, int days, usec_t *ret)
{
	time_t t = (time_t)(now / USEC_PER_SEC);
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return -EINVAL;
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_mday += days;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t < 0)
		return -ERANGE;
	*ret = (usec_t)t * USEC_PER_SEC;
	return 0;
}

/*
 * The absolute forms. Fields a format leaves out keep what the caller put
 * in the struct tm: today's date for a bare time, midnight for a bare date.
 */
static const struct {
	const char *format;
	bool has_date, has_seconds;
} timestamp_formats[] = {
	{"%y-%m-%d %H:%M:%S", true, true}, {"%Y-%m-%d %H:%M:%S", true, true},
	{"%y-%m-%dT%H:%M:%S", true, true}, {"%Y-%m-%dT%H:%M:%S", true, true},
	{"%y-%m-%d %H:%M", true, false},   {"%Y-%m-%d %H:%M", true, false},
	{"%y-%m-%dT%H:%M", true, false},   {"%Y-%m-%dT%H:%M", true, false},
	{"%y-%m-%d", true, false},	   {"%Y-%m-%d", true, false},
	{"%H:%M:%S", false, true},	   {"%H:%M", false, false},
};

static int parse_absolute(char *s, usec_t now, usec_t *ret)
{
	time_t base = (time_t)(now / USEC_PER_SEC);
	int wday, isdst = -1;
	bool utc = false;

	tzset();
	if (strip_suffix_word(s, "UTC"))
		utc = true;
	else if (tzname[0][0] && strip_suffix_word(s, tzname[0]))
		isdst = 0;
	else if (tzname[1][0] && strip_suffix_word(s, tzname[1]))
		isdst = 1;

	wday = strip_weekday(&s);

	for (size_t i = 0; i < ARRAY_SIZE(timestamp_formats); i++) {
		struct tm tm;
		usec_t frac = 0;
		const char *k;
		time_t t;

		if (!(utc ? gmtime_r(&base, &tm) : localtime_r(&base, &tm)))
			return -EINVAL;
		if (timestamp_formats[i].has_date)
			tm.tm_hour = tm.tm_min = 0;
		tm.tm_sec = 0;

		k = strptime(s, timestamp_formats[i].format, &tm);
		if (!k)
			continue;
		if (*k == '.' && timestamp_formats[i].has_seconds && isdigit((unsigned char)k[1])) {
			usec_t place = USEC_PER_SEC / 10;

			for (k++; isdigit((unsigned char)*k); k++, place /= 10)
				frac += (usec_t)(*k - '0') * place;
		}
		if (*k != '\0')
			continue;

		tm.tm_isdst = isdst;
		t = utc ? timegm(&tm) : mktime(&tm);
		if (t < 0)
			return -ERANGE;
		if (wday >= 0 && tm.tm_wday != wday)
			return -EINVAL;
		*ret = (usec_t)t * USEC_PER_SEC + frac;
		return 0;
	}
	return -EINVAL;
}

/* now - span (past) or now + span (future), for "-2h", "+5min", "1 hour ago", "3d left". */
static int relative_timestamp(const char *span_text, usec_t now, bool future, usec_t *ret)
{
	usec_t span;
	int r;

	r = parse_timespan(span_text, USEC_PER_SEC, &span);
	if (r < 0)
		return r;
	if (future ? span >= USEC_INFINITY - now : span > now)
		return -ERANGE;
	*ret = future ? now + span : now - span;
	return 0;
}

int parse_timestamp(const char *s, usec_t now, usec_t *ret)
{
	_cleanup_free_ char *t = NULL;
	usec_t v = 0;
	size_t l;
	int r = 0;

	s += strspn(s, WHITESPACE);
	l = strlen(s);
	while (l > 0 && is_space(s[l - 1]))
		l--;
	t = strndup(s, l);
	if (!t)
		return -ENOMEM;

	if (streq(t, "now"))
		v = now;
	else if (streq(t, "epoch"))
		v = 0;
	else if (streq(t, "today"))
		r = midnight(now, 0, &v);
	else if (streq(t, "yesterday"))
		r = midnight(now, -1, &v);
	else if (streq(t, "tomorrow"))
		r = midnight(now, 1, &v);
	else if (t[0] == '@')
		r = parse_timespan(t + 1, USEC_PER_SEC, &v);
	else if (t[0] == '+' || t[0] == '-')
		r = relative_timestamp(t + 1, now, t[0] == '+', &v);
	else if (strip_suffix_word(t, "ago"))
		r = relative_timestamp(t, now, false, &v);
	else if (strip_suffix_word(t, "left"))
		r = relative_timestamp(t, now, true, &v);
	else
		r = parse_absolute(t, now, &v);
	if (r < 0)
		return r;

	*ret = v;
	return 0;
}

/* Writes v as n decimal digits, zero-padded. */
static char *put_digits(char *p, unsigned v, size_t n)
{
	for (size_t i = n; i > 0; i--, v /= 10)
		p[i - 1] = (char)('0' + v % 10);
	return p + n;
}

/*
 * English day names whatever the locale, as systemd's (and as
 * parse_timestamp() reads them back). By hand rather than with strftime():
 * a listing of 10,000 crashes formats 10,000 of them.
 */
char *format_timestamp(char buf[static FORMAT_TIMESTAMP_MAX], usec_t t, bool utc)
{
	const char *zone;
	time_t sec;
	struct tm tm;
	char *p = buf;

	if (t == 0 || t == USEC_INFINITY)
		return NULL;
	sec = (time_t)(t / USEC_PER_SEC);
	if (!(utc ? gmtime_r(&sec, &tm) : localtime_r(&sec, &tm)))
		return NULL;
	/* gmtime_r() names its zone "GMT"; systemd and journalctl say "UTC". */
	zone = utc ? "UTC" : tm.tm_zone ?: "";
	if (tm.tm_year > 9999 - 1900 ||
	    strlen(zone) > FORMAT_TIMESTAMP_MAX - sizeof("Www YYYY-MM-DD HH:MM:SS "))
		return NULL;

	p = mempcpy(p, weekdays[tm.tm_wday][0], 3);
	*p++ = ' ';
	p = put_digits(p, (unsigned)(tm.tm_year + 1900), 4);
	*p++ = '-';
	p = put_digits(p, (unsigned)tm.tm_mon + 1, 2);
	*p++ = '-';
	p = put_digits(p, (unsigned)tm.tm_mday, 2);
	*p++ = ' ';
	p = put_digits(p, (unsigned)tm.tm_hour, 2);
	*p++ = ':';
	p = put_digits(p, (unsigned)tm.tm_min, 2);
	*p++ = ':';
	p = put_digits(p, (unsigned)tm.tm_sec, 2);
	*p++ = ' ';
	strcpy(p, zone);
	return buf;
}
