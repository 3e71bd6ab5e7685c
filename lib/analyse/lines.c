/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a log's lines: what a log file, printk and a mail client put before the kernel's text is
 * removed (wrap.c then joins the lines that were wrapped).
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

/* Whether the bytes at s are "dd:dd", a clock's hours and minutes. */
static bool is_hours_minutes(const char *s)
{
	return is_digit(s[0]) && is_digit(s[1]) && s[2] == ':' && is_digit(s[3]) && is_digit(s[4]);
}

/*
 * Where a date that dmesg puts before the text ends, 0 if l starts with none: dmesg -H's
 * "[Dec 2 17:13]" (then "[  +0.000003]" on the lines of the same minute, which
 * line_strip_prefixes() removes), and dmesg --time-format=iso's "2025-12-02T17:13:53,123456+01:00"
 * with the blank after it.
 */
static size_t dmesg_date_end(const Line *l)
{
	const char *close;
	size_t i;

	if (l->len > 8 && l->s[0] == '[' && (l->s[1] | 0x20) >= 'a' && (l->s[1] | 0x20) <= 'z' &&
	    (close = memchr(l->s, ']', MIN(l->len, (size_t)16))) && close - l->s >= 7 &&
	    is_hours_minutes(close - 5))
		return (size_t)(close - l->s) + 1;
	if (l->len < 20 || !is_digit(l->s[0]) || l->s[4] != '-' || l->s[7] != '-' ||
	    l->s[10] != 'T' || !is_hours_minutes(l->s + 11) || l->s[16] != ':')
		return 0;
	for (i = 17; i < l->len && !is_blank(l->s[i]); i++)
		;
	return i < l->len ? i + 1 : 0;
}

/* After "kernel:" at i in l: its blank, if any ("kernel: [", the wall message's "kernel:["). */
static Line after_kernel_tag(const Line *l, size_t i)
{
	i += strlen("kernel:");
	return line_after(l, i < l->len && is_blank(l->s[i]) ? i + 1 : i);
}

/*
 * Removes what a log file puts before the kernel's text: the "Dec  2 17:13:53 host kernel: "
 * of syslog and journalctl (any language's month names; no host in some files),
 * "2025-12-02T17:13:53+0100 host kernel: " (short-iso), "[ 3846.639479] host kernel: "
 * (short-monotonic), and the "[Tue Dec  2 17:13:53 2025] " of dmesg -T. A time, then at most
 * a host name (and a time zone) before "kernel:": the same words later in a line are text.
 * "kernel:" with nothing before it is syslog's tag alone: a journal export without the time, and
 * the message syslogd writes to every terminal (" kernel:[  116.563487] Oops: ...").
 */
static void line_strip_log_prefix(Line *l)
{
	const Line head = {l->s, MIN(l->len, (size_t)64)};
	const char *k = line_find(&head, " kernel:");
	const char *close = memchr(head.s, ']', head.len);
	size_t t;

	if (has_prefix(l, "kernel:")) {
		*l = after_kernel_tag(l, 0);
		return;
	}
	if (k) {
		size_t at = (size_t)(k - l->s);

		t = clock_time_end(l, at);
		if (t == 0 && l->s[0] == '[' && close && close < k)
			t = (size_t)(close - l->s) + 1;
		if (t > 0 && count_words(l->s + t, at - t) <= 2) {
			*l = after_kernel_tag(l, at + 1);
			return;
		}
	}
	t = dmesg_date_end(l);
	if (t > 0) {
		*l = line_after(l, t);
		return;
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
 * them, a log file's own prefix (line_strip_log_prefix()), and before all, the blanks of a
 * log pasted indented (a markdown code block, a quote in an issue).
 */
static void line_strip_prefixes(Line *l)
{
	size_t i;

	/* a time, a level, or syslogd's tag before a time (its wall message, " kernel:[  116.56]
	 * Oops: ..."); the blanks before a tag alone stay, where signatures depend on them */
	if (l->len > 0 && is_blank(l->s[0])) {
		Line rest = line_after(l, skip_blanks(l, 0));

		if (rest.len > 0 && (rest.s[0] == '[' || rest.s[0] == '<' ||
				     has_prefix(&rest, "kernel:[") || has_prefix(&rest, "kernel: [")))
			*l = rest;
	}
	line_strip_log_prefix(l);

	if (l->len > 2 && l->s[0] == '<') {
		for (i = 1; i < l->len && i <= 4 && is_digit(l->s[i]); i++)
			;
		if (i > 1 && i < l->len && l->s[i] == '>')
			*l = line_after(l, i + 1);
	}
	if (l->len > 2 && l->s[0] == '[') {
		bool dot = false, digits = false;

		/* "[  +0.000003]": dmesg -H's time since the line before */
		for (i = 1; i < l->len && (l->s[i] == ' ' || is_digit(l->s[i]) || l->s[i] == '.' ||
					   (l->s[i] == '+' && !digits));
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

/*
 * Learning the log's own prefix. Whatever wrote the log (syslog in any language, dmesg -x, a
 * relay, a console server) put the same kind of text before every
 * line. Lines that start with text the kernel prints at the start of a line (anchors) show it:
 * what stands before the anchor is the prefix. Its shape is what is kept of it: each run of
 * letters becomes 'a', each run of digits '9', blanks go, punctuation stays ("kern  :warn  :
 * [    3.078160] [      T0] " is "a:a:[9.9][a9]", "Dis  2 17:13:53 host kernel: " is
 * "a9:9:9a:"). A line that starts with a prefix of a learned shape loses it; the fixed prefixes
 * of line_strip_prefixes() are the fallback.
 */
#define PREFIX_LEN_MAX 128
#define PREFIX_SHAPE_MAX 48
#define PREFIX_SHAPES_MAX 4
#define PREFIX_ANCHOR_LINES_MAX 64

typedef struct PrefixShape {
	char s[PREFIX_SHAPE_MAX];
	size_t len;
} PrefixShape;

typedef struct PrefixShapes {
	PrefixShape shapes[PREFIX_SHAPES_MAX];
	size_t n;
} PrefixShapes;

/* Texts that the kernel prints at the start of a line, and nothing writes before them. */
static const char *const prefix_anchors[] = {
	"Call Trace:",
	"Call trace:",
	"Modules linked in:",
	"Hardware name: ",
	"RIP: 00",
	"Code: ",
	"---[ end trace ",
	"Kernel panic - not syncing",
	"------------[ cut here ]",
};

/* The class of c in a shape: 'a' for letters (and UTF-8: month names), '9' for digits, 0 for
 * blanks, which a shape leaves out, else c itself. */
static char shape_class(char c)
{
	if (is_digit(c))
		return '9';
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (unsigned char)c >= 0x80)
		return 'a';
	if (is_blank(c))
		return 0;
	return c;
}

/* The shape of the len bytes at s in *ret; false when it does not fit. */
static bool prefix_shape(const char *s, size_t len, PrefixShape *ret)
{
	PrefixShape shape = {};

	for (size_t i = 0; i < len; i++) {
		char c = shape_class(s[i]);

		if (c == 0 ||
		    (shape.len > 0 && (c == 'a' || c == '9') && shape.s[shape.len - 1] == c))
			continue;
		if (shape.len == sizeof(shape.s))
			return false;
		shape.s[shape.len++] = c;
	}
	*ret = shape;
	return true;
}

/*
 * Whether a shape can be a prefix: it ends in punctuation (a bracket, a colon: where the kernel's
 * text begins is clear) and holds a digit, a bracket or a relay's bar ("  | "), so that a word and
 * a colon at the start of the kernel's own text ("RIP: ") is never taken for one. (A mail's quote
 * marks are gone before: line_unquote().)
 */
static bool prefix_shape_valid(const PrefixShape *shape)
{
	char last;

	if (shape->len == 0)
		return false;
	last = shape->s[shape->len - 1];
	return last != 'a' && last != '9' &&
	       (memchr(shape->s, '9', shape->len) || memchr(shape->s, '[', shape->len) ||
		memchr(shape->s, '|', shape->len));
}

/* Learns the shape of l's prefix if l has an anchor; returns whether it has one. */
static bool prefix_learn_line(PrefixShapes *shapes, const Line *l)
{
	const Line head = {l->s, MIN(l->len, (size_t)PREFIX_LEN_MAX)};
	PrefixShape shape;
	const char *at;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(prefix_anchors); k++)
		if ((at = line_find(&head, prefix_anchors[k])))
			break;
	if (k == ARRAY_SIZE(prefix_anchors))
		return false;
	if (at == l->s || !prefix_shape(l->s, (size_t)(at - l->s), &shape) ||
	    !prefix_shape_valid(&shape))
		return true;
	for (k = 0; k < shapes->n; k++)
		if (shapes->shapes[k].len == shape.len &&
		    memcmp(shapes->shapes[k].s, shape.s, shape.len) == 0)
			return true;
	if (shapes->n < PREFIX_SHAPES_MAX)
		shapes->shapes[shapes->n++] = shape;
	return true;
}

/* Where a prefix of the given shape at the start of l ends, 0 if l does not start with one. */
static size_t prefix_match(const PrefixShape *shape, const Line *l)
{
	size_t k = 0, i;
	char last = 0;

	for (i = 0; i < l->len && i < PREFIX_LEN_MAX; i++) {
		char c = shape_class(l->s[i]);

		if (c == 0 || ((c == 'a' || c == '9') && c == last))
			continue;
		if (k == shape->len || shape->s[k] != c)
			break;
		last = shape->s[k++];
	}
	return k == shape->len ? i : 0;
}

/*
 * Removes a prefix of a learned shape from the start of l, or, for a shape that is a time, from
 * after a blank in its first bytes, with what stands before it: a report glued to shell output
 * ("/init: 384: .: [  271.40] Kernel panic - ...", "localhost login: [   30.77] INFO: task ..."
 * of a quoted log, line_unquote() having removed the quote marks).
 */
static void line_strip_learned_prefix(const PrefixShapes *shapes, Line *l)
{
	const Line head = {l->s, MIN(l->len, (size_t)PREFIX_LEN_MAX)};

	for (size_t k = 0; k < shapes->n; k++) {
		size_t end = prefix_match(&shapes->shapes[k], l);

		if (end > 0) {
			*l = line_after(l, end);
			return;
		}
	}
	for (size_t k = 0; k < shapes->n; k++) {
		const PrefixShape *shape = &shapes->shapes[k];

		if (shape->s[0] != '[')
			continue;
		for (const char *p = memchr(head.s, '[', head.len); p;
		     p = memchr(p + 1, '[', (size_t)(head.s + head.len - p - 1))) {
			Line rest = line_after(l, (size_t)(p - l->s));
			size_t end;

			if (p == l->s || !is_blank(p[-1]))
				continue;
			end = prefix_match(shape, &rest);
			if (end > 0) {
				*l = line_after(&rest, end);
				return;
			}
		}
	}
}

/*
 * A mail's quote marks ("> ", "> >> ", "> > > "): no kernel line starts with '>', so a line that
 * does is a quoted one, whatever the depth, and wherever the mail client wrapped it.
 */
static void line_unquote(Line *l)
{
	size_t i = 0;

	if (l->len == 0 || l->s[0] != '>')
		return;
	while (i < l->len && (l->s[i] == '>' || is_blank(l->s[i])))
		i++;
	*l = line_after(l, i);
}

/* The mark with which journalctl and systemctl status cut a line to the terminal's width. */
#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

/*
 * A line that journalctl cut to the terminal's width keeps its start and its end with "…" in
 * between ("... Tainted: P           OE     5.13.4-2…c34.x86_64 #1"): the word that holds the
 * mark is not what the kernel wrote, and a part of it would be taken for a release, a function or
 * a task. The line ends before that word.
 */
static void line_cut_at_ellipsis(Line *l)
{
	const char *at = memchr(l->s, ELLIPSIS[0], l->len);
	size_t end;

	/* memchr(), not memmem(): the lead byte is rare, and every line of the log is searched */
	while (at && (size_t)(l->s + l->len - at) >= 3 && memcmp(at, ELLIPSIS, 3) != 0)
		at = memchr(at + 1, ELLIPSIS[0], (size_t)(l->s + l->len - at - 1));
	if (!at || (size_t)(l->s + l->len - at) < 3)
		return;
	end = (size_t)(at - l->s);
	while (end > 0 && !is_blank(l->s[end - 1]))
		end--;
	l->len = end;
	line_trim(l);
}

/* A panic glued to a shell prompt or output: "root@bmc:~# Kernel panic - not syncing: ...". */
static void line_skip_to_panic(Line *l)
{
	const char *at;

	if (has_prefix(l, PANIC_TEXT) || has_prefix(l, END_MARKER))
		return;
	at = line_find(l, " " PANIC_TEXT);
	if (at)
		*l = line_after(l, (size_t)(at - l->s) + 1);
}

int split_lines(const char *log, size_t len, Line **ret, size_t *ret_n, LineCounts *ret_counts)
{
	size_t n = 0, allocated = 1, anchors = 0, prefixed = 0, texts = 0;
	PrefixShapes shapes = {};
	bool glued, cut;
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
		line_unquote(&lines[n]);
		lines[n++].flowed = e > i && log[e - 1] == ' ';
		i = e + 1;
	}
	for (size_t i = 0; i < n && anchors < PREFIX_ANCHOR_LINES_MAX; i++)
		anchors += prefix_learn_line(&shapes, &lines[i]);
	glued = log_contains(log, len, " " PANIC_TEXT);
	cut = log_contains(log, len, ELLIPSIS);
	for (size_t i = 0; i < n; i++) {
		Line raw = lines[i];
		bool flowed = raw.flowed;

		line_strip_learned_prefix(&shapes, &lines[i]);
		line_strip_prefixes(&lines[i]);
		if (glued)
			line_skip_to_panic(&lines[i]);
		if (cut)
			line_cut_at_ellipsis(&lines[i]);
		lines[i].flowed = flowed;
		line_trim(&raw);
		lines[i].bare = lines[i].s == raw.s;
		texts += raw.len > 0;
		prefixed += !lines[i].bare;
	}
	*ret = lines;
	*ret_n = n;
	*ret_counts = (LineCounts){texts, prefixed};
	return 0;
}
