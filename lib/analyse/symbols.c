/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading symbols as each architecture and era prints them: frames ("func+0x2a/0x90 [mod]",
 * powerpc's address groups, arm's "(func) from (caller+0x6c/0x120)", x86-64 2.6's
 * "<ffffffff80123456>{:mod:func+44}", decoded "func (fs/x.c:225)"), the instruction pointer lines,
 * and the function that a report's first line names.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"

/*
 * Parses "+0xOFF/0xSIZE" at i in l into sym; returns where it ends, 0 if it is not there. Numbers
 * of more than 16 digits are not offsets.
 */
static size_t parse_offset_size(const Line *l, size_t i, Symbol *sym)
{
	uint64_t v[2] = {};
	static const char *const marks[] = {"+0x", "/0x"};

	for (size_t k = 0; k < ARRAY_SIZE(marks); k++) {
		size_t start;

		if (i + 3 > l->len || memcmp(l->s + i, marks[k], 3) != 0)
			return 0;
		start = i += 3;
		for (; i < l->len && is_hex(l->s[i]); i++) {
			char c = l->s[i];

			v[k] = v[k] << 4 |
			       (uint64_t)(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
		}
		if (i == start || i - start > 16)
			return 0;
	}
	sym->have_offset = true;
	sym->offset = v[0];
	sym->size = v[1];
	return i;
}

/*
 * After a function name at i, the source of a trace that scripts/decode_stacktrace.sh decoded:
 * " (fs/x.c:225 fs/x.c:322)", a file (with a dot) and a line number, or " (??:?)" when it found
 * none. Returns where it ends, after the ")", 0 if it is not that.
 */
static size_t decoded_source_end(const Line *l, size_t i)
{
	const char *colon;
	size_t depth = 0, j;

	if (i + 2 >= l->len || l->s[i] != ' ' || l->s[i + 1] != '(')
		return 0;
	/* "(??:?)": addr2line found no source for it */
	if (l->len - i >= 7 && memcmp(l->s + i + 1, "(??:?)", 6) == 0)
		return i + 7;
	/* "(kernel/sched/core.c:7244 (discriminator 13))" */
	for (j = i + 1; j < l->len; j++) {
		depth += l->s[j] == '(';
		depth -= l->s[j] == ')';
		if (depth == 0)
			break;
	}
	colon = memchr(l->s + i, ':', l->len - i);
	if (j == l->len || !colon || (size_t)(colon - l->s) > j || !is_digit(colon[1]) ||
	    !memchr(l->s + i, '.', (size_t)(colon - l->s) - i))
		return 0;
	return j + 1;
}

/* The module after a decoded source: the one word that ends the line, if there is one. */
static Line decoded_module(const Line *l, size_t i)
{
	size_t start = skip_blanks(l, i), end = start;

	while (end < l->len && !is_blank(l->s[end]))
		end++;
	/* "(P)": arm64's mark of a frame taken from saved registers, since 6.14 */
	if (end == start || skip_blanks(l, end) < l->len || end - start > NAME_MAX_LEN ||
	    l->s[start] == '(')
		return (Line){};
	return (Line){l->s + start, end - start};
}

/*
 * x86-64 before 2.6.2x: "<ffffffffa00a8f0c>{:ext3:ext3_journal_start_sb+44}", the module between
 * colons and the offset in decimal (or "{func+0x2c/0x90}"), several frames to a trace line.
 * Returns where the frame at i ends, after the '}', 0 if it is not one.
 */
static size_t parse_brace_symbol(const Line *l, size_t i, Symbol *ret)
{
	Symbol sym = {};
	size_t start, j;
	uint64_t off = 0;

	if (i >= l->len || l->s[i] != '<')
		return 0;
	j = skip_hex(l, i + 1);
	if (j == i + 1 || j + 2 >= l->len || l->s[j] != '>' || l->s[j + 1] != '{')
		return 0;
	i = j + 2;
	if (l->s[i] == ':') {
		start = ++i;
		while (i < l->len && l->s[i] != ':' && l->s[i] != '}' && i - start <= NAME_MAX_LEN)
			i++;
		if (i >= l->len || l->s[i] != ':' || i == start || i - start > NAME_MAX_LEN)
			return 0;
		sym.module = (Line){l->s + start, i - start};
		i++;
	}
	start = i;
	while (i < l->len && l->s[i] != '+' && l->s[i] != '}' && !is_blank(l->s[i]) &&
	       i - start <= NAME_MAX_LEN)
		i++;
	if (i >= l->len || l->s[i] != '+' || i == start || i - start > NAME_MAX_LEN)
		return 0;
	sym.name = (Line){l->s + start, i - start};
	j = parse_offset_size(l, i, &sym);
	if (j == 0) {
		/* "+44": decimal, and no size */
		for (j = i + 1; j < l->len && is_digit(l->s[j]) && j - i <= 16; j++)
			off = off * 10 + (uint64_t)(l->s[j] - '0');
		if (j == i + 1 || j - i > 16)
			return 0;
	}
	if (j >= l->len || l->s[j] != '}')
		return 0;
	*ret = sym;
	return j + 1;
}

/*
 * i386 from 2.6.17 to 2.6.19, two frames to a trace line: "<e014341a> snapshot_dtr+0x9c/0xd3
 * [dm_snapshot]". Returns where the frame at i ends, 0 if it is not one.
 */
static size_t parse_angle_symbol(const Line *l, size_t i, Symbol *ret)
{
	Symbol sym = {};
	size_t start, j = skip_hex(l, i + 1);

	if (j == i + 1 || j + 2 >= l->len || l->s[j] != '>' || l->s[j + 1] != ' ')
		return 0;
	start = i = j + 2;
	while (i < l->len && l->s[i] != '+' && !is_blank(l->s[i]) && i - start <= NAME_MAX_LEN)
		i++;
	if (i == start || i - start > NAME_MAX_LEN)
		return 0;
	sym.name = (Line){l->s + start, i - start};
	i = parse_offset_size(l, i, &sym);
	if (i == 0)
		return 0;
	if (i + 1 < l->len && l->s[i] == ' ' && l->s[i + 1] == '[') {
		start = j = i + 2;
		while (j < l->len && l->s[j] != ']' && !is_blank(l->s[j]) &&
		       j - start <= NAME_MAX_LEN)
			j++;
		if (j < l->len && l->s[j] == ']' && j > start && j - start <= NAME_MAX_LEN) {
			sym.module = (Line){l->s + start, j - start};
			i = j + 1;
		}
	}
	*ret = sym;
	return i;
}

/*
 * A frame in angle brackets at i in l, of x86-64 before 2.6.2x ("<ffffffff8016dfdc>{bio_free+48}")
 * or of i386 2.6.17 ("<e014341a> snapshot_dtr+0x9c/0xd3 [dm_snapshot]"), several to a trace
 * line. Returns where it ends, 0 if it is not one.
 */
size_t parse_angle_frame(const Line *l, size_t i, Symbol *ret)
{
	size_t end;

	if (i >= l->len || l->s[i] != '<')
		return 0;
	end = parse_brace_symbol(l, i, ret);
	return end > 0 ? end : parse_angle_symbol(l, i, ret);
}

/*
 * Parses a stack frame or instruction pointer: optional address groups
 * ("[<ffffffff8100>]", "[c000000000123456]"), an optional "? ", then
 * "name+0xOFF/0xSIZE", an optional " [module]" and an optional
 * " (unreliable)". Returns false if l is not that.
 */
bool parse_symbol(const Line *l, Symbol *ret)
{
	Symbol sym = {};
	size_t i = skip_blanks(l, 0), start, j;

	for (int groups = 0; groups < 3 && i < l->len && l->s[i] == '['; groups++) {
		j = i + 1;
		if (j < l->len && l->s[j] == '<')
			j++;
		j = skip_hex(l, j);
		if (j < l->len && l->s[j] == '>')
			j++;
		if (j >= l->len || l->s[j] != ']' || j == i + 1)
			break;
		i = skip_blanks(l, j + 1);
	}
	if (i < l->len && l->s[i] == '<')
		return parse_angle_frame(l, i, ret) > 0;
	if (i + 1 < l->len && l->s[i] == '?' && l->s[i + 1] == ' ') {
		sym.unreliable = true;
		i = skip_blanks(l, i + 2);
	}
	if (i < l->len && l->s[i] == '.') /* powerpc64 ELFv1 dot symbols */
		i++;

	start = i;
	while (i < l->len && !is_blank(l->s[i]) && l->s[i] != '+' && l->s[i] != '(' &&
	       l->s[i] != '[' && i - start <= NAME_MAX_LEN)
		i++;
	if (i == start || i - start > NAME_MAX_LEN)
		return false;
	sym.name = (Line){l->s + start, i - start};

	j = parse_offset_size(l, i, &sym);
	if (j == 0) {
		/* decoded: "func (fs/x.c:225 fs/x.c:322) module", no offset */
		j = decoded_source_end(l, i);
		if (j == 0)
			return false;
		sym.module = decoded_module(l, j);
		*ret = sym;
		return true;
	}
	i = skip_blanks(l, j);
	if (i < l->len && l->s[i] == '[') {
		start = ++i;
		while (i < l->len && l->s[i] != ']' && !is_blank(l->s[i]))
			i++;
		if (i > start && i - start <= NAME_MAX_LEN)
			sym.module = (Line){l->s + start, i - start};
	}
	if (memmem(l->s + i, l->len - i, "(unreliable)", strlen("(unreliable)")))
		sym.unreliable = true;
	*ret = sym;
	return true;
}

/*
 * The function of an arm frame at i in l: "name", "name+0xOFF/0xSIZE" (before 3.x), either with
 * " [module]". Returns where it ends, 0 if it is not that.
 */
static size_t parse_arm_symbol(const Line *l, size_t i, Symbol *ret)
{
	size_t start = i;

	while (i < l->len && l->s[i] != ')' && l->s[i] != '+' && !is_blank(l->s[i]) &&
	       i - start <= NAME_MAX_LEN)
		i++;
	if (i == start || i >= l->len || i - start > NAME_MAX_LEN)
		return 0;
	*ret = (Symbol){.name = {l->s + start, i - start}};
	if (l->s[i] == '+') {
		i = parse_offset_size(l, i, ret);
		if (i == 0 || i >= l->len)
			return 0;
	}
	if (l->s[i] == ' ' && i + 1 < l->len && l->s[i + 1] == '[') {
		start = i += 2;
		while (i < l->len && l->s[i] != ']' && i - start <= NAME_MAX_LEN)
			i++;
		if (i < l->len && i > start && i - start <= NAME_MAX_LEN)
			ret->module = (Line){l->s + start, i - start};
	}
	return i;
}

/*
 * A frame of arm's backtrace: "[<802b3ffc>] (__sanitizer_cov_trace_pc) from [<802e1324>]
 * (trace_hardirqs_off+0x6c/0x120)": the function first, then the caller and where in it the call
 * is (*ret_caller, when not NULL): that is the offset of the next frame, whose own line names the
 * function alone (since 3.x) or where it starts ("(vfs_write+0x0/0x160) from", before).
 */
bool parse_arm_frame(const Line *l, Symbol *ret, Symbol *ret_caller)
{
	static const char from[] = ") from [<";
	size_t i = skip_blanks(l, 0);
	const char *at;
	Symbol sym;
	Line rest;

	if (i + 2 < l->len && l->s[i] == '[' && l->s[i + 1] == '<') {
		i = skip_hex(l, i + 2);
		if (i + 4 > l->len || memcmp(l->s + i, ">] (", 4) != 0)
			return false;
		i = parse_arm_symbol(l, i + 4, &sym);
		if (i == 0)
			return false;
		at = memmem(l->s + i, l->len - i, from, strlen(from));
		if (!at)
			return false;
		/* before 3.x, "(func+0x0/0x40)": where the function starts, not where it was */
		sym.have_offset = false;
		if (ret_caller) {
			*ret_caller = (Symbol){};
			rest = (Line){at + strlen(from),
				      (size_t)(l->s + l->len - at - strlen(from))};
			i = skip_hex(&rest, 0);
			if (i + 4 <= rest.len && memcmp(rest.s + i, ">] (", 4) == 0)
				parse_arm_symbol(&rest, i + 4, ret_caller);
		}
		*ret = sym;
		return true;
	}

	/* since 5.17 without addresses: "unwind_backtrace from show_stack+0x18/0x1c" */
	i = parse_arm_symbol(l, i, &sym);
	if (i == 0 || sym.have_offset || i + 6 > l->len || memcmp(l->s + i, " from ", 6) != 0)
		return false;
	rest = line_after(l, i + 6);
	if (!parse_symbol(&rest, ret_caller ?: &(Symbol){}))
		return false;
	*ret = sym;
	return true;
}

/* What starts an instruction pointer line: parse_ip_line(). */
static const char *const ip_prefixes[] = {
	"RIP: ",      "IP: ",  "EIP: ",	 "EIP is at ", "pc : ",
	"PC is at ",  "NIP [", "epc : ", "epc: ",      "epc   : ", /* mips */
	"ERA: ",						   /* loongarch */
	"IAOQ[0]: ",						   /* parisc */
	"[ERET  ]: ", /* arc: where the exception returns to */
};

/* The return address registers: mips' "ra    : 80123456 func+0x10/0x20", riscv's "ra : func",
 * arm's "LR is at func+0x10/0x20", arm64's "lr : func+0x10/0x20". */
static const char *const return_address_prefixes[] = {
	"ra    : ",
	"ra : ",
	"LR is at ",
	"lr : ",
};

/* What follows the prefix of an instruction pointer line in l, an empty line if none does. */
static Line ip_line_value(const Line *l, const char *const *prefixes, size_t n_prefixes)
{
	for (size_t k = 0; k < n_prefixes; k++) {
		size_t n = strlen(prefixes[k]);
		Line rest;
		size_t i;

		if (!has_prefix(l, prefixes[k]))
			continue;
		if (streq(prefixes[k], "NIP ["))
			n--; /* the address group is part of the symbol syntax */
		rest = line_after(l, n);
		/* "RIP: 0010:func", "EIP: 0060:[<c1234567>] ..." */
		i = skip_hex(&rest, 0);
		if (i == 4 && i < rest.len && rest.s[i] == ':')
			rest = line_after(&rest, i + 1);
		/* mips' "epc   : 80123456 func+0x10/0x20", loongarch's "ERA: 900000000023b1c8 func" */
		else if (i >= 8 && i < rest.len && is_blank(rest.s[i]))
			rest = line_after(&rest, skip_blanks(&rest, i));
		return rest;
	}
	return (Line){l->s, 0};
}

/*
 * The instruction pointer lines of the architectures: x86-64, old x86, i386, arm64, arm,
 * powerpc, riscv ("epc : func+0x2c/0x90"; an address alone on other CPUs' lines), mips,
 * loongarch, parisc (the head of its instruction address queue: "IAOQ[0]: func+0x30/0x80"), arc
 * (where the exception returns to: "[ERET  ]: func+0x6/0x88") and s390's
 * "Krnl PSW : 0704d00180000000 00000000009e59e4 (number+0x464/0x5d0)".
 */
bool parse_ip_line(const Line *l, Symbol *ret)
{
	Line rest;

	if (has_prefix(l, "Krnl PSW : ")) {
		const char *open = memchr(l->s, '(', l->len);

		if (!open)
			return false;
		rest = line_after(l, (size_t)(open - l->s) + 1);
		return parse_symbol(&rest, ret) && !ret->unreliable;
	}
	rest = ip_line_value(l, ip_prefixes, ARRAY_SIZE(ip_prefixes));
	return rest.len > 0 && parse_symbol(&rest, ret) && !ret->unreliable;
}

/*
 * Whether l is an instruction pointer line at address 0, a call through a NULL function pointer:
 * mips' "epc   : 00000000   (null)", arm's "PC is at 0x0", arm64's "pc : 0x0" and
 * "pc : [<0000000000000000>]".
 */
bool is_null_ip_line(const Line *l)
{
	for (size_t k = 0; k < ARRAY_SIZE(ip_prefixes); k++) {
		Line rest;
		size_t i, zeros;

		if (!has_prefix(l, ip_prefixes[k]))
			continue;
		rest = line_after(l, strlen(ip_prefixes[k]));
		i = skip_hex(&rest, 0);
		if (i == 4 && i < rest.len && rest.s[i] == ':') /* "RIP: 0010:0x0" */
			rest = line_after(&rest, i + 1);
		i = has_prefix(&rest, "[<") || has_prefix(&rest, "0x") ? 2 : 0;
		for (zeros = i; zeros < rest.len && rest.s[zeros] == '0'; zeros++)
			;
		return zeros > i &&
		       (zeros == rest.len || is_blank(rest.s[zeros]) || rest.s[zeros] == '>');
	}
	return false;
}

/* The function that a return address line names (return_address_prefixes). */
bool parse_return_address_line(const Line *l, Symbol *ret)
{
	Line rest = ip_line_value(l, return_address_prefixes, ARRAY_SIZE(return_address_prefixes));

	return rest.len > 0 && parse_symbol(&rest, ret) && !ret->unreliable;
}

/*
 * A function named without its offset, as syzkaller names an inlined one ("in fast_imageblit
 * drivers/video/fbdev/core/sysimgblt.c:229 [inline]", the source often wrapped away): a C
 * identifier that ends the line or is followed by its source.
 */
static bool parse_bare_function(const Line *l, Symbol *ret)
{
	size_t i = 0;

	while (i < l->len &&
	       (is_hex(l->s[i]) || (l->s[i] >= 'g' && l->s[i] <= 'z') ||
		(l->s[i] >= 'G' && l->s[i] <= 'Z') || l->s[i] == '_' || l->s[i] == '.') &&
	       i <= NAME_MAX_LEN)
		i++;
	if (i == 0 || i > NAME_MAX_LEN || is_digit(l->s[0]))
		return false;
	if (i < l->len && !(l->s[i] == ' ' && memchr(l->s + i, ':', l->len - i)))
		return false;
	*ret = (Symbol){.name = {l->s, i}};
	return true;
}

/*
 * The function that the first line of a report names: "Kernel panic - not syncing:
 * stack-protector: Kernel stack is corrupted in: func+0x7ea/0x7f0", "BUG: KASAN:
 * slab-use-after-free in lock_timer_base+0x1d9/0x220".
 */
bool parse_message_symbol(const Line *l, Symbol *ret)
{
	static const char corrupted[] = "Kernel stack is corrupted in: ";
	const char *at = line_find(l, corrupted);
	Line rest;

	if (at)
		at += strlen(corrupted);
	/* 4.0 to 4.3: "BUG: KASan: use after free in func+0x2c9/0x340 [mod] at addr ..." */
	else if ((has_prefix(l, "BUG: KASAN: ") || has_prefix(l, "BUG: KASan: ") ||
		  has_prefix(l, "BUG: KFENCE: ")) &&
		 (at = line_find(l, " in ")))
		at += strlen(" in ");
	else
		return false;
	rest = (Line){at, (size_t)(l->s + l->len - at)};
	if (parse_symbol(&rest, ret))
		return !ret->unreliable;
	return parse_bare_function(&rest, ret);
}

/* "WARNING: CPU: 1 PID: 42 at drivers/foo.c:12 foo_probe+0x12/0x40 [foo]", since 6.16
 * "WARNING: drivers/foo.c:12 at foo_probe+0x12/0x40 [foo], CPU#1: comm/42" */
bool parse_warning_symbol(const Line *l, Symbol *ret)
{
	const char *at = line_find(l, " at ");
	Line rest;
	size_t i;

	if (!at)
		return false;
	rest = (Line){at + 4, (size_t)(l->s + l->len - at - 4)};
	if (parse_symbol(&rest, ret) && !ret->unreliable)
		return true;
	for (i = 0; i < rest.len && !is_blank(rest.s[i]); i++)
		;
	rest = line_after(&rest, i);
	return parse_symbol(&rest, ret) && !ret->unreliable;
}
