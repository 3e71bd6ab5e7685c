/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config-regex.h"
#include "macro.h"

#define REGEX_EXPANDED_MAX 10000
#define REGEX_NULLABLE_MAX 1000
#define REGEX_DEPTH_MAX 32

static const char *const regex_too_large = "the expression is too large once its repetitions "
					   "are expanded (nested {m,n} counts multiply); "
					   "simplify it";
static const char *const regex_too_many_empty = "the expression has more than 1000 parts that "
						"can match the empty string (like 'a?', 'a*' "
						"or '(a|)') once its repetitions are "
						"expanded; simplify it";
static const char *const regex_back_reference = "back-references (\\1 to \\9) make the C "
						"library's matcher take exponential time; "
						"match the text itself instead";
static const char *const regex_adjacent = "adjacent repetition operators (like 'a*+' or "
					  "'a+{2}') are undefined in POSIX extended regular "
					  "expressions";

/*
 * A group (or the whole expression) read so far, with its repetitions
 * expanded. glibc's regcomp() also needs memory that grows with the square
 * of the copies of atoms that can match the empty string ("((a?){100}){100}"
 * is 800 MB), so those are counted too; a group is such an atom when one of
 * its alternatives has only such atoms.
 */
typedef struct RegexLevel {
	uint64_t total;		/* copies of atoms */
	uint64_t last;		/* copies of the last atom (or group) */
	uint64_t nullable;	/* copies of atoms that can match the empty string */
	bool last_nullable;	/* the last atom can */
	unsigned required;	/* atoms of the current alternative that cannot */
	bool empty_alternative; /* an alternative before can match the empty string */
} RegexLevel;

typedef struct RegexSize {
	RegexLevel level[REGEX_DEPTH_MAX + 1];
	size_t depth; /* groups open, 0 at the top level */
} RegexSize;

/* Returns NULL while the expression is small enough, else why not. */
static const char *regex_size_check(const RegexSize *s)
{
	const RegexLevel *l = &s->level[s->depth];

	if (l->total > REGEX_EXPANDED_MAX)
		return regex_too_large;
	if (l->nullable > REGEX_NULLABLE_MAX)
		return regex_too_many_empty;
	return NULL;
}

/* Adds an atom of that many copies (1, or the size of a group just closed). */
static void regex_size_add(RegexSize *s, uint64_t atom, bool nullable)
{
	RegexLevel *l = &s->level[s->depth];

	l->total += atom;
	l->last = atom;
	l->last_nullable = nullable;
	if (nullable)
		l->nullable += atom;
	else
		l->required++;
}

/* The last atom may now be left out ('?', '*', "{0,n}"): it can match the empty string. */
static void regex_size_optional(RegexSize *s)
{
	RegexLevel *l = &s->level[s->depth];

	if (l->last_nullable || l->required == 0)
		return;
	l->nullable += l->last;
	l->last_nullable = true;
	l->required--;
}

/* The last atom is now there n times. */
static void regex_size_repeat(RegexSize *s, uint64_t n)
{
	RegexLevel *l = &s->level[s->depth];

	if (l->last_nullable)
		l->nullable += l->last * (n - 1);
	l->total += l->last * (n - 1);
	l->last *= n;
}

/* At a '|', and at the ')' that ends the last alternative. */
static void regex_size_end_alternative(RegexSize *s)
{
	RegexLevel *l = &s->level[s->depth];

	if (l->required == 0)
		l->empty_alternative = true;
	l->required = 0;
}

/* At a '('. Returns false when groups are nested too deep. */
static bool regex_size_open_group(RegexSize *s)
{
	if (s->depth >= REGEX_DEPTH_MAX)
		return false;
	s->depth++;
	s->level[s->depth] = (RegexLevel){};
	return true;
}

/* At a ')' that closes a group: the group becomes an atom of the level above. */
static void regex_size_close_group(RegexSize *s)
{
	const RegexLevel *l = &s->level[s->depth];
	uint64_t atom = MAX(l->total, 1);
	bool nullable;

	regex_size_end_alternative(s);
	nullable = l->empty_alternative;
	s->depth--;
	regex_size_add(s, atom, nullable);
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

/*
 * The character of an interval at *p, moving *p past a backslash before it: glibc's regcomp()
 * reads an escaped character inside "{m,n}" as the character ("{1\00}" is "{100}").
 */
static char regex_interval_char(const char **p)
{
	if (**p == '\\' && (*p)[1])
		(*p)++;
	return **p;
}

static bool regex_interval_digit(const char *p)
{
	char c = regex_interval_char(&p);

	return c >= '0' && c <= '9';
}

/* Reads the digits at *p, up to the first that makes the number exceed REGEX_EXPANDED_MAX. */
static uint64_t regex_parse_count(const char **p)
{
	uint64_t n = 0;

	while (regex_interval_digit(*p) && n <= REGEX_EXPANDED_MAX) {
		n = n * 10 + (uint64_t)(regex_interval_char(p) - '0');
		(*p)++;
	}
	return n;
}

/*
 * p is at a '{'. If an interval "{m}", "{m,}" or "{m,n}" starts there, returns
 * its '}', in *ret_n the copies it makes of its operand (1 to
 * REGEX_EXPANDED_MAX + 1) and in *ret_optional whether m is 0; else NULL:
 * the '{' is a plain character.
 */
static const char *regex_parse_interval(const char *p, uint64_t *ret_n, bool *ret_optional)
{
	const char *q = p + 1;
	uint64_t m, n;

	m = n = regex_parse_count(&q);
	if (regex_interval_char(&q) == ',') {
		q++;
		if (regex_interval_digit(q))
			n = regex_parse_count(&q);
		else
			n = m + 1; /* "{m,}": m copies and a star */
	}
	if (regex_interval_char(&q) != '}')
		return NULL;
	*ret_n = MAX(MIN(n, REGEX_EXPANDED_MAX + 1), 1);
	*ret_optional = m == 0;
	return q;
}

/*
 * If a repetition operator is at *p, returns the copies it makes of its
 * operand, tells in *ret_optional whether it may leave it out, and moves *p
 * to its last character; else returns 0.
 */
static uint64_t regex_parse_repetition(const char **p, bool *ret_optional)
{
	const char *end;
	uint64_t n;

	*ret_optional = **p == '*' || **p == '?';
	switch (**p) {
	case '*':
	case '?':
		return 1;
	case '+': /* "a+" is compiled as "aa*": one more copy, which "a++" doubles */
		return 2;
	case '{':
		end = regex_parse_interval(*p, &n, ret_optional);
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
	bool after_repetition = false, optional;
	const char *why;

	for (const char *p = re; *p; p++) {
		uint64_t n;

		/* Stacked repetitions also make glibc's matcher take exponential time. */
		if (after_repetition && strchr("*+?{", *p))
			return regex_adjacent;
		n = regex_parse_repetition(&p, &optional);
		after_repetition = n > 0;
		if (n > 0) {
			if (optional)
				regex_size_optional(&s);
			regex_size_repeat(&s, n);
		} else if (*p == '(') {
			if (!regex_size_open_group(&s))
				return regex_too_large;
		} else if (*p == ')' && s.depth > 0)
			regex_size_close_group(&s);
		else if (*p == '|')
			regex_size_end_alternative(&s);
		else if (*p == '[') {
			p = regex_skip_bracket(p);
			if (!p)
				return NULL; /* unterminated: regcomp() refuses it */
			regex_size_add(&s, 1, false);
		} else if (*p == '^' || *p == '$') {
			/* An anchor is a part of glibc's automaton that matches the empty string. */
			regex_size_add(&s, 1, true);
		} else {
			/* glibc takes "\1" in an extended expression too, not as the digit. */
			if (*p == '\\' && p[1] >= '1' && p[1] <= '9')
				return regex_back_reference;
			if (*p == '\\' && p[1])
				p++;
			regex_size_add(&s, 1, false);
		}
		why = regex_size_check(&s);
		if (why)
			return why;
	}
	return NULL;
}
