/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Undoing what carried the log before its lines are read: a mail's quoted-printable encoding, a
 * terminal's escape sequences, a web page's HTML entities. Each is one pass over the log into a
 * copy, made only when the log shows the encoding.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyse-internal.h"

static int hex_value(char c)
{
	return is_digit(c) ? c - '0' : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
}

/*
 * Whether the log is the body of a quoted-printable mail: "=3D" for '=', "=20" for a blank at the
 * end of a line, or soft line breaks ('=' at the end of a line, not in a KASAN rule of '=') on
 * several lines, which no kernel line ends with.
 */
static bool is_quoted_printable(const char *log, size_t len)
{
	size_t soft_breaks = 0;

	/* An empty log may be NULL, which memmem() must not get. */
	if (len < 2)
		return false;
	if (log_contains(log, len, "=3D") || log_contains(log, len, "=20\n"))
		return true;
	for (const char *p = memmem(log, len, "=\n", 2); p && soft_breaks < 3;
	     p = memmem(p + 2, (size_t)(log + len - p - 2), "=\n", 2))
		soft_breaks += p == log || p[-1] != '=';
	return soft_breaks >= 3;
}

/*
 * What stands at a mark byte of the log, rewritten into out (at *k): returns where the log goes on
 * after it.
 */
typedef size_t (*rewrite_mark_fn)(const char *log, size_t len, size_t i, char *out, size_t *k);

/* A copy of the log in *ret in which what stands at each mark byte is rewritten by fn. */
static int rewrite_log(const char *log, size_t len, char mark, rewrite_mark_fn fn, char **ret,
		       size_t *ret_len)
{
	size_t k = 0;
	char *out = malloc(len + 1);

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		const char *at = memchr(log + i, mark, len - i);
		size_t run = at ? (size_t)(at - log) - i : len - i;

		memcpy(out + k, log + i, run);
		k += run;
		i += run;
		if (at)
			i = fn(log, len, i, out, &k);
	}
	out[k] = '\0';
	*ret = out;
	*ret_len = k;
	return 0;
}

/* A soft line break ("=" at the end of a line) joins the line to the next, "=XX" is byte XX. */
static size_t rewrite_quoted_printable(const char *log, size_t len, size_t i, char *out, size_t *k)
{
	if (i + 1 < len && log[i + 1] == '\n')
		return i + 2;
	if (i + 2 < len && hex_value(log[i + 1]) >= 0 && hex_value(log[i + 2]) >= 0) {
		out[(*k)++] = (char)(hex_value(log[i + 1]) << 4 | hex_value(log[i + 2]));
		return i + 3;
	}
	out[(*k)++] = log[i];
	return i + 1;
}

/*
 * A quoted-printable mail's body decoded (*ret, NULL when the log is not one). A task line cut
 * by a soft break after blanks written "=20" is whole again.
 */
int decode_quoted_printable(const char *log, size_t len, char **ret, size_t *ret_len)
{
	*ret = NULL;
	if (!is_quoted_printable(log, len))
		return 0;
	return rewrite_log(log, len, '=', rewrite_quoted_printable, ret, ret_len);
}

/* A control sequence goes: ESC '[', parameter bytes (0x30-0x3f), intermediate bytes (0x20-0x2f)
 * and a final byte (0x40-0x7e). */
static size_t rewrite_terminal_escape(const char *log, size_t len, size_t i, char *out, size_t *k)
{
	size_t j = i + 2;

	if (i + 1 < len && log[i + 1] == '[') {
		while (j < len && log[j] >= 0x20 && log[j] <= 0x3f)
			j++;
		if (j < len && log[j] >= 0x40 && log[j] <= 0x7e)
			return j + 1;
	}
	out[(*k)++] = log[i];
	return i + 1;
}

/*
 * The log without the escape sequences of a terminal (*ret, NULL when it has none): dmesg
 * --color=always writes "\x1b[32m[    1.234567] \x1b[0m" and colours the subsystem before the
 * first ": " of a message ("\x1b[33mRIP\x1b[0m: 0010:..."), a serial console captures those of
 * the programs that share it.
 */
int strip_terminal_escapes(const char *log, size_t len, char **ret, size_t *ret_len)
{
	*ret = NULL;
	if (!log_contains(log, len, "\x1b["))
		return 0;
	return rewrite_log(log, len, '\x1b', rewrite_terminal_escape, ret, ret_len);
}

/* An HTML entity that a web page or its copy wrote for a character of the log. */
static size_t rewrite_html_entity(const char *log, size_t len, size_t i, char *out, size_t *k)
{
	static const struct {
		const char *entity;
		char c;
	} entities[] = {
		{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&#39;", '\''},
	};

	for (size_t e = 0; e < ARRAY_SIZE(entities); e++) {
		size_t n = strlen(entities[e].entity);

		if (len - i >= n && memcmp(log + i, entities[e].entity, n) == 0) {
			out[(*k)++] = entities[e].c;
			return i + n;
		}
	}
	out[(*k)++] = log[i];
	return i + 1;
}

/*
 * The log with the HTML entities of a web page decoded (*ret, NULL when it has none): a trace
 * copied from a page's source or an escaped archive reads "&lt;IRQ&gt;" and
 * "[&lt;ffffffff8104d0ab&gt;] warn_slowpath_common+0x7f/0xc0", which no frame parser knows.
 */
int decode_html_entities(const char *log, size_t len, char **ret, size_t *ret_len)
{
	*ret = NULL;
	if (!log_contains(log, len, "&lt;") && !log_contains(log, len, "&gt;"))
		return 0;
	return rewrite_log(log, len, '&', rewrite_html_entity, ret, ret_len);
}
