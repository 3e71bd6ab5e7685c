/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a call trace: its frames up to the first line that is none, past the markers, the
 * registers of an exception inside it, the noise that arm, s390 and decoded traces add, and the
 * lines of other programs; which of its frames is the first that is not the reporting machinery.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"

static bool is_trace_marker(const Line *l)
{
	static const char *const markers[] = {
		"<TASK>", "</TASK>", "<IRQ>",	  "</IRQ>",	"<NMI>",
		"</NMI>", "<EOI>",   "<SOFTIRQ>", "</SOFTIRQ>",
	};

	for (size_t i = 0; i < ARRAY_SIZE(markers); i++)
		if (line_is(l, markers[i]))
			return true;
	return has_prefix(l, "--- interrupt:");
}

/* Removes a marker that older kernels print before the first frame: "<IRQ>  [<ffff...>] ...". */
static void line_skip_marker(Line *l)
{
	static const char *const markers[] = {"<IRQ>", "<NMI>", "<EOI>", "<<EOE>>"};

	for (size_t i = 0; i < ARRAY_SIZE(markers); i++)
		if (has_prefix(l, markers[i])) {
			*l = line_after(l, strlen(markers[i]));
			line_trim(l);
			return;
		}
}

/* The length of the line that starts a call trace, 0 if l does not. */
size_t trace_header_len(const Line *l)
{
	static const char *const headers[] = {
		"Call Trace:", "Call trace:", "Backtrace:", "Stack Trace:", /* arc */
	};

	for (size_t i = 0; i < ARRAY_SIZE(headers); i++)
		if (has_prefix(l, headers[i]))
			return strlen(headers[i]);
	return 0;
}

/*
 * Lines inside a call trace that are not frames: arm's saved registers ("r7:00000000
 * r6:82622e04") and exception stacks ("Exception stack(0xdceed458 to 0xdceed4a0)" and its
 * "d440: 00000000 c09e0f2c" dump), s390's frames taken from a register rather than the stack
 * ("([<000003ff8086d036>] will_oops_init+0x36/0x1000 [will_oops])", often stale), and the
 * inlined functions of a trace decoded with decode_stacktrace.sh or syzkaller
 * ("cpumask_first include/linux/cpumask.h:214 [inline]"), and the "All code" and "Code starting
 * with the faulting instruction" disassembly it adds.
 */
static bool is_trace_noise(const Line *l)
{
	size_t i;

	/* ia64's registers after each frame, "sp=e000000100bbfab0 bsp=e000000100bb9638"; the
	 * "..." with which whoever pasted a trace shortened it */
	if (has_prefix(l, "sp=") || line_is(l, "...") || has_prefix(l, "Exception stack(") ||
	    has_prefix(l, "([<") ||
	    (l->len > 8 && memcmp(l->s + l->len - 8, "[inline]", 8) == 0))
		return true;
	if (l->len > 3 && l->s[0] == 'r' && is_digit(l->s[1]))
		return memchr(l->s, ':', MIN(l->len, (size_t)4)) != NULL;
	if (line_is(l, "All code") ||
	    has_prefix(l, "Code starting with the faulting instruction") ||
	    has_prefix(l, "========"))
		return true;
	i = skip_hex(l, 0);
	/* "d440: 00000000 c09e0f2c", and the disassembly of a decoded trace: "2a:*\t48 8b a8" */
	return (i >= 3 && i + 1 < l->len && l->s[i] == ':' && l->s[i + 1] == ' ') ||
	       (i >= 1 && i + 1 < l->len && l->s[i] == ':' &&
		(l->s[i + 1] == '\t' || l->s[i + 1] == '*'));
}

/*
 * The registers of an exception inside a call trace: a WARNING's invalid opcode trap
 * ("invalid_op", then "RIP: 0010:usb_submit_urb+0x119a/0x13c0", "RSP: ...", "RAX: ...") or an
 * interrupt, after which the frames of the context it stopped go on.
 */
static bool is_trace_registers(const Line *l)
{
	static const char *const prefixes[] = {
		"RIP: ", "RSP: ", "RAX: ", "RDX: ", "RBP: ", "R08: ", "R10: ", "R13: ",	 "EIP: ",
		"EAX: ", "ESI: ", "DS: ",  "CR0: ", "CR2: ", "FS: ",  "CS: ",  "Code: ",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (has_prefix(l, prefixes[i]))
			return true;
	return false;
}

static int analysis_add_frame(DmesgAnalysis *a, const Symbol *sym)
{
	DmesgFrame *frames, *f;
	char **l;

	if (a->n_frames >= DMESG_CALL_TRACE_MAX)
		return 0;
	l = realloc(a->call_trace, (a->n_frames + 2) * sizeof(char *));
	if (!l)
		return -ENOMEM;
	a->call_trace = l;
	frames = realloc(a->frames, (a->n_frames + 1) * sizeof(DmesgFrame));
	if (!frames)
		return -ENOMEM;
	a->frames = frames;

	f = &frames[a->n_frames];
	*f = (DmesgFrame){
		.have_offset = sym->have_offset,
		.offset = sym->offset,
		.size = sym->size,
	};
	f->function = text_dup(sym->name.s, sym->name.len, NAME_MAX_LEN);
	if (sym->module.len > 0)
		f->module = text_dup(sym->module.s, sym->module.len, NAME_MAX_LEN);
	l[a->n_frames] = text_dup(sym->name.s, sym->name.len, NAME_MAX_LEN);
	/* counted first, so that dmesg_analysis_free() frees what was made */
	l[++a->n_frames] = NULL;
	if (!f->function || (sym->module.len > 0 && !f->module) || !l[a->n_frames - 1])
		return -ENOMEM;
	return 0;
}

/*
 * A frame that the kernel could not name, an address alone: powerpc's "[c000000010ff3a30]
 * [c000000010ff3ad0] 0xc000000010ff3ad0 (unreliable)", x86's " [<ffffffffa0001234>]
 * 0xffffffffa0001234", and since 4.x, without the brackets, " ? 0xffffffffc048d000" (the
 * freed init text of a module whose init oopsed). The trace goes on after it.
 */
static bool is_unnamed_frame(const Line *l)
{
	size_t i = 0, j;

	for (int groups = 0; groups < 3 && i < l->len && l->s[i] == '['; groups++) {
		j = skip_hex(l, i + 1 + (i + 1 < l->len && l->s[i + 1] == '<'));
		j += j < l->len && l->s[j] == '>';
		if (j >= l->len || l->s[j] != ']')
			return false;
		i = skip_blanks(l, j + 1);
	}
	if (i + 1 < l->len && l->s[i] == '?' && l->s[i + 1] == ' ')
		i = skip_blanks(l, i + 2);
	if (i == 0 || i + 2 >= l->len || l->s[i] != '0' || l->s[i + 1] != 'x')
		return false;
	j = skip_hex(l, i + 2);
	return j > i + 2 && (j == l->len || is_blank(l->s[j]));
}

/*
 * The checks and reports that KASAN, HWASan, KMSAN and UBSAN compile into the code
 * ("__asan_load8", "__hwasan_check_x1_67043328", "kasan_check_range", "__kasan_report",
 * "__ubsan_handle_out_of_bounds"): they are where a bug is found, not where it is.
 */
bool is_sanitizer_helper(const Line *name)
{
	static const char *const prefixes[] = {
		"__asan_", "__hwasan_",		  "__kasan_", "kasan_", "__msan_",
		"kmsan_",  "check_memory_region", "__ubsan_", "ubsan_",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (has_prefix(name, prefixes[i]))
			return true;
	return false;
}

/*
 * Where an interrupt enters the kernel, per architecture: the frames after it in a trace are those
 * of the context it stopped (what an RCU stall's CPU was doing).
 */
bool is_irq_entry(const Line *name)
{
	static const char *const entries[] = {
		"el1h_64_irq",
		"el1_irq",
		"el0_irq",
		"__irq_svc",
		"__irq_usr",
		"asm_sysvec_apic_timer_interrupt",
		"apic_timer_interrupt",
		"handle_exception",
	};

	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		if (line_is(&(Line){name->s, function_base_len(name->s, name->len)}, entries[i]))
			return true;
	return false;
}

static bool symbol_is_generic(const Symbol *sym)
{
	return is_generic_frame(sym->name.s, function_base_len(sym->name.s, sym->name.len));
}

/* Takes sym as a frame of the trace: its first that is not the machinery goes to *ret_first. */
static int analysis_take_frame(DmesgAnalysis *a, const Symbol *sym, Symbol *ret_first,
			       bool *ret_have_first)
{
	if (sym->unreliable)
		return 0;
	if (!*ret_have_first && !symbol_is_generic(sym) && !is_sanitizer_helper(&sym->name)) {
		*ret_first = *sym;
		*ret_have_first = true;
	}
	return analysis_add_frame(a, sym);
}

/* The frames of a trace line of frames in angle brackets (parse_angle_frame()); returns how many,
 * or -errno. */
static int analysis_read_angle_frames(DmesgAnalysis *a, const Line *l, Symbol *ret_first,
				      bool *ret_have_first)
{
	size_t i = 0, end;
	Symbol sym;
	int n = 0, r;

	while ((end = parse_angle_frame(l, i, &sym)) > 0) {
		r = analysis_take_frame(a, &sym, ret_first, ret_have_first);
		if (r < 0)
			return r;
		n++;
		i = skip_blanks(l, end);
	}
	return n;
}

/*
 * Reads the frames after "Call Trace:" up to the first line that is not one,
 * and returns the first frame that is not generic in *ret_first.
 */
int analysis_read_trace(DmesgAnalysis *a, const Line *lines, size_t start, size_t end,
			bool skip_bare, Symbol *ret_first, bool *ret_have_first)
{
	Symbol caller = {};
	int r;

	*ret_have_first = false;
	for (size_t i = start; i < end; i++) {
		Line l = lines[i];
		Symbol sym, next_caller = {};

		/* "Call Trace: [<c0123456>] func+0x1/0x2" on one line in some 2.6 kernels, x86-64's
		 * "Call Trace: <ffffffff8016dfdc>{bio_free+48} <ffffffff803187e7>{...}" */
		if (i == start) {
			l = line_after(&l, trace_header_len(&l));
			line_trim(&l);
		} else if (is_trace_marker(&l) || is_trace_noise(&l) || is_trace_registers(&l) ||
			   (skip_bare && l.bare) || l.continued)
			continue;
		line_skip_marker(&l);
		if (is_unnamed_frame(&l))
			continue;
		if (l.len > 0 && l.s[0] == '<') {
			r = analysis_read_angle_frames(a, &l, ret_first, ret_have_first);
			if (r < 0)
				return r;
			if (r > 0)
				continue;
		}
		if (!parse_symbol(&l, &sym) && !parse_arm_frame(&l, &sym, &next_caller)) {
			if (i == start)
				continue;
			break;
		}
		/* arm: where the previous frame was called from, in this function */
		if (!sym.have_offset && caller.have_offset && caller.name.len == sym.name.len &&
		    memcmp(caller.name.s, sym.name.s, sym.name.len) == 0) {
			sym.have_offset = true;
			sym.offset = caller.offset;
			sym.size = caller.size;
		}
		caller = next_caller;
		r = analysis_take_frame(a, &sym, ret_first, ret_have_first);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Where the frames after the last interrupt entry frame (is_irq_entry()) of the trace at start
 * begin, 0 if it has none.
 */
size_t trace_after_irq_entry(const Line *lines, size_t start, size_t end)
{
	size_t after = 0;

	for (size_t i = start + 1; i < end; i++) {
		Line l = lines[i];
		Symbol sym;

		if (is_trace_marker(&l) || is_trace_noise(&l) || l.continued)
			continue;
		line_skip_marker(&l);
		if (is_unnamed_frame(&l))
			continue;
		if (!parse_symbol(&l, &sym) && !parse_arm_frame(&l, &sym, NULL))
			break;
		if (is_irq_entry(&sym.name) && i + 1 < end)
			after = i + 1;
	}
	return after;
}

/* Whether line i ("<<EOE>>  [<ffffffff810944f0>] func+0x90/0xa0") or the next holds a frame. */
bool trace_has_frame_at(const Line *lines, size_t i, size_t end)
{
	for (size_t k = i; k < end && k < i + 2; k++) {
		Line l = lines[k];

		line_skip_marker(&l);
		if (parse_symbol(&l, &(Symbol){}))
			return true;
	}
	return false;
}
