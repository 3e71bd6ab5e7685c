/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse-util.h"

int parse_boolean(const char *s, bool *ret)
{
	static const char *const yes[] = {"1", "yes", "y", "true", "t", "on"};
	static const char *const no[] = {"0", "no", "n", "false", "f", "off"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	return -EINVAL;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Reads the digits at *p into *ret, -ERANGE when they do not fit. */
static int read_digits(const char **p, uint64_t *ret)
{
	const char *q = *p;
	uint64_t v = 0;

	if (!is_digit(*q))
		return -EINVAL;
	for (; is_digit(*q); q++) {
		unsigned d = (unsigned)(*q - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*p = q;
	*ret = v;
	return 0;
}

int parse_uint64(const char *s, uint64_t *ret)
{
	uint64_t v;
	int r;

	r = read_digits(&s, &v);
	if (r < 0)
		return r;
	if (*s != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

/*
 * Reads "N" or "N.FFF" at *p and returns it multiplied by unit, rounded
 * down. Fraction digits after the ninth are read but ignored; -EDOM if a
 * number that is not 0 rounds down to 0.
 */
static int read_scaled(const char **p, uint64_t unit, uint64_t *ret)
{
	const char *q = *p;
	uint64_t n, v;
	bool nonzero;
	int r;

	r = read_digits(&q, &n);
	if (r < 0)
		return r;
	if (n > UINT64_MAX / unit)
		return -ERANGE;
	v = n * unit;
	nonzero = n > 0;

	if (*q == '.') {
		uint64_t frac = 0, denom = 1, add;

		q++;
		if (!is_digit(*q))
			return -EINVAL;
		for (; is_digit(*q); q++) {
			nonzero = nonzero || *q != '0';
			if (denom < UINT64_C(1000000000)) {
				frac = frac * 10 + (uint64_t)(*q - '0');
				denom *= 10;
			}
		}
		/* unit * frac / denom without overflow: frac < denom <= 10^9 */
		add = unit / denom * frac + unit % denom * frac / denom;
		if (v > UINT64_MAX - add)
			return -ERANGE;
		v += add;
	}
	if (v == 0 && nonzero)
		return -EDOM;
	*p = q;
	*ret = v;
	return 0;
}

/* The number part of "1.5G": digits with at most one '.'. */
static const char *skip_number(const char *s)
{
	while (is_digit(*s))
		s++;
	if (*s == '.')
		for (s++; is_digit(*s); s++)
			;
	return s;
}

int parse_size(const char *s, uint64_t *ret)
{
	static const struct {
		char suffix;
		uint64_t factor;
	} table[] = {
		{'B', UINT64_C(1)},	  {'K', UINT64_C(1) << 10}, {'M', UINT64_C(1) << 20},
		{'G', UINT64_C(1) << 30}, {'T', UINT64_C(1) << 40}, {'P', UINT64_C(1) << 50},
		{'E', UINT64_C(1) << 60},
	};
	const char *suffix = skip_number(s);
	uint64_t factor = 1;
	uint64_t v;
	int r;

	while (is_space(*suffix))
		suffix++;
	if (*suffix != '\0') {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(table); i++)
			if (table[i].suffix == suffix[0])
				break;
		if (i >= ARRAY_SIZE(table) || suffix[1] != '\0')
			return -EINVAL;
		factor = table[i].factor;
	}

	/* A fraction of a byte ("1.5" or "1.5B") is not a size. */
	if (factor == 1 && memchr(s, '.', (size_t)(suffix - s)))
		return -EINVAL;
	r = read_scaled(&s, factor, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

bool kernel_module_name_is_valid(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n <= 55 &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}
