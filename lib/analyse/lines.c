/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a log's lines: what a log file and printk put before the kernel's text is removed, and
 * lines that a console or a copy and paste wrapped are joined.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"

/* Where the first clock time "hh:mm:ss" in the first max bytes of l ends, 0 if none. */
static size_t clock_time_end(const Line *l, size_t max)
{
	for (size_t i = 0; i + 8 <= MIN(l->len, max); i++)
		if (is_digit(l->s[i]) && is_digit(l->s[i + 1]) && l->s[i + 2] == ':' &&
		    is_digit(l->s[i + 3]) && is_digit(l->s[i + 4]) && l->s[i + 5] == ':' &&
		    is_digit(l->s[i + 6]) && is_digit(l->s[i + 7]))
			return i + 8;
	return 0;
}

/* The number of words (runs of non-blanks) in the n bytes at s. */
static size_t count_words(const char *s, size_t n)
{
	size_t words = 0;

	for (size_t i = 0; i < n; i++)
		words += !is_blank(s[i]) && (i == 0 || is_blank(s[i - 1]));
	return words;
}

/*
 * Removes what a log file puts before the kernel's text: the "Dec  2 17:13:53 host kernel: "
 * of syslog and journalctl (any language's month names; no host in some files),
 * "2025-12-02T17:13:53+0100 host kernel: " (short-iso), "[ 3846.639479] host kernel: "
 * (short-monotonic), and the "[Tue Dec  2 17:13:53 2025] " of dmesg -T. A time, then at most
 * a host name (and a time zone) before "kernel: ": the same words later in a line are text.
 */
static void line_strip_log_prefix(Line *l)
{
	const Line head = {l->s, MIN(l->len, (size_t)64)};
	const char *k = line_find(&head, " kernel: ");
	const char *close = memchr(head.s, ']', head.len);
	size_t t;

	if (k) {
		size_t at = (size_t)(k - l->s);

		t = clock_time_end(l, at);
		if (t == 0 && l->s[0] == '[' && close && close < k)
			t = (size_t)(close - l->s) + 1;
		if (t > 0 && count_words(l->s + t, at - t) <= 2) {
			*l = line_after(l, at + strlen(" kernel: "));
			return;
		}
	}
	if (l->len > 0 && l->s[0] == '[' && close) {
		t = clock_time_end(l, (size_t)(close - l->s));
		if (t > 0 && count_words(l->s, t) >= 4) /* "[Tue Dec  2 17:13:53 2025]" */
			*l = line_after(l, (size_t)(close - l->s) + 1);
	}
}

/*
 * Removes what printk puts before the text: "<N>" (the level, in
 * /dev/kmsg-style dumps), "[    1.234567]" (the time) and "[  T123]" or
 * "[    C1]" (the caller id of CONFIG_PRINTK_CALLER), then whitespace; before
 * them, a log file's own prefix (line_strip_log_prefix()).
 */
static void line_strip_prefixes(Line *l)
{
	size_t i;

	line_strip_log_prefix(l);

	if (l->len > 2 && l->s[0] == '<') {
		for (i = 1; i < l->len && i <= 4 && is_digit(l->s[i]); i++)
			;
		if (i > 1 && i < l->len && l->s[i] == '>')
			*l = line_after(l, i + 1);
	}
	if (l->len > 2 && l->s[0] == '[') {
		bool dot = false, digits = false;

		for (i = 1; i < l->len && (l->s[i] == ' ' || is_digit(l->s[i]) || l->s[i] == '.');
		     i++) {
			dot = dot || l->s[i] == '.';
			digits = digits || is_digit(l->s[i]);
		}
		if (dot && digits && i < l->len && l->s[i] == ']')
			*l = line_after(l, i + 1);
	}
	line_trim(l);
	if (l->len > 3 && l->s[0] == '[') {
		for (i = 1; i < l->len && l->s[i] == ' '; i++)
			;
		if (i + 1 < l->len && (l->s[i] == 'T' || l->s[i] == 'C') && is_digit(l->s[i + 1])) {
			for (i++; i < l->len && is_digit(l->s[i]); i++)
				;
			if (i < l->len && l->s[i] == ']')
				*l = line_after(l, i + 1);
		}
	}
	line_trim(l);
}

int split_lines(const char *log, size_t len, Line **ret, size_t *ret_n)
{
	size_t n = 0, allocated = 1;
	Line *lines;

	for (size_t i = 0; i < len; i++)
		allocated += log[i] == '\n';
	lines = calloc(allocated, sizeof(Line));
	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(log + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - log) : len;

		lines[n] = (Line){log + i, e - i};
		line_strip_prefixes(&lines[n]);
		n++;
		i = e + 1;
	}
	*ret = lines;
	*ret_n = n;
	return 0;
}

/* Taint columns (upper-case letters and blanks) from i on, up to where l ends or a digit starts. */
static size_t skip_taint_columns(const Line *l, size_t i)
{
	while (i < l->len && ((l->s[i] >= 'A' && l->s[i] <= 'Z') || is_blank(l->s[i])))
		i++;
	return i;
}

/*
 * A task line cut in two: before its taint ("CPU: 0 PID: 1 Comm: sh" and "Not tainted 6.1.0 #1"),
 * or in its taint columns ("... Tainted: G " and "       O      5.4.51 #1").
 */
static bool is_wrapped_task_line(const Line *first, const Line *second)
{
	const char *taint;
	size_t at;

	if (!has_prefix(first, "CPU: ") || !line_find(first, " PID:") ||
	    has_prefix(second, "CPU: "))
		return false;
	taint = line_find(first, " Tainted: ");
	if (!taint)
		return !line_find(first, "ainted") &&
		       (line_find(second, " tainted") || line_find(second, "Tainted:"));
	at = (size_t)(taint - first->s) + strlen(" Tainted: ");
	if (skip_taint_columns(first, at) < first->len)
		return false;
	at = skip_taint_columns(second, 0);
	return at < second->len && is_digit(second->s[at]);
}

/*
 * Joins the task lines that a console or a copy and paste wrapped, in a buffer of their own
 * (*ret_buf, NULL when there are none) that the joined lines point into. A number cut in two
 * is joined without a blank, anything else with one.
 */
int join_wrapped_task_lines(Line *lines, size_t n, char **ret_buf)
{
	size_t size = 0, o = 0;
	char *buf;

	*ret_buf = NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if (is_wrapped_task_line(&lines[i], &lines[i + 1]))
			size += lines[i].len + 1 + lines[i + 1].len;
	if (size == 0)
		return 0;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i + 1 < n; i++) {
		Line *first = &lines[i], *second = &lines[i + 1];
		char *joined = buf + o;

		if (!is_wrapped_task_line(first, second))
			continue;
		memcpy(buf + o, first->s, first->len);
		o += first->len;
		if (!(first->len > 0 && is_digit(first->s[first->len - 1]) && second->len > 0 &&
		      is_digit(second->s[0])))
			buf[o++] = ' ';
		memcpy(buf + o, second->s, second->len);
		o += second->len;
		*first = (Line){joined, (size_t)(buf + o - joined)};
		second->len = 0;
		i++;
	}
	*ret_buf = buf;
	return 0;
}
