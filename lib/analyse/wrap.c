/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Joining the lines that a console, a mail client or a copy and paste wrapped: a line is joined to
 * the next by what it lacks (a task line without its version, an instruction pointer without its
 * function, a decoded source without its closing parenthesis), never by its length.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"

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

/* How many more '(' than ')' l has. */
static int paren_balance(const Line *l)
{
	int open = 0;

	for (size_t i = 0; i < l->len; i++)
		open += (l->s[i] == '(') - (l->s[i] == ')');
	return open;
}

/* The rest of a decoded source ("(fs/x.c:225" went on): its first word a file and a line
 * ("fs/x.c:322", "drivers/block/loop.c:917)"), or "(discriminator 1)". */
static bool is_source_rest(const Line *l)
{
	size_t end = 0;
	const char *colon;

	if (has_prefix(l, "(discriminator") || has_prefix(l, "discriminator"))
		return true;
	while (end < l->len && !is_blank(l->s[end]))
		end++;
	colon = memchr(l->s, ':', end);
	return colon && colon + 1 < l->s + end && is_digit(colon[1]) &&
	       memchr(l->s, '.', (size_t)(colon - l->s));
}

/* A symbol with its offset and size at the end of l: "func+0x43/0x183". */
static bool ends_with_offset(const Line *l)
{
	const char *plus = l->len > 0 ? memrchr(l->s, '+', l->len) : NULL;
	Symbol sym;

	return plus && !memchr(plus, ' ', (size_t)(l->s + l->len - plus)) &&
	       parse_symbol(&(Line){plus - 1, (size_t)(l->s + l->len - plus + 1)}, &sym) &&
	       sym.have_offset;
}

/* A module alone at the start of l, "[dvb_core]", followed by the end or a word: the rest of a
 * frame or an instruction pointer ("EIP: [<f8cec1b2>] dvb_demux_release+0x43/0x183" and
 * "[dvb_core] SS:ESP 0068:e7935f58"), or in a log whose lines have a prefix, of a frame that
 * was itself cut before ("submit_channel_request+0x3fd/0x=", "780", "[amdgpu]"). */
static bool is_module_rest(const Line *l)
{
	size_t i = 1;

	if (l->len < 3 || l->s[0] != '[')
		return false;
	while (i < l->len && (is_hex(l->s[i]) || l->s[i] == '_' || l->s[i] == '-' ||
			      (l->s[i] >= 'a' && l->s[i] <= 'z')))
		i++;
	if (i == 1 || i >= l->len || l->s[i] != ']')
		return false;
	i = skip_blanks(l, i + 1);
	return i == l->len || (l->s[i] != '[' && i > 0 && is_blank(l->s[i - 1]));
}

/*
 * An arm frame cut before the function it was called from ends: "[<c0283c30>]
 * (sock_sendmsg+0xa0/0xc4) from [<bf01837c>]" and "(SendCanTime+0x10c/0x180 [cantime])",
 * "[<bf014234>] (cinergyt2_submit_stream_urb+0x0/0xa4 [cinergyT2]) from" and "[<bf0143f4>]
 * (...)", "[<bf003e80>] (dmx_section_feed_start_filtering+0x0/0x19c [dvb_core])" and "from
 * [<bf0016e8>] (...)". A whole frame ends with the caller's ')'.
 */
static bool is_cut_arm_frame(const Line *first, const Line *second)
{
	return has_prefix(first, "[<") && line_find(first, ">] (") && !line_ends_with(first, ")") &&
	       (second->s[0] == '(' || has_prefix(second, "[<"));
}

static bool is_arm_frame_rest(const Line *first, const Line *second)
{
	return has_prefix(first, "[<") && line_find(first, ">] (") && line_ends_with(first, ")") &&
	       !line_find(first, ") from [<") && has_prefix(second, "from [<");
}

/* How a line goes on in the next one, when a console, a mail client or a copy and paste
 * wrapped it. */
typedef enum Wrap {
	WRAP_NONE,
	WRAP_BLANK, /* the two joined with a blank */
	WRAP_GLUE,  /* joined as they are: a number or a word cut in two */
} Wrap;

/*
 * Lines are joined by what the first lacks, never by its length: a task line without its taint
 * or version, die()'s "Oops: general protection fault, probably for non-canonical address"
 * without its count ("0xdffffc0000000003: 0000 [#1] SMP"), an instruction pointer without its
 * function ("RIP: 0010:" and "func+0x2d6/0xbe0 [mod]"). (A quoted-printable mail's soft line
 * breaks are gone before: decode_quoted_printable().)
 */
static Wrap line_wrap(const Line *first, const Line *second, bool prefixed, bool continuing,
		      bool in_warning, int open_before)
{
	if (second->len == 0)
		return WRAP_NONE;
	/* a parenthesis left open ("pc : func (include/linux/list.h:195", "pstate: 224020c9
	 * (nzCv daIF +PAN -UAO +TCO -DIT"): the rest of a decoded source, or in a log whose lines
	 * have a prefix, whatever comes on lines without one */
	if ((prefixed ? second->bare : is_source_rest(second)) &&
	    open_before + paren_balance(first) > 0)
		return WRAP_BLANK;
	/* a line whose text went to the next, which lacks the prefix: "[55669.831715]" and
	 * "nv50_vmm_flush+0x1f1/0x220 [nouveau]", "?" and "enqueue_task_fair+0x8e/0x690" */
	if (prefixed && !first->bare && second->bare && (first->len == 0 || line_is(first, "?")))
		return first->len == 0 ? WRAP_GLUE : WRAP_BLANK;
	/* a decoded frame whose source went to the next line: "run_timer_softirq" and
	 * "(arch/arm64/include/asm/jump_label.h:36 kernel/time/timer.c:342" */
	if (second->s[0] == '(' && is_single_token(first) &&
	    is_source_rest(&(Line){second->s + 1, second->len - 1}))
		return WRAP_BLANK;
	/* "BUG: soft lockup - CPU#10 stuck for" and "24s! [kworker/10:0:18995]" */
	if ((has_prefix(first, "BUG: soft lockup") ||
	     has_prefix(first, "watchdog: BUG: soft lockup") ||
	     has_prefix(first, "NMI watchdog: BUG: soft lockup")) &&
	    !line_find(first, "s! [") && line_find(second, "s! ["))
		return WRAP_BLANK;
	if (is_module_rest(second) && (ends_with_offset(first) || (prefixed && second->bare)))
		return WRAP_BLANK;
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
	if (is_cut_arm_frame(first, second) || is_arm_frame_rest(first, second))
		return WRAP_BLANK;
	/* "RIP:" alone, and "0010:func+0x2d6/0xbe0 [mod]" on the next line */
	if (line_is(first, "RIP:") || line_is(first, "EIP:")) {
		size_t i = skip_hex(second, 0);
		Line rest;

		if (i == 4 && i < second->len && second->s[i] == ':')
			i++;
		else
			i = 0;
		rest = line_after(second, i);
		return parse_symbol(&rest, &(Symbol){}) ? WRAP_BLANK : WRAP_NONE;
	}
	if (has_prefix(first, "RIP: ") && first->len == 10 && first->s[first->len - 1] == ':')
		return parse_symbol(second, &(Symbol){}) ? WRAP_GLUE : WRAP_NONE;
	return WRAP_NONE;
}

/*
 * Joins the lines that a console, a mail client or a copy and paste wrapped, in a buffer of their
 * own (*ret_buf, NULL when there are none) that the joined lines point into; a joined line leaves
 * an empty one behind it, marked continued. *ret_joined: how many lines were joined to another.
 */
int join_wrapped_lines(Line *lines, size_t n, bool prefixed, char **ret_buf, size_t *ret_joined)
{
	_cleanup_free_ Wrap *wraps = NULL;
	size_t size = 0, o = 0, chain = 0, joins = 0;
	int open = 0;
	char *buf;

	*ret_buf = NULL;
	*ret_joined = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		bool continuing = i > 0 && wraps && wraps[i - 1] != WRAP_NONE;
		bool in_warning = continuing && has_prefix(&lines[i - 1], "WARNING: ");
		Wrap w;

		/* the parentheses left open by the lines of the chain before this one: a chain
		 * that is long already takes no more */
		if (!continuing)
			open = 0, chain = 0;
		chain += lines[i].len;
		w = line_wrap(&lines[i], &lines[i + 1], prefixed, continuing, in_warning,
			      chain < TEXT_MAX_LEN * 2 ? open : INT_MIN / 2);
		if (w != WRAP_NONE)
			open += paren_balance(&lines[i]);

		if (w == WRAP_NONE)
			continue;
		if (!wraps) {
			wraps = calloc(n, sizeof(Wrap));
			if (!wraps)
				return -ENOMEM;
		}
		wraps[i] = w;
		joins++;
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
			if (wraps[k] == WRAP_BLANK)
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
	*ret_joined = joins;
	return 0;
}
