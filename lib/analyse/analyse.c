/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse.h"
#include "sha256-util.h"
#include "utf8-util.h"

/*
 * The kernel's report formats, as printed by:
 *
 *   kernel/panic.c           "Kernel panic - not syncing: %s", "WARNING: CPU: %d PID: %d at
 *                            %pS" (older: "WARNING: at %s:%d %pS()"), "---[ end trace ... ]---"
 *   lib/dump_stack.c         "CPU: %d PID: %d Comm: %.20s %s%s %s %.*s" with print_tainted()
 *                            ("Not tainted" or "Tainted: " and one column per flag),
 *                            "Hardware name: %s"; 2.6: "Pid: %d, comm: %.20s %s %s %.*s"
 *   arch/x86/kernel/dumpstack.c  "Oops: %04lx [#%d]", "RIP: %04x:%pS", "Call Trace:",
 *                            frames " %s%pBb" ("? " for unreliable ones), "<IRQ>", "<TASK>";
 *                            before 4.x: " [<%p>] %s%pB" and "RIP: %04x:[<%p>]  [<%p>] %pS"
 *   arch/x86/mm/fault.c      "BUG: kernel NULL pointer dereference, address: %px",
 *                            "BUG: unable to handle page fault for address: %px"
 *   lib/bug.c                "kernel BUG at %s:%u!"
 *   kernel/watchdog.c        "BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]",
 *                            "Watchdog detected hard LOCKUP on cpu %d"
 *   kernel/hung_task.c       "INFO: task %s:%d blocked for more than %ld seconds."
 *   arch/x86/kernel/cpu/mce/core.c  "[Hardware Error]: CPU %d: Machine Check%s: ..."
 *   arch/arm64/kernel/traps.c, arch/arm64/mm/fault.c  "Internal error: %s: %016lx [#%d]",
 *                            "Unable to handle kernel ...", "pc : %pS", "Call trace:"
 *   arch/powerpc/kernel/process.c  "NIP [%016lx] %pS", frames "[%016lx] [%016lx] %pS"
 *                            with " (unreliable)"
 *
 * Everything is matched with fixed prefixes and substrings (memmem(), linear
 * time), never with regular expressions, and every loop over a line or the
 * log moves forward: hostile input costs time linear in its length.
 */

/* How far after its first line a report is looked at. */
#define REPORT_LINES_MAX 512
#define NAME_MAX_LEN 128
#define TEXT_MAX_LEN 512

typedef struct Line {
	const char *s;
	size_t len;
} Line;

typedef enum Event {
	EVENT_NONE,
	EVENT_OOPS,
	EVENT_BUG,
	EVENT_WARNING,
	EVENT_HUNG_TASK,
	EVENT_SOFT_LOCKUP,
	EVENT_HARD_LOCKUP,
	EVENT_MCE,
	EVENT_PANIC,
	EVENT_EMERGENCY,
	EVENT_SHUTDOWN,
	_EVENT_MAX,
} Event;

static const char *const event_reasons[_EVENT_MAX] = {
	[EVENT_NONE] = "unknown",
	[EVENT_OOPS] = "oops",
	[EVENT_BUG] = "bug",
	[EVENT_WARNING] = "warning",
	[EVENT_HUNG_TASK] = "hung-task",
	[EVENT_SOFT_LOCKUP] = "soft-lockup",
	[EVENT_HARD_LOCKUP] = "hard-lockup",
	[EVENT_MCE] = "mce",
	[EVENT_PANIC] = "panic",
	[EVENT_EMERGENCY] = "emergency",
	[EVENT_SHUTDOWN] = "shutdown",
};

static bool has_prefix(const Line *l, const char *prefix)
{
	size_t n = strlen(prefix);
	return l->len >= n && memcmp(l->s, prefix, n) == 0;
}

static const char *line_find(const Line *l, const char *needle)
{
	return memmem(l->s, l->len, needle, strlen(needle));
}

static bool line_is(const Line *l, const char *s)
{
	return l->len == strlen(s) && memcmp(l->s, s, l->len) == 0;
}

/* The rest of l after prefix; l must start with it. */
static Line line_after(const Line *l, size_t skip)
{
	return (Line){l->s + skip, l->len - skip};
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void line_trim(Line *l)
{
	while (l->len > 0 && is_blank(l->s[0])) {
		l->s++;
		l->len--;
	}
	while (l->len > 0 && is_blank(l->s[l->len - 1]))
		l->len--;
}

/*
 * Removes what printk puts before the text: "<N>" (the level, in
 * /dev/kmsg-style dumps), "[    1.234567]" (the time) and "[  T123]" or
 * "[    C1]" (the caller id of CONFIG_PRINTK_CALLER), then whitespace.
 */
static void line_strip_prefixes(Line *l)
{
	size_t i;

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
 * The texts that classify() looks for anywhere in a line, not at its start:
 * most logs hold none of them, which one search of the whole log tells, and
 * then the pass over every line need not search each line for each.
 */
typedef struct LogHas {
	bool soft_lockup, hard_lockup, mce;
} LogHas;

#define SOFT_LOCKUP_TEXT "BUG: soft lockup"
#define HARD_LOCKUP_TEXT "detected hard LOCKUP on cpu"
#define MCE_TEXT "[Hardware Error]: CPU "
#define MCE_TEXT2 ": Machine Check"

static const LogHas log_has_all = {true, true, true};

/* Whether the len bytes at log hold text; log may be NULL when len is 0. */
static bool log_contains(const char *log, size_t len, const char *text)
{
	size_t n = strlen(text);

	return len >= n && memmem(log, len, text, n);
}

static LogHas log_has(const char *log, size_t len)
{
	return (LogHas){
		.soft_lockup = log_contains(log, len, SOFT_LOCKUP_TEXT),
		.hard_lockup = log_contains(log, len, HARD_LOCKUP_TEXT),
		.mce = log_contains(log, len, MCE_TEXT) && log_contains(log, len, MCE_TEXT2),
	};
}

/* What line l reports; has says which texts the log holds at all. */
static Event classify_in(const Line *l, const LogHas *has)
{
	static const char *const oops_prefixes[] = {
		"BUG: unable to handle",
		"BUG: Unable to handle",
		"BUG: kernel NULL pointer dereference",
		"BUG: Kernel NULL pointer dereference",
		"Oops: ",
		"Oops - ",
		"Oops[#",
		"Internal error: Oops",
		"Unable to handle kernel ",
		"general protection fault",
		"invalid opcode: ",
		"stack segment: ",
		"double fault: ",
	};

	if (l->len < 6)
		return EVENT_NONE;
	if (has_prefix(l, "Kernel panic - not syncing"))
		return EVENT_PANIC;
	if (has->soft_lockup && line_find(l, SOFT_LOCKUP_TEXT))
		return EVENT_SOFT_LOCKUP;
	if (has->hard_lockup && line_find(l, HARD_LOCKUP_TEXT))
		return EVENT_HARD_LOCKUP;
	if (has_prefix(l, "INFO: task ") && line_find(l, " blocked for more than "))
		return EVENT_HUNG_TASK;
	if (has_prefix(l, "WARNING: CPU: ") || has_prefix(l, "WARNING: at "))
		return EVENT_WARNING;
	if (has_prefix(l, "kernel BUG at "))
		return EVENT_BUG;
	for (size_t i = 0; i < ARRAY_SIZE(oops_prefixes); i++)
		if (has_prefix(l, oops_prefixes[i]))
			return EVENT_OOPS;
	if (has_prefix(l, "BUG: "))
		return EVENT_BUG;
	if (has->mce && line_find(l, MCE_TEXT) && line_find(l, MCE_TEXT2))
		return EVENT_MCE;
	if (has_prefix(l, "sysrq: Resetting") || has_prefix(l, "SysRq : Resetting"))
		return EVENT_EMERGENCY;
	if (has_prefix(l, "reboot: Restarting system") || has_prefix(l, "reboot: Power down") ||
	    has_prefix(l, "reboot: System halted") || line_is(l, "Restarting system.") ||
	    line_is(l, "Power down.") || line_is(l, "System halted."))
		return EVENT_SHUTDOWN;
	return EVENT_NONE;
}

static Event classify(const Line *l)
{
	return classify_in(l, &log_has_all);
}

/* What the message of a panic says caused it (EVENT_OOPS stands for an oops or a BUG). */
static Event panic_cause(const Line *l)
{
	if (line_find(l, "softlockup"))
		return EVENT_SOFT_LOCKUP;
	if (line_find(l, "hung_task"))
		return EVENT_HUNG_TASK;
	if (line_find(l, "Hard LOCKUP") || line_find(l, "hardlockup"))
		return EVENT_HARD_LOCKUP;
	if (line_find(l, "achine check") || line_find(l, "broadcast exception handler"))
		return EVENT_MCE;
	if (line_find(l, "panic_on_warn"))
		return EVENT_WARNING;
	if (line_find(l, "Fatal exception"))
		return EVENT_OOPS;
	return EVENT_PANIC;
}

/*
 * A copy of at most max bytes of s for JSON and the journal: valid UTF-8, and
 * each control character (C0, DEL, and C1 such as CSI) replaced by '?'.
 */
static char *text_dup(const char *s, size_t len, size_t max)
{
	size_t n, k = 0;
	char *t = utf8_sanitize(s, MIN(len, max), &n);

	if (!t)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t c = utf8_control_length((const uint8_t *)t + i, n - i);

		t[k++] = c > 0 ? '?' : t[i];
		i += c ?: 1;
	}
	t[k] = '\0';
	return t;
}

/* A symbol as %pS prints it: "func+0x12/0x40 [mod]" or "func+0x12/0x40 [mod buildid]". */
typedef struct Symbol {
	Line name;
	Line module; /* len 0 when none */
	bool unreliable;
} Symbol;

static size_t skip_hex(const Line *l, size_t i)
{
	while (i < l->len && is_hex(l->s[i]))
		i++;
	return i;
}

static size_t skip_blanks(const Line *l, size_t i)
{
	while (i < l->len && is_blank(l->s[i]))
		i++;
	return i;
}

/*
 * Parses a stack frame or instruction pointer: optional address groups
 * ("[<ffffffff8100>]", "[c000000000123456]"), an optional "? ", then
 * "name+0xOFF/0xSIZE", an optional " [module]" and an optional
 * " (unreliable)". Returns false if l is not that.
 */
static bool parse_symbol(const Line *l, Symbol *ret)
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

	/* "+0xOFF/0xSIZE" */
	if (i + 3 > l->len || memcmp(l->s + i, "+0x", 3) != 0)
		return false;
	j = skip_hex(l, i + 3);
	if (j == i + 3 || j + 3 > l->len || memcmp(l->s + j, "/0x", 3) != 0)
		return false;
	i = skip_hex(l, j + 3);
	if (i == j + 3)
		return false;

	i = skip_blanks(l, i);
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

/* The instruction pointer lines of the architectures: x86-64, old x86, i386, arm64, arm, powerpc. */
static bool parse_ip_line(const Line *l, Symbol *ret)
{
	static const char *const prefixes[] = {
		"RIP: ", "IP: ", "EIP: ", "EIP is at ", "pc : ", "PC is at ", "NIP [",
	};

	for (size_t k = 0; k < ARRAY_SIZE(prefixes); k++) {
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
		return parse_symbol(&rest, ret) && !ret->unreliable;
	}
	return false;
}

/* Frames that every report of a kind shares: the reporting machinery, not the bug. */
static bool is_generic_frame(const char *name, size_t len)
{
	static const char *const generic[] = {
		"dump_stack",
		"dump_stack_lvl",
		"dump_backtrace",
		"show_stack",
		"show_trace_log_lvl",
		"panic",
		"vpanic",
		"nmi_panic",
		"check_panic_on_warn",
		"__warn",
		"warn_slowpath_fmt",
		"warn_slowpath_null",
		"warn_slowpath_common",
		"report_bug",
		"handle_bug",
		"exc_invalid_op",
		"asm_exc_invalid_op",
		"do_invalid_op",
		"invalid_op",
		"do_error_trap",
		"do_trap",
		"die",
		"__die",
		"__die_body",
		"oops_end",
		"bug_handler",
		"call_break_hook",
		"brk_handler",
		"do_debug_exception",
		"el1_dbg",
		"el1h_64_sync_handler",
		"el1h_64_sync",
		"arm64_notify_die",
		"mce_panic",
		"__schedule_bug",
		"__schedule",
		"schedule",
		"schedule_timeout",
		"schedule_preempt_disabled",
		"io_schedule",
		"io_schedule_timeout",
	};

	for (size_t i = 0; i < ARRAY_SIZE(generic); i++)
		if (strlen(generic[i]) == len && memcmp(generic[i], name, len) == 0)
			return true;
	return false;
}

/* The name a function has in every build: without ".isra.0", ".cold", ".constprop.0", ... */
static size_t function_base_len(const char *name, size_t len)
{
	const char *dot = memchr(name, '.', len);
	return dot ? (size_t)(dot - name) : len;
}

/* What one report tells, first found wins. */
typedef struct Report {
	const Line *task_line; /* "CPU: 0 PID: 1 Comm: sh ..." */
	const Line *taint_line;
	const Line *hardware_line;
	Symbol ip;
	bool have_ip;
	const Line *trace_start; /* "Call Trace:" */
	size_t trace_index;
} Report;

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

static bool is_task_line(const Line *l)
{
	return (has_prefix(l, "CPU: ") && line_find(l, " PID: ") && line_find(l, " Comm: ")) ||
	       (has_prefix(l, "Pid: ") && line_find(l, ", comm: "));
}

static void report_scan(Report *r, const Line *lines, size_t start, size_t end)
{
	for (size_t i = start; i < end; i++) {
		const Line *l = &lines[i];

		if (!r->task_line && is_task_line(l))
			r->task_line = l;
		else if (!r->taint_line &&
			 (has_prefix(l, "Not tainted ") || has_prefix(l, "Tainted: ")))
			r->taint_line = l;
		else if (!r->hardware_line && has_prefix(l, "Hardware name: "))
			r->hardware_line = l;
		else if (!r->have_ip && parse_ip_line(l, &r->ip))
			r->have_ip = true;
		else if (!r->trace_start &&
			 (has_prefix(l, "Call Trace:") || has_prefix(l, "Call trace:"))) {
			r->trace_start = l;
			r->trace_index = i;
		}
	}
}

/* The line after the report that starts at start: its end marker or the next report. */
static size_t report_end(const Line *lines, size_t n, size_t start)
{
	Event first = classify(&lines[start]);
	size_t max = n - start > REPORT_LINES_MAX ? start + REPORT_LINES_MAX : n;

	for (size_t i = start + 1; i < max; i++) {
		Event e;

		if (has_prefix(&lines[i], "---[ end "))
			return i;
		e = classify(&lines[i]);
		if (e == EVENT_NONE)
			continue;
		/* "kernel BUG at ..." and "BUG: ..." come with "invalid opcode"/"Oops" lines */
		if ((first == EVENT_OOPS || first == EVENT_BUG) &&
		    (e == EVENT_OOPS || e == EVENT_BUG))
			continue;
		return i;
	}
	return max;
}

/* The first line of what is left of a report that ends before line end. */
static size_t report_begin(const Line *lines, size_t end)
{
	size_t min = end > REPORT_LINES_MAX ? end - REPORT_LINES_MAX : 0;

	for (size_t i = end; i > min; i--)
		if (classify(&lines[i - 1]) != EVENT_NONE)
			return i - 1;
	return min;
}

static int set_text(char **field, const char *s, size_t len, size_t max)
{
	if (*field)
		return 0;
	*field = text_dup(s, len, max);
	return *field ? 0 : -ENOMEM;
}

static int analysis_add_frame(DmesgAnalysis *a, size_t *n, const Line *name)
{
	char **l;

	if (*n >= DMESG_CALL_TRACE_MAX)
		return 0;
	l = realloc(a->call_trace, (*n + 2) * sizeof(char *));
	if (!l)
		return -ENOMEM;
	a->call_trace = l;
	l[*n] = text_dup(name->s, name->len, NAME_MAX_LEN);
	if (!l[*n])
		return -ENOMEM;
	l[++*n] = NULL;
	return 0;
}

static bool symbol_is_generic(const Symbol *sym)
{
	return is_generic_frame(sym->name.s, function_base_len(sym->name.s, sym->name.len));
}

/*
 * Reads the frames after "Call Trace:" up to the first line that is not one,
 * and returns the first frame that is not generic in *ret_first.
 */
static int analysis_read_trace(DmesgAnalysis *a, const Line *lines, size_t start, size_t end,
			       Symbol *ret_first, bool *ret_have_first)
{
	size_t n = 0;
	int r;

	*ret_have_first = false;
	for (size_t i = start; i < end; i++) {
		Line l = lines[i];
		Symbol sym;

		/* "Call Trace: [<c0123456>] func+0x1/0x2" on one line in some 2.6 kernels */
		if (i == start)
			l = line_after(&l, strlen("Call Trace:"));
		else if (is_trace_marker(&l))
			continue;
		if (!parse_symbol(&l, &sym)) {
			if (i == start)
				continue;
			break;
		}
		if (sym.unreliable)
			continue;
		if (!*ret_have_first && !symbol_is_generic(&sym)) {
			*ret_first = sym;
			*ret_have_first = true;
		}
		r = analysis_add_frame(a, &n, &sym.name);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Reads "Not tainted 6.1.0-18-amd64 #1 ..." or "Tainted: G      D W  O      6.1.0 #1 ...". */
static int analysis_read_taint(DmesgAnalysis *a, const Line *l)
{
	char letters[33];
	size_t n = 0, i;
	bool tainted;

	if (has_prefix(l, "Not tainted"))
		i = strlen("Not tainted"), tainted = false;
	else if (has_prefix(l, "Tainted:"))
		i = strlen("Tainted:"), tainted = true;
	else
		return 0;

	/* Taint columns are upper-case letters or blanks; the version starts with a digit. */
	for (; i < l->len && !is_digit(l->s[i]); i++) {
		if (!tainted)
			break;
		if (l->s[i] >= 'A' && l->s[i] <= 'Z') {
			if (n < sizeof(letters) - 1)
				letters[n++] = l->s[i];
		} else if (!is_blank(l->s[i]) && l->s[i] != '-') /* RHEL 6 pads with dashes */
			return 0;				 /* not a taint string */
	}
	i = skip_blanks(l, i);
	letters[n] = '\0';
	if (!a->taint) {
		a->taint = strdup(letters);
		if (!a->taint)
			return -ENOMEM;
	}
	if (i < l->len && is_digit(l->s[i])) {
		size_t start = i;

		while (i < l->len && !is_blank(l->s[i]))
			i++;
		return set_text(&a->kernel_version, l->s + start, i - start, NAME_MAX_LEN);
	}
	return 0;
}

static int parse_pid(const char *s, size_t len)
{
	long v = 0;

	if (len == 0 || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return (int)v;
}

/* "CPU: 0 PID: 1 Comm: sh Not tainted 6.1.0 #1 ..." or "Pid: 1, comm: sh Tainted: ...". */
static int analysis_read_task_line(DmesgAnalysis *a, const Line *l, bool take_task)
{
	const char *pid_at, *comm_at, *end = l->s + l->len, *t;
	size_t pid_len = 0;
	Line rest;

	if (has_prefix(l, "CPU: ")) {
		pid_at = line_find(l, " PID: ") + strlen(" PID: ");
		comm_at = line_find(l, " Comm: ") + strlen(" Comm: ");
	} else {
		pid_at = l->s + strlen("Pid: ");
		comm_at = line_find(l, ", comm: ") + strlen(", comm: ");
	}
	while (pid_at + pid_len < end && is_digit(pid_at[pid_len]))
		pid_len++;
	if (comm_at < pid_at)
		return 0;

	rest = (Line){comm_at, (size_t)(end - comm_at)};
	t = line_find(&rest, " Not tainted");
	if (!t)
		t = line_find(&rest, " Tainted:");
	if (!t)
		return 0;
	if (take_task && !a->comm) {
		a->comm = text_dup(comm_at, (size_t)(t - comm_at), NAME_MAX_LEN);
		if (!a->comm)
			return -ENOMEM;
		a->pid = parse_pid(pid_at, pid_len);
	}
	rest = (Line){t + 1, (size_t)(end - t - 1)};
	return analysis_read_taint(a, &rest);
}

/* "INFO: task kworker/0:1:15 blocked ..." and "... stuck for 22s! [kworker/0:1:15]" */
static int analysis_read_comm_pid(DmesgAnalysis *a, const char *s, size_t len)
{
	const char *colon = NULL;

	for (size_t i = 0; i < len; i++)
		if (s[i] == ':')
			colon = s + i;
	if (!colon || colon == s)
		return 0;
	a->pid = parse_pid(colon + 1, (size_t)(s + len - colon - 1));
	if (a->pid < 0)
		return 0;
	a->comm = text_dup(s, (size_t)(colon - s), NAME_MAX_LEN);
	return a->comm ? 0 : -ENOMEM;
}

static int analysis_read_event_task(DmesgAnalysis *a, Event kind, const Line *l)
{
	if (kind == EVENT_HUNG_TASK && has_prefix(l, "INFO: task ")) {
		const char *s = l->s + strlen("INFO: task ");
		const char *e = line_find(l, " blocked for more than ");

		return analysis_read_comm_pid(a, s, (size_t)(e - s));
	}
	if (kind == EVENT_SOFT_LOCKUP && l->len > 2 && l->s[l->len - 1] == ']') {
		const char *open = memrchr(l->s, '[', l->len);

		if (open)
			return analysis_read_comm_pid(a, open + 1,
						      (size_t)(l->s + l->len - open - 2));
	}
	return 0;
}

/* "WARNING: CPU: 1 PID: 42 at drivers/foo.c:12 foo_probe+0x12/0x40 [foo]" */
static bool parse_warning_symbol(const Line *l, Symbol *ret)
{
	const char *at = line_find(l, " at ");
	Line rest;
	size_t i;

	if (!at)
		return false;
	rest = (Line){at + 4, (size_t)(l->s + l->len - at - 4)};
	for (i = 0; i < rest.len && !is_blank(rest.s[i]); i++)
		;
	rest = line_after(&rest, i);
	return parse_symbol(&rest, ret) && !ret->unreliable;
}

/* Numbers and hex words, which differ between boots, become "#". */
static char *normalize_message(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *t = malloc(len + 1);

	if (!t)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		bool digit = false;

		while (j < len && (is_hex(s[j]) || s[j] == 'x')) {
			digit = digit || is_digit(s[j]);
			j++;
		}
		if (j > i && digit) {
			t[o++] = '#';
			i = j;
		} else if (j > i) {
			memcpy(t + o, s + i, j - i);
			o += j - i;
			i = j;
		} else
			t[o++] = s[i++];
	}
	t[o] = '\0';
	return t;
}

static int analysis_sign(DmesgAnalysis *a)
{
	_cleanup_free_ char *input = NULL, *normalized = NULL;
	char hex[SHA256_HEX_SIZE];
	size_t len = 0, frames = 0;
	FILE *f;
	int r;

	if (streq(a->reason, "unknown") && !a->function && !a->call_trace[0])
		return 0;

	f = open_memstream(&input, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n", a->reason);
	if (a->function)
		fprintf(f, "%.*s\n", (int)function_base_len(a->function, strlen(a->function)),
			a->function);
	for (char **p = a->call_trace; *p && frames < DMESG_SIGNATURE_FRAMES; p++) {
		size_t n = function_base_len(*p, strlen(*p));

		if (is_generic_frame(*p, n))
			continue;
		fprintf(f, "%.*s\n", (int)n, *p);
		frames++;
	}
	if (!a->function && frames == 0 && a->message) {
		normalized = normalize_message(a->message);
		if (!normalized) {
			fclose(f);
			return -ENOMEM;
		}
		fprintf(f, "%s\n", normalized);
	}
	if (fclose(f) != 0 || !input)
		return -ENOMEM;

	r = sha256_hex(input, len, hex);
	if (r < 0)
		return r;
	a->signature = strndup(hex, 32);
	return a->signature ? 0 : -ENOMEM;
}

static int split_lines(const char *log, size_t len, Line **ret, size_t *ret_n)
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

/* The report that tells what the crash was, and the reason to give it. */
static size_t choose_report(const size_t first[_EVENT_MAX], size_t none, Event *ret_kind)
{
	static const Event order[] = {
		EVENT_HARD_LOCKUP, EVENT_SOFT_LOCKUP, EVENT_MCE,      EVENT_HUNG_TASK,
		EVENT_WARNING,	   EVENT_EMERGENCY,   EVENT_SHUTDOWN,
	};
	size_t oops = MIN(first[EVENT_OOPS], first[EVENT_BUG]);
	Event oops_kind = first[EVENT_OOPS] < first[EVENT_BUG] ? EVENT_OOPS : EVENT_BUG;

	if (first[EVENT_PANIC] != none) {
		*ret_kind = EVENT_PANIC;
		return first[EVENT_PANIC];
	}
	if (oops != none) {
		*ret_kind = oops_kind;
		return oops;
	}
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (first[order[i]] != none) {
			*ret_kind = order[i];
			return first[order[i]];
		}
	*ret_kind = EVENT_NONE;
	return none;
}

static int analyse_lines(DmesgAnalysis *a, const Line *lines, size_t n, const LogHas *has)
{
	size_t first[_EVENT_MAX], start, end;
	const Line *task_anywhere = NULL, *hardware_anywhere = NULL, *version_line = NULL;
	Report report = {};
	Symbol sym = {}, frame = {};
	bool have_frame = false;
	Event kind;
	int r;

	for (size_t k = 0; k < _EVENT_MAX; k++)
		first[k] = n;
	for (size_t i = 0; i < n; i++) {
		Event e = classify_in(&lines[i], has);

		if (first[e] == n)
			first[e] = i;
		if (!task_anywhere && is_task_line(&lines[i]))
			task_anywhere = &lines[i];
		if (!hardware_anywhere && has_prefix(&lines[i], "Hardware name: "))
			hardware_anywhere = &lines[i];
		if (!version_line && has_prefix(&lines[i], "Linux version "))
			version_line = &lines[i];
	}

	start = choose_report(first, n, &kind);
	if (kind == EVENT_PANIC) {
		/* A panic names its cause; the cause's own report tells more. */
		Event cause = panic_cause(&lines[start]);
		size_t oops = MIN(first[EVENT_OOPS], first[EVENT_BUG]);

		if (cause == EVENT_OOPS && oops != n) {
			kind = first[EVENT_OOPS] < first[EVENT_BUG] ? EVENT_OOPS : EVENT_BUG;
			start = oops;
		} else if (cause != EVENT_PANIC) {
			kind = cause;
			if (first[cause] != n)
				start = first[cause];
		}
	}
	a->reason = strdup(event_reasons[kind]);
	if (!a->reason)
		return -ENOMEM;

	if (start < n) {
		r = set_text(&a->message, lines[start].s, lines[start].len, TEXT_MAX_LEN);
		if (r < 0)
			return r;
		r = analysis_read_event_task(a, classify(&lines[start]), &lines[start]);
		if (r < 0)
			return r;

		end = report_end(lines, n, start);
		report_scan(&report, lines, start, end);
		/* A report cut short by the panic it caused ("panic_on_warn set ..."): the
		 * panic's own dump shows the same task. */
		if (end < n && classify(&lines[end]) == EVENT_PANIC)
			report_scan(&report, lines, end, report_end(lines, n, end));
		/* A panic whose cause was cut off the start of the log ("Fatal exception"):
		 * what is left of that report is before the panic line. */
		if (kind != EVENT_PANIC && classify(&lines[start]) == EVENT_PANIC)
			report_scan(&report, lines, report_begin(lines, start), start);

		if (report.trace_start) {
			r = analysis_read_trace(a, lines, report.trace_index, n, &frame,
						&have_frame);
			if (r < 0)
				return r;
		}
		/* Where it happened: the instruction pointer, else the WARNING line, else the
		 * first frame of the trace that is not the reporting machinery (panic(), ...). */
		if (report.have_ip)
			sym = report.ip;
		else if (!(classify(&lines[start]) == EVENT_WARNING &&
			   parse_warning_symbol(&lines[start], &sym)) &&
			 have_frame)
			sym = frame;
		if (sym.name.len > 0) {
			r = set_text(&a->function, sym.name.s, sym.name.len, NAME_MAX_LEN);
			if (r < 0)
				return r;
		}
		if (sym.module.len > 0) {
			r = set_text(&a->module, sym.module.s, sym.module.len, NAME_MAX_LEN);
			if (r < 0)
				return r;
		}
		if (report.task_line) {
			r = analysis_read_task_line(a, report.task_line, true);
			if (r < 0)
				return r;
		}
		if (report.taint_line) {
			r = analysis_read_taint(a, report.taint_line);
			if (r < 0)
				return r;
		}
		if (report.hardware_line)
			hardware_anywhere = report.hardware_line;
	}

	/* From elsewhere in the log, when the report did not say. */
	if (task_anywhere) {
		r = analysis_read_task_line(a, task_anywhere, false);
		if (r < 0)
			return r;
	}
	if (!a->kernel_version && version_line) {
		Line rest = line_after(version_line, strlen("Linux version "));
		size_t i = 0;

		while (i < rest.len && !is_blank(rest.s[i]))
			i++;
		r = set_text(&a->kernel_version, rest.s, i, NAME_MAX_LEN);
		if (r < 0)
			return r;
	}
	if (hardware_anywhere) {
		Line rest = line_after(hardware_anywhere, strlen("Hardware name: "));

		r = set_text(&a->hardware, rest.s, rest.len, TEXT_MAX_LEN);
		if (r < 0)
			return r;
	}
	return analysis_sign(a);
}

DmesgAnalysis *dmesg_analysis_free(DmesgAnalysis *a)
{
	if (!a)
		return NULL;
	free(a->reason);
	free(a->message);
	free(a->function);
	free(a->module);
	if (a->call_trace)
		for (char **p = a->call_trace; *p; p++)
			free(*p);
	free(a->call_trace);
	free(a->taint);
	free(a->kernel_version);
	free(a->comm);
	free(a->hardware);
	free(a->signature);
	free(a);
	return NULL;
}

int dmesg_analyse(const char *log, size_t len, DmesgAnalysis **ret)
{
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
	_cleanup_free_ Line *lines = NULL;
	LogHas has;
	size_t n;
	int r;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->pid = -1;
	a->call_trace = calloc(1, sizeof(char *));
	if (!a->call_trace)
		return -ENOMEM;

	r = split_lines(log, len, &lines, &n);
	if (r < 0)
		return r;
	has = log_has(log, len);
	r = analyse_lines(a, lines, n, &has);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(a);
	return 0;
}

static json_t *json_string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int dmesg_analysis_to_json(const DmesgAnalysis *a, json_t **ret)
{
	json_auto_t *trace = json_array(), *o = NULL;

	if (!trace)
		return -ENOMEM;
	for (char **p = a->call_trace; *p; p++)
		if (json_array_append_new(trace, json_string(*p)) < 0)
			return -ENOMEM;

	o = json_pack("{s:s,s:o,s:o,s:o,s:O,s:o,s:o,s:o,s:o,s:o,s:o}", "reason", a->reason,
		      "message", json_string_or_null(a->message), "function",
		      json_string_or_null(a->function), "module", json_string_or_null(a->module),
		      "call_trace", trace, "taint", json_string_or_null(a->taint), "kernel_version",
		      json_string_or_null(a->kernel_version), "comm", json_string_or_null(a->comm),
		      "pid", a->pid >= 0 ? json_integer(a->pid) : json_null(), "hardware",
		      json_string_or_null(a->hardware), "signature",
		      json_string_or_null(a->signature));
	if (!o)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}
