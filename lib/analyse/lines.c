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

/*
 * Learning the log's own prefix. Whatever wrote the log (syslog in any language, dmesg -x, a
 * relay, a mail client's quoting, a console server) put the same kind of text before every
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
 * text begins is clear) and holds a digit, a bracket or a quote mark ("> ", "  | "), so that a word and a colon
 * at the start of the kernel's own text ("RIP: ") is never taken for one.
 */
static bool prefix_shape_valid(const PrefixShape *shape)
{
	char last;

	if (shape->len == 0)
		return false;
	last = shape->s[shape->len - 1];
	return last != 'a' && last != '9' &&
	       (memchr(shape->s, '9', shape->len) || memchr(shape->s, '[', shape->len) ||
		memchr(shape->s, '>', shape->len) || memchr(shape->s, '|', shape->len));
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
 * The time part of a shape that is a time, maybe after quote marks ("[9.9]", ">[9.9]" of
 * "> [  30.77] "), in *ret, and how many quote marks stand before it; -1 if it is not that.
 */
static int prefix_time_shape(const PrefixShape *shape, PrefixShape *ret)
{
	size_t quotes = 0;

	while (quotes < shape->len && shape->s[quotes] == '>')
		quotes++;
	if (quotes == shape->len || shape->s[quotes] != '[')
		return -1;
	*ret = (PrefixShape){.len = shape->len - quotes};
	memcpy(ret->s, shape->s + quotes, ret->len);
	return (int)quotes;
}

/*
 * Removes a prefix of a learned shape from the start of l, or, for a shape that is a time (maybe
 * quoted), from after a blank in its first bytes, with what stands before it: a report glued to
 * shell output ("/init: 384: .: [  271.40] Kernel panic - ...", "> localhost login: [   30.77]
 * INFO: task ...").
 */
static void line_strip_learned_prefix(const PrefixShapes *shapes, Line *l)
{
	for (size_t k = 0; k < shapes->n; k++) {
		size_t end = prefix_match(&shapes->shapes[k], l);

		if (end > 0) {
			*l = line_after(l, end);
			return;
		}
	}
	for (size_t k = 0; k < shapes->n; k++) {
		PrefixShape time;
		int quotes = prefix_time_shape(&shapes->shapes[k], &time);
		Line body = *l, head;

		if (quotes < 0)
			continue;
		while (quotes > 0 && body.len > 0 && (body.s[0] == '>' || is_blank(body.s[0])))
			body = line_after(&body, 1);
		head = (Line){body.s, MIN(body.len, (size_t)PREFIX_LEN_MAX)};
		for (const char *p = memchr(head.s, '[', head.len); p;
		     p = memchr(p + 1, '[', (size_t)(head.s + head.len - p - 1))) {
			Line rest = line_after(&body, (size_t)(p - body.s));
			size_t end;

			if (p == body.s || !is_blank(p[-1]))
				continue;
			end = prefix_match(&time, &rest);
			if (end > 0) {
				*l = line_after(&rest, end);
				return;
			}
		}
	}
}

/*
 * In a mail that quotes the log ("> [  291.2] ...", "> >> "), the quote marks of the lines that
 * have no time: the rest of a line the mail client wrapped.
 */
static void line_unquote(Line *l)
{
	size_t i = 0;

	while (i < l->len && (l->s[i] == '>' || is_blank(l->s[i])))
		i++;
	if (i > 0 && l->s[0] == '>')
		*l = line_after(l, i);
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

int split_lines(const char *log, size_t len, Line **ret, size_t *ret_n, bool *ret_prefixed)
{
	size_t n = 0, allocated = 1, anchors = 0, prefixed = 0, texts = 0;
	PrefixShapes shapes = {};
	bool glued, quoted = false;
	Line *lines;

	for (size_t i = 0; i < len; i++)
		allocated += log[i] == '\n';
	lines = calloc(allocated, sizeof(Line));
	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(log + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - log) : len;

		lines[n++] = (Line){log + i, e - i};
		i = e + 1;
	}
	for (size_t i = 0; i < n && anchors < PREFIX_ANCHOR_LINES_MAX; i++)
		anchors += prefix_learn_line(&shapes, &lines[i]);
	glued = log_contains(log, len, " " PANIC_TEXT);
	for (size_t k = 0; k < shapes.n; k++)
		quoted = quoted || shapes.shapes[k].s[0] == '>';
	for (size_t i = 0; i < n; i++) {
		Line raw = lines[i];

		line_strip_learned_prefix(&shapes, &lines[i]);
		line_strip_prefixes(&lines[i]);
		if (quoted)
			line_unquote(&lines[i]);
		if (glued)
			line_skip_to_panic(&lines[i]);
		lines[i].flowed = raw.len > 0 && raw.s[raw.len - 1] == ' ';
		line_trim(&raw);
		lines[i].bare = lines[i].s == raw.s;
		texts += raw.len > 0;
		prefixed += !lines[i].bare;
	}
	*ret = lines;
	*ret_n = n;
	*ret_prefixed = prefixed > texts / 2;
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
 * in its taint columns ("... Tainted: G " and "       O      5.4.51 #1"), or before its version
 * ("... Comm: syz.0.0 Not tainted" and "6.13.0-rc5 #0").
 */
static bool is_wrapped_task_line(const Line *first, const Line *second)
{
	const char *taint;
	size_t at;

	if (!has_prefix(first, "CPU: ") || !line_find(first, " PID:") ||
	    has_prefix(second, "CPU: "))
		return false;
	/* cut inside the version: "... Not tainted 5.14.0-rc2-" and "00001-g8cae8cd89f05 #134" */
	if ((line_find(first, "tainted ") || line_find(first, "Tainted: ")) &&
	    !line_find(first, " #") && line_ends_with(first, "-") && line_find(second, " #"))
		return true;
	taint = line_find(first, " Tainted: ");
	if (!taint) {
		if (first->len > 12 && memcmp(first->s + first->len - 12, " Not tainted", 12) == 0)
			return second->len > 0 && is_digit(second->s[0]);
		return !line_find(first, "ainted") &&
		       (line_find(second, " tainted") || line_find(second, "Tainted:") ||
			(has_prefix(second, "tainted ") && first->len > 4 &&
			 memcmp(first->s + first->len - 4, " Not", 4) == 0));
	}
	at = (size_t)(taint - first->s) + strlen(" Tainted: ");
	if (skip_taint_columns(first, at) < first->len)
		return false;
	at = skip_taint_columns(second, 0);
	return at < second->len && is_digit(second->s[at]);
}

/*
 * A frame cut inside its offset and size: "intel_atomic_commit+0x338/0x" or "...+0x33", the
 * rest ("380 [i915]", "8/0x380") on the next line.
 */
static bool is_cut_frame(const Line *l)
{
	const char *plus = l->len > 0 ? memrchr(l->s, '+', l->len) : NULL;
	const char *slash;
	Line rest;

	if (!plus || memchr(plus, ' ', (size_t)(l->s + l->len - plus)))
		return false;
	rest = (Line){plus, (size_t)(l->s + l->len - plus)};
	if (!has_prefix(&rest, "+0x"))
		return false;
	slash = memchr(rest.s, '/', rest.len);
	if (!slash)
		return true; /* "+0x33": the rest of the offset or the size on the next line */
	return rest.s + rest.len - slash <= 3; /* "/", "/0", "/0x" */
}

static bool is_single_token(const Line *l)
{
	return l->len > 0 && !memchr(l->s, ' ', l->len);
}

/* The rest of a WARNING line: its file:line, its function, or both ("lib/refcount.c:28
 * refcount_warn_saturate+0xd9/0xe0"). */
static bool is_warning_rest(const Line *l)
{
	const char *blank = memchr(l->s, ' ', l->len);

	if (is_single_token(l) || parse_symbol(l, &(Symbol){}))
		return true;
	if (!blank || !memchr(l->s, ':', (size_t)(blank - l->s)))
		return false;
	return parse_symbol(&(Line){blank + 1, (size_t)(l->s + l->len - blank - 1)}, &(Symbol){});
}

/* How a line goes on in the next one, when a console, a mail client or a copy and paste
 * wrapped it. */
typedef enum Wrap {
	WRAP_NONE,
	WRAP_BLANK, /* the two joined with a blank */
	WRAP_GLUE,  /* joined as they are: a number or a word cut in two */
	WRAP_SOFT,  /* a quoted-printable soft line break: the '=' at the end goes */
} Wrap;

/*
 * Lines are joined by what the first lacks, never by its length: a task line without its taint
 * or version, die()'s "Oops: general protection fault, probably for non-canonical address"
 * without its count ("0xdffffc0000000003: 0000 [#1] SMP"), an instruction pointer without its
 * function ("RIP: 0010:" and "func+0x2d6/0xbe0 [mod]"); and in a quoted-printable mail (qp), a
 * line that ends with '='.
 */
static Wrap line_wrap(const Line *first, const Line *second, bool qp, bool prefixed,
		      bool continuing, bool in_warning)
{
	if (second->len == 0)
		return WRAP_NONE;
	/* format=flowed: a line that ends with a blank goes on in the next, which lacks the
	 * prefix every line of the log has */
	if (first->flowed && prefixed && second->bare && (!first->bare || continuing))
		return WRAP_BLANK;
	/* a WARNING without its function: "WARNING: CPU: 3 PID: 201 at", then
	 * "drivers/gpu/drm/i915/display/intel_display.c:7104", then
	 * "intel_atomic_commit_tail+0x13e2/0x1480 [i915]" */
	if ((in_warning ? is_single_token(first) : has_prefix(first, "WARNING: CPU: ")) &&
	    !line_find(first, "+0x") && is_warning_rest(second))
		return WRAP_BLANK;
	if (qp && first->len > 0 && first->s[first->len - 1] == '=')
		return WRAP_SOFT;
	if (is_wrapped_task_line(first, second))
		return (first->len > 0 && is_digit(first->s[first->len - 1]) &&
			is_digit(second->s[0])) ||
				       line_ends_with(first, "-")
			       ? WRAP_GLUE
			       : WRAP_BLANK;
	if (has_prefix(first, "Oops: ") && !memmem(first->s, first->len, "[#", 2) &&
	    line_find(second, " [#"))
		return WRAP_BLANK;
	if (is_cut_frame(first) && (is_hex(second->s[0]) || second->s[0] == '/'))
		return WRAP_GLUE;
	/* "BUG: KASAN: invalid-access in" and "bpf_patch_insn_data+0x25c/0x378"; "... by" and
	 * "task netbpfload/762" */
	if ((has_prefix(first, "BUG: ") && line_ends_with(first, " in")) ||
	    (line_ends_with(first, " by") && has_prefix(second, "task ")))
		return WRAP_BLANK;
	/* an arm frame without the function it was called from: "[<c0283c30>] (sock_sendmsg+0xa0/0xc4)
	 * from [<bf01837c>]" and "(SendCanTime+0x10c/0x180 [cantime])" */
	if (line_ends_with(first, ">]") && line_find(first, ") from [<") && second->s[0] == '(')
		return WRAP_BLANK;
	if (line_is(first, "RIP:") ||
	    (has_prefix(first, "RIP: ") && first->len == 10 && first->s[first->len - 1] == ':'))
		return parse_symbol(second, &(Symbol){}) ? WRAP_GLUE : WRAP_NONE;
	return WRAP_NONE;
}

/*
 * Joins the lines that a console, a mail client or a copy and paste wrapped, in a buffer of their
 * own (*ret_buf, NULL when there are none) that the joined lines point into; a joined line leaves
 * an empty one behind it, marked continued.
 */
int join_wrapped_lines(Line *lines, size_t n, bool qp, bool prefixed, char **ret_buf)
{
	_cleanup_free_ Wrap *wraps = NULL;
	size_t size = 0, o = 0;
	char *buf;

	*ret_buf = NULL;
	for (size_t i = 0; i + 1 < n; i++) {
		bool continuing = i > 0 && wraps && wraps[i - 1] != WRAP_NONE;
		bool in_warning = continuing && has_prefix(&lines[i - 1], "WARNING: ");
		Wrap w = line_wrap(&lines[i], &lines[i + 1], qp, prefixed, continuing, in_warning);

		if (w == WRAP_NONE)
			continue;
		if (!wraps) {
			wraps = calloc(n, sizeof(Wrap));
			if (!wraps)
				return -ENOMEM;
		}
		wraps[i] = w;
		size += lines[i].len + 1 + lines[i + 1].len;
	}
	if (size == 0)
		return 0;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i + 1 < n; i++) {
		char *joined = buf + o;
		size_t k = i;

		if (wraps[i] == WRAP_NONE)
			continue;
		/* a chain: each line that goes on in the next */
		memcpy(buf + o, lines[i].s, lines[i].len);
		o += lines[i].len;
		for (; k + 1 < n && wraps[k] != WRAP_NONE; k++) {
			if (wraps[k] == WRAP_SOFT)
				o--;
			else if (wraps[k] == WRAP_BLANK)
				buf[o++] = ' ';
			memcpy(buf + o, lines[k + 1].s, lines[k + 1].len);
			o += lines[k + 1].len;
			lines[k + 1].len = 0;
			lines[k + 1].continued = true;
		}
		lines[i] = (Line){joined, (size_t)(buf + o - joined)};
		i = k;
	}
	*ret_buf = buf;
	return 0;
}
