/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config-regex.h"
#include "macro.h"

#define REGEX_EXPANDED_MAX 10000
#define REGEX_DEPTH_MAX 32

static const char *const regex_too_large = "the expression is too large once its repetitions "
					   "are expanded (nested {m,n} counts multiply); "
					   "simplify it";
static const char *const regex_adjacent = "adjacent repetition operators (like 'a*+' or "
					  "'a+{2}') are undefined in POSIX extended regular "
					  "expressions";

/* The size of the expression read so far, with its repetitions expanded. */
typedef struct RegexSize {
	uint64_t total[REGEX_DEPTH_MAX + 1]; /* copies of atoms in each open group */
	uint64_t last[REGEX_DEPTH_MAX + 1];  /* copies of the last atom (or group) of each */
	size_t depth;			     /* groups open, 0 at the top level */
} RegexSize;

/* Adds an atom of that many copies (1, or the size of a group just closed). */
static bool regex_size_add(RegexSize *s, uint64_t atom)
{
	s->total[s->depth] += atom;
	s->last[s->depth] = atom;
	return s->total[s->depth] <= REGEX_EXPANDED_MAX;
}

/* The last atom is now there n times. Returns false when the total is too large. */
static bool regex_size_repeat(RegexSize *s, uint64_t n)
{
	s->total[s->depth] += s->last[s->depth] * (n - 1);
	s->last[s->depth] *= n;
	return s->total[s->depth] <= REGEX_EXPANDED_MAX;
}

/* At a '('. Returns false when groups are nested too deep. */
static bool regex_size_open_group(RegexSize *s)
{
	if (s->depth >= REGEX_DEPTH_MAX)
		return false;
	s->depth++;
	s->total[s->depth] = s->last[s->depth] = 0;
	return true;
}

/* At a ')' that closes a group. Returns the group's size: one atom of the level above. */
static uint64_t regex_size_close_group(RegexSize *s)
{
	uint64_t atom = MAX(s->total[s->depth], 1);

	s->depth--;
	return atom;
}

/*
 * p is at a '['. Returns the ']' that closes the bracket expression, which is
 * one atom ("[]a]", "[^]a]", "[[:digit:]]"), or NULL if there is none.
 */
static const char *regex_skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (*p == '[' && p[1] && strchr(":.=", p[1])) {
			char c = p[1];

			for (p += 2; *p && !(*p == c && p[1] == ']'); p++)
				;
			if (*p)
				p++;
		}
		if (*p)
			p++;
	}
	return *p ? p : NULL;
}

/* Reads the digits at *p, up to the first that makes the number exceed REGEX_EXPANDED_MAX. */
static uint64_t regex_parse_count(const char **p)
{
	uint64_t n = 0;

	while (**p >= '0' && **p <= '9' && n <= REGEX_EXPANDED_MAX)
		n = n * 10 + (uint64_t)(*(*p)++ - '0');
	return n;
}

/*
 * p is at a '{'. If an interval "{m}", "{m,}" or "{m,n}" starts there, returns
 * its '}' and in *ret_n the copies it makes of its operand (1 to
 * REGEX_EXPANDED_MAX + 1); else NULL: the '{' is a plain character.
 */
static const char *regex_parse_interval(const char *p, uint64_t *ret_n)
{
	const char *q = p + 1;
	uint64_t m, n;

	m = n = regex_parse_count(&q);
	if (*q == ',') {
		q++;
		if (*q >= '0' && *q <= '9')
			n = regex_parse_count(&q);
		else
			n = m + 1; /* "{m,}": m copies and a star */
	}
	if (*q != '}')
		return NULL;
	*ret_n = MAX(MIN(n, REGEX_EXPANDED_MAX + 1), 1);
	return q;
}

/*
 * If a repetition operator is at *p, returns the copies it makes of its
 * operand and moves *p to its last character; else returns 0.
 */
static uint64_t regex_parse_repetition(const char **p)
{
	const char *end;
	uint64_t n;

	switch (**p) {
	case '*':
	case '?':
		return 1;
	case '+': /* "a+" is compiled as "aa*": one more copy, which "a++" doubles */
		return 2;
	case '{':
		end = regex_parse_interval(*p, &n);
		if (!end)
			return 0;
		*p = end;
		return n;
	}
	return 0;
}

const char *regex_check_size(const char *re)
{
	RegexSize s = {};
	bool after_repetition = false;

	for (const char *p = re; *p; p++) {
		uint64_t atom = 1, n;

		/* Stacked repetitions also make glibc's matcher take exponential time. */
		if (after_repetition && strchr("*+?{", *p))
			return regex_adjacent;
		n = regex_parse_repetition(&p);
		after_repetition = n > 0;
		if (n > 0) {
			if (!regex_size_repeat(&s, n))
				return regex_too_large;
			continue;
		}

		switch (*p) {
		case '\\':
			if (p[1])
				p++;
			break;
		case '[':
			p = regex_skip_bracket(p);
			if (!p)
				return NULL; /* unterminated: regcomp() refuses it */
			break;
		case '(':
			if (!regex_size_open_group(&s))
				return regex_too_large;
			continue;
		case ')':
			if (s.depth > 0)
				atom = regex_size_close_group(&s);
			break;
		case '|':
		case '^':
		case '$':
			continue;
		}
		if (!regex_size_add(&s, atom))
			return regex_too_large;
	}
	return NULL;
}
