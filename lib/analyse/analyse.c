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
 *   kernel/rcu/tree_stall.h  "rcu: INFO: %s self-detected stall on CPU", "rcu: INFO: %s detected
 *                            stalls on CPUs/tasks:" (before 4.19 without "rcu: "), then the
 *                            stalled CPU's stack: the timer interrupt, "</IRQ>" and the
 *                            registers and frames of what it interrupted
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
	EVENT_RCU_STALL,
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
	[EVENT_RCU_STALL] = "rcu-stall",
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
 * The texts that classify() looks for anywhere in a line, not at its start:
 * most logs hold none of them, which one search of the whole log tells, and
 * then the pass over every line need not search each line for each.
 */
typedef struct LogHas {
	bool soft_lockup, hard_lockup, mce;
} LogHas;

#define SOFT_LOCKUP_TEXT "BUG: soft lockup"
/* "Watchdog detected hard LOCKUP on cpu 1"; powerpc: "CPU 28 self-detected hard LOCKUP @ ..." */
#define HARD_LOCKUP_TEXT "hard LOCKUP"
/* powerpc: "watchdog: CPU 24 Hard LOCKUP", 4.15: "Watchdog CPU:42 Hard LOCKUP" */
#define HARD_LOCKUP_TEXT2 "Hard LOCKUP"
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
		.hard_lockup = log_contains(log, len, HARD_LOCKUP_TEXT) ||
			       log_contains(log, len, HARD_LOCKUP_TEXT2),
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
		"Internal error: ", /* arm, arm64: "Oops", "Oops - BUG", ": 1b", "BRK handler" */
		"Unable to handle kernel ",
		"general protection fault",
		"invalid opcode: ",
		"stack segment: ",
		"double fault: ",
	};

	if (l->len < 6)
		return EVENT_NONE;
	/* arm64_serror_panic(): the registers, then "Kernel panic - not syncing: Asynchronous
	 * SError Interrupt" */
	if (has_prefix(l, "Kernel panic - not syncing") || has_prefix(l, "SError Interrupt on CPU"))
		return EVENT_PANIC;
	if (has->soft_lockup && line_find(l, SOFT_LOCKUP_TEXT))
		return EVENT_SOFT_LOCKUP;
	if (has->hard_lockup &&
	    (line_find(l, HARD_LOCKUP_TEXT) || line_find(l, HARD_LOCKUP_TEXT2)) &&
	    !has_prefix(l, "---[ end "))
		return EVENT_HARD_LOCKUP;
	if (has_prefix(l, "INFO: task ") && line_find(l, " blocked for more than "))
		return EVENT_HUNG_TASK;
	if ((has_prefix(l, "INFO: rcu_") || has_prefix(l, "rcu: INFO: rcu_")) &&
	    line_find(l, " stall"))
		return EVENT_RCU_STALL;
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
	if (line_find(l, "Hard LOCKUP") || line_find(l, "hard LOCKUP") ||
	    line_find(l, "hardlockup"))
		return EVENT_HARD_LOCKUP;
	if (line_find(l, "RCU Stall"))
		return EVENT_RCU_STALL;
	if (line_find(l, "achine check") || line_find(l, "broadcast exception handler"))
		return EVENT_MCE;
	if (line_find(l, "panic_on_warn"))
		return EVENT_WARNING;
	/* __schedule_bug() with panic_on_warn, after "BUG: scheduling while atomic: ..." */
	if (line_find(l, "Fatal exception") || line_find(l, "scheduling while atomic"))
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

/*
 * A frame of arm's backtrace: "[<802b3ffc>] (__sanitizer_cov_trace_pc) from [<802e1324>]
 * (trace_hardirqs_off+0x6c/0x120)", the function first, with " [module]" if it has one.
 */
static bool parse_arm_frame(const Line *l, Symbol *ret)
{
	size_t i = skip_blanks(l, 0), start;

	if (i + 2 >= l->len || l->s[i] != '[' || l->s[i + 1] != '<')
		return false;
	i = skip_hex(l, i + 2);
	if (i + 4 > l->len || memcmp(l->s + i, ">] (", 4) != 0)
		return false;
	start = i += 4;
	while (i < l->len && l->s[i] != ')' && !is_blank(l->s[i]) && i - start <= NAME_MAX_LEN)
		i++;
	if (i == start || i >= l->len || i - start > NAME_MAX_LEN)
		return false;
	*ret = (Symbol){.name = {l->s + start, i - start}};
	if (l->s[i] == ' ' && i + 1 < l->len && l->s[i + 1] == '[') {
		start = i += 2;
		while (i < l->len && l->s[i] != ']' && i - start <= NAME_MAX_LEN)
			i++;
		if (i < l->len && i > start && i - start <= NAME_MAX_LEN)
			ret->module = (Line){l->s + start, i - start};
	}
	return memmem(l->s + i, l->len - i, ") from ", strlen(") from ")) != NULL;
}

/*
 * The instruction pointer lines of the architectures: x86-64, old x86, i386, arm64, arm,
 * powerpc, and s390's "Krnl PSW : 0704d00180000000 00000000009e59e4 (number+0x464/0x5d0)".
 */
static bool parse_ip_line(const Line *l, Symbol *ret)
{
	static const char *const prefixes[] = {
		"RIP: ", "IP: ", "EIP: ", "EIP is at ", "pc : ", "PC is at ", "NIP [",
	};

	if (has_prefix(l, "Krnl PSW : ")) {
		const char *open = memchr(l->s, '(', l->len);
		Line rest;

		if (!open)
			return false;
		rest = line_after(l, (size_t)(open - l->s) + 1);
		return parse_symbol(&rest, ret) && !ret->unreliable;
	}

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

/*
 * Frames that every report of a kind shares: the reporting machinery, not the
 * bug (is_generic_frame()).
 */
static const char *const generic_frames[] = {
	/* printing the report */
	"dump_stack",
	"dump_stack_lvl",
	"dump_backtrace",
	"show_stack",
	"show_trace_log_lvl",
	"panic",
	"vpanic",
	"nmi_panic",
	"check_panic_on_warn",
	/* a WARNING, a BUG() trap, an oops */
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
	/* arm64 exception entry */
	"el1_dbg",
	"el1h_64_sync_handler",
	"el1h_64_sync",
	"arm64_notify_die",
	"arm64_serror_panic", /* an SError: the frames after el1h_64_error tell where */
	"arm64_is_fatal_ras_serror",
	"do_serror",
	"el1h_64_error_handler",
	"el1h_64_error",
	/* noreturn calls end a function: the return address is the next one */
	"abort",
	/* what a report calls on its way */
	"add_taint",
	"mce_panic",
	/* scheduling while atomic, sleeping where it must not, being asleep */
	"__schedule_bug",
	"__might_sleep", /* "BUG: sleeping function called from invalid context" */
	"___might_sleep",
	"__might_fault",
	"might_fault",
	"__schedule",
	"schedule",
	"schedule_timeout",
	"schedule_preempt_disabled",
	"io_schedule",
	"io_schedule_timeout",
	/* where a hung task sleeps: the function that took the lock is the answer */
	"rwsem_down_read_failed",
	"rwsem_down_read_slowpath",
	"call_rwsem_down_read_failed",
	"rwsem_down_write_failed",
	"rwsem_down_write_slowpath",
	"call_rwsem_down_write_failed",
	"down_read",
	"down_write",
	"__mutex_lock",
	"__mutex_lock_common",
	"__mutex_lock_slowpath",
	"mutex_lock",
	"mutex_lock_nested",
	"__down", /* a semaphore */
	"down",
	"wait_for_completion",
	"__wait_for_common",
	"wait_for_common",
};

static bool is_generic_frame(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(generic_frames); i++)
		if (strlen(generic_frames[i]) == len && memcmp(generic_frames[i], name, len) == 0)
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
	/* the instruction pointer is that of the context an interrupt stopped, at line ip_index */
	bool ip_interrupted;
	size_t ip_index;
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

/* Removes a marker that older kernels print before the first frame: "<IRQ>  [<ffff...>] ...". */
static void line_skip_marker(Line *l)
{
	static const char *const markers[] = {"<IRQ>", "<NMI>", "<EOI>"};

	for (size_t i = 0; i < ARRAY_SIZE(markers); i++)
		if (has_prefix(l, markers[i])) {
			*l = line_after(l, strlen(markers[i]));
			line_trim(l);
			return;
		}
}

/* The length of the line that starts a call trace, 0 if l does not. */
static size_t trace_header_len(const Line *l)
{
	static const char *const headers[] = {"Call Trace:", "Call trace:", "Backtrace:"};

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
 * ("cpumask_first include/linux/cpumask.h:214 [inline]").
 */
static bool is_trace_noise(const Line *l)
{
	size_t i;

	if (has_prefix(l, "Exception stack(") || has_prefix(l, "([<") ||
	    (l->len > 8 && memcmp(l->s + l->len - 8, "[inline]", 8) == 0))
		return true;
	if (l->len > 3 && l->s[0] == 'r' && is_digit(l->s[1]))
		return memchr(l->s, ':', MIN(l->len, (size_t)4)) != NULL;
	i = skip_hex(l, 0);
	return i >= 3 && i + 1 < l->len && l->s[i] == ':' && l->s[i + 1] == ' ';
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

/* "CPU: 0 PID: 1 Comm: sh ...", 2.6's "Pid: 1, comm: sh ...", 32-bit powerpc's
 * "TASK = cfa5d000[950] 'bash' THREAD: cf9ce000" */
static bool is_task_line(const Line *l)
{
	return (has_prefix(l, "CPU: ") && line_find(l, " PID: ") && line_find(l, " Comm: ")) ||
	       (has_prefix(l, "Pid: ") && line_find(l, ", comm: ")) ||
	       (has_prefix(l, "TASK = ") && line_find(l, "] '"));
}

/* powerpc's "REGS: cf9cfe40 TRAP: 0300 Not tainted (2.6.25-rc2)" */
static bool is_taint_line(const Line *l)
{
	return has_prefix(l, "Not tainted ") || has_prefix(l, "Tainted: ") ||
	       (has_prefix(l, "REGS: ") &&
		(line_find(l, " Not tainted") || line_find(l, " Tainted:")));
}

/*
 * Reads the report in lines start to end. With stalled (an RCU stall: the CPU is stuck where the
 * timer interrupt found it), the instruction pointer after the interrupt's frames is where it
 * happened; in other reports it is not.
 */
static void report_scan(Report *r, const Line *lines, size_t start, size_t end, bool stalled)
{
	bool in_trace = false, after_irq = false;

	for (size_t i = start; i < end; i++) {
		const Line *l = &lines[i];

		if (trace_header_len(l) > 0) {
			in_trace = true;
			after_irq = false;
		} else if (has_prefix(l, "---[ end "))
			in_trace = false;
		else if (line_is(l, "</IRQ>") || line_is(l, "<EOI>"))
			after_irq = true;

		if (!r->task_line && is_task_line(l))
			r->task_line = l;
		else if (!r->taint_line && is_taint_line(l))
			r->taint_line = l;
		else if (!r->hardware_line && has_prefix(l, "Hardware name: "))
			r->hardware_line = l;
		/* inside a trace, an instruction pointer is that of an interrupted context */
		else if (!r->have_ip && (!in_trace || (stalled && after_irq)) &&
			 parse_ip_line(l, &r->ip)) {
			r->have_ip = true;
			r->ip_interrupted = in_trace;
			r->ip_index = i;
		}
		/* arm's unwinder prints the frames right after the stack, without a header */
		else if (!r->trace_start &&
			 (trace_header_len(l) > 0 || parse_arm_frame(l, &(Symbol){}))) {
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
			l = line_after(&l, trace_header_len(&l));
		else if (is_trace_marker(&l) || is_trace_noise(&l) || is_trace_registers(&l))
			continue;
		line_skip_marker(&l);
		if (!parse_symbol(&l, &sym) && !parse_arm_frame(&l, &sym)) {
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

/*
 * Reads "Not tainted 6.1.0-18-amd64 #1 ...", "Tainted: G      D W  O      6.1.0 #1 ..." or, after
 * powerpc's "REGS: ... TRAP: 0300 ", "Not tainted (2.6.25-rc2)".
 */
static int analysis_read_taint(DmesgAnalysis *a, const Line *line)
{
	const char *t = NULL;
	Line rest = *line;
	const Line *l = &rest;
	char letters[33];
	size_t n = 0, i;
	bool tainted;

	if (has_prefix(line, "REGS: ") &&
	    ((t = line_find(line, " Not tainted")) || (t = line_find(line, " Tainted:"))))
		rest = (Line){t + 1, (size_t)(line->s + line->len - t - 1)};
	if (has_prefix(l, "Not tainted"))
		i = strlen("Not tainted"), tainted = false;
	else if (has_prefix(l, "Tainted:"))
		i = strlen("Tainted:"), tainted = true;
	else
		return 0;

	/* Taint columns are upper-case letters or blanks; the version starts with a digit, in
	 * parentheses on powerpc. */
	for (; i < l->len && !is_digit(l->s[i]) && l->s[i] != '('; i++) {
		if (!tainted)
			break;
		if (l->s[i] >= 'A' && l->s[i] <= 'Z') {
			if (n < sizeof(letters) - 1)
				letters[n++] = l->s[i];
		} else if (!is_blank(l->s[i]) && l->s[i] != '-') /* RHEL 6 pads with dashes */
			return 0;				 /* not a taint string */
	}
	i = skip_blanks(l, i);
	if (i < l->len && l->s[i] == '(')
		i++;
	letters[n] = '\0';
	if (!a->taint) {
		a->taint = strdup(letters);
		if (!a->taint)
			return -ENOMEM;
	}
	if (i < l->len && is_digit(l->s[i])) {
		size_t start = i;

		while (i < l->len && !is_blank(l->s[i]) && l->s[i] != ')')
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

/* "TASK = cfa5d000[950] 'bash' THREAD: cf9ce000" */
static int analysis_read_ppc_task(DmesgAnalysis *a, const Line *l)
{
	const char *open = memchr(l->s, '[', l->len), *quote = line_find(l, "] '"), *end;

	if (!open || !quote || open > quote || a->comm)
		return 0;
	end = memchr(quote + 3, '\'', (size_t)(l->s + l->len - quote - 3));
	if (!end)
		return 0;
	a->comm = text_dup(quote + 3, (size_t)(end - quote - 3), NAME_MAX_LEN);
	if (!a->comm)
		return -ENOMEM;
	a->pid = parse_pid(open + 1, (size_t)(quote - open - 1));
	return 0;
}

/* "CPU: 0 PID: 1 Comm: sh Not tainted 6.1.0 #1 ..." or "Pid: 1, comm: sh Tainted: ...". */
static int analysis_read_task_line(DmesgAnalysis *a, const Line *l, bool take_task)
{
	const char *pid_at, *comm_at, *end = l->s + l->len, *t;
	size_t pid_len = 0;
	Line rest;

	if (has_prefix(l, "TASK = "))
		return take_task ? analysis_read_ppc_task(a, l) : 0;
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
		/* dump_stack_print_info() puts "Kdump: loaded" between comm and taint */
		const char *kdump = line_find(&rest, " Kdump: loaded");
		const char *comm_end = kdump && kdump < t ? kdump : t;

		a->comm = text_dup(comm_at, (size_t)(comm_end - comm_at), NAME_MAX_LEN);
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
		/* after the prefix: "INFO: task blocked for more than" names no task */
		const Line rest = line_after(l, strlen("INFO: task "));
		const char *e = line_find(&rest, " blocked for more than ");

		return e ? analysis_read_comm_pid(a, rest.s, (size_t)(e - rest.s)) : 0;
	}
	if (kind == EVENT_SOFT_LOCKUP && l->len > 2 && l->s[l->len - 1] == ']') {
		const char *open = memrchr(l->s, '[', l->len);

		if (open)
			return analysis_read_comm_pid(a, open + 1,
						      (size_t)(l->s + l->len - open - 2));
	}
	return 0;
}

/*
 * The function that the first line of a report names: "Kernel panic - not syncing:
 * stack-protector: Kernel stack is corrupted in: func+0x7ea/0x7f0", "BUG: KASAN:
 * slab-use-after-free in lock_timer_base+0x1d9/0x220".
 */
static bool parse_message_symbol(const Line *l, Symbol *ret)
{
	static const char corrupted[] = "Kernel stack is corrupted in: ";
	const char *at = line_find(l, corrupted);
	Line rest;

	if (at)
		at += strlen(corrupted);
	else if (has_prefix(l, "BUG: KASAN: ") && (at = line_find(l, " in ")))
		at += strlen(" in ");
	else
		return false;
	rest = (Line){at, (size_t)(l->s + l->len - at)};
	return parse_symbol(&rest, ret) && !ret->unreliable;
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

/* A task line cut in two: "CPU: 1 PID: 1" and "88243 Comm: X Not tainted 5.3.6 #1". */
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
static int join_wrapped_task_lines(Line *lines, size_t n, char **ret_buf)
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

/* The number after prefix in l, -1 if none. */
static int line_number_after(const Line *l, const char *prefix)
{
	const char *p = line_find(l, prefix);
	size_t n = 0;

	if (!p)
		return -1;
	p += strlen(prefix);
	while (p + n < l->s + l->len && is_digit(p[n]))
		n++;
	return parse_pid(p, n);
}

/* The PID of the report at start: on its first line (a WARNING), else on its task line. */
static int report_pid(const Line *lines, size_t n, size_t start)
{
	int pid = line_number_after(&lines[start], " PID: ");
	size_t end;

	if (pid >= 0)
		return pid;
	end = report_end(lines, n, start);
	for (size_t i = start + 1; i < end; i++)
		if (is_task_line(&lines[i]))
			return line_number_after(&lines[i], " PID: ");
	return -1;
}

/*
 * Whether the report at line earlier (a WARNING, a hard lockup) caused the oops or BUG report at
 * start: a report of the same task that follows it closely (a WARNING about freeing, then KASAN's
 * invalid-free; powerpc's hard lockup, then the system reset its watchdog sent).
 */
static bool report_caused(const Line *lines, size_t n, size_t earlier, size_t start)
{
	int pid;

	if (earlier >= start || start - earlier > REPORT_LINES_MAX)
		return false;
	pid = report_pid(lines, n, earlier);
	return pid >= 0 && report_pid(lines, n, start) == pid;
}

/* The report that tells what the crash was, and the reason to give it. */
static size_t choose_report(const size_t first[_EVENT_MAX], size_t none, Event *ret_kind)
{
	static const Event order[] = {
		EVENT_HARD_LOCKUP, EVENT_SOFT_LOCKUP, EVENT_RCU_STALL, EVENT_MCE,
		EVENT_HUNG_TASK,   EVENT_WARNING,     EVENT_EMERGENCY, EVENT_SHUTDOWN,
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

/* What one pass over the log finds: the first line of each event, and lines to fall back on. */
typedef struct LogScan {
	size_t first[_EVENT_MAX]; /* n when there is none */
	const Line *task_line;
	const Line *hardware_line;
	const Line *version_line;
} LogScan;

static void log_scan(LogScan *scan, const Line *lines, size_t n, const LogHas *has)
{
	*scan = (LogScan){};
	for (size_t k = 0; k < _EVENT_MAX; k++)
		scan->first[k] = n;
	for (size_t i = 0; i < n; i++) {
		Event e = classify_in(&lines[i], has);

		if (scan->first[e] == n)
			scan->first[e] = i;
		if (!scan->task_line && is_task_line(&lines[i]))
			scan->task_line = &lines[i];
		if (!scan->hardware_line && has_prefix(&lines[i], "Hardware name: "))
			scan->hardware_line = &lines[i];
		if (!scan->version_line && has_prefix(&lines[i], "Linux version "))
			scan->version_line = &lines[i];
	}
}

/*
 * The report of the cause, not of the aftermath: the panic's own cause, the oops or BUG before
 * it, the WARNING that led to an oops. Returns its first line (n if none) and its kind.
 */
static size_t choose_cause(const LogScan *scan, const Line *lines, size_t n, Event *ret_kind)
{
	const size_t *first = scan->first;
	size_t oops = MIN(first[EVENT_OOPS], first[EVENT_BUG]);
	Event oops_kind = first[EVENT_OOPS] < first[EVENT_BUG] ? EVENT_OOPS : EVENT_BUG;
	size_t start = choose_report(first, n, ret_kind);

	if (*ret_kind == EVENT_PANIC) {
		/* A panic names its cause; the cause's own report tells more. */
		Event cause = panic_cause(&lines[start]);

		/* "KASAN: panic_on_warn set ...": KASAN and UBSAN reports panic as a WARNING
		 * does, and the first report is the cause. */
		if ((cause == EVENT_OOPS && oops != n) ||
		    (cause == EVENT_WARNING && first[EVENT_WARNING] == n && oops < start)) {
			*ret_kind = oops_kind;
			start = oops;
		} else if (cause != EVENT_PANIC) {
			*ret_kind = cause;
			if (first[cause] != n)
				start = first[cause];
		}
	}
	if (*ret_kind != EVENT_OOPS && *ret_kind != EVENT_BUG)
		return start;
	if (report_caused(lines, n, first[EVENT_WARNING], start)) {
		*ret_kind = EVENT_WARNING;
		start = first[EVENT_WARNING];
	} else if (report_caused(lines, n, first[EVENT_HARD_LOCKUP], start)) {
		*ret_kind = EVENT_HARD_LOCKUP;
		start = first[EVENT_HARD_LOCKUP];
	}
	return start;
}

/* The lines of the report at start (not n) of the given kind, and of what it ran into. */
static void report_read(Report *report, const Line *lines, size_t n, size_t start, Event kind)
{
	bool stalled = kind == EVENT_RCU_STALL;
	size_t end = report_end(lines, n, start);

	report_scan(report, lines, start, end, stalled);
	/* A report cut short by the panic it caused ("panic_on_warn set ..."): the panic's own
	 * dump shows the same task. */
	if (end < n && classify(&lines[end]) == EVENT_PANIC)
		report_scan(report, lines, end, report_end(lines, n, end), stalled);
	/* A panic whose cause was cut off the start of the log ("Fatal exception"): what is left
	 * of that report is before the panic line. */
	if (kind != EVENT_PANIC && classify(&lines[start]) == EVENT_PANIC)
		report_scan(report, lines, report_begin(lines, start), start, stalled);
	/* arm64's "kernel stack overflow" panics after the registers of the overflow */
	else if (kind == EVENT_PANIC && line_find(&lines[start], "stack overflow"))
		report_scan(report, lines, report_begin(lines, start), start, stalled);

	/* A stalled CPU's frames are those of the context it was stuck in, after the registers
	 * there. */
	if (report->ip_interrupted)
		for (size_t i = report->ip_index + 1; i < end; i++)
			if (parse_symbol(&lines[i], &(Symbol){})) {
				report->trace_start = &lines[i];
				report->trace_index = i;
				break;
			}
}

/*
 * Where it happened: the function the report's first line names, the instruction pointer, else
 * the WARNING line, else the first frame of the trace that is not the reporting machinery
 * (panic(), ...).
 */
static int analysis_read_function(DmesgAnalysis *a, const Line *first_line, const Report *report,
				  const Symbol *frame)
{
	Symbol sym = {};
	int r;

	if (!parse_message_symbol(first_line, &sym)) {
		if (report->have_ip)
			sym = report->ip;
		else if (!(classify(first_line) == EVENT_WARNING &&
			   parse_warning_symbol(first_line, &sym)) &&
			 frame)
			sym = *frame;
	}
	if (sym.name.len > 0) {
		r = set_text(&a->function, sym.name.s, sym.name.len, NAME_MAX_LEN);
		if (r < 0)
			return r;
	}
	if (sym.module.len > 0)
		return set_text(&a->module, sym.module.s, sym.module.len, NAME_MAX_LEN);
	return 0;
}

/*
 * A hard lockup that another CPU detected ("Watchdog detected hard LOCKUP on cpu 0" in the report
 * of CPU 7, the buddy detector's): the report's frames are the detector's, and where the locked
 * CPU was is not in it.
 */
static bool is_lockup_of_other_cpu(const Line *first_line, const Line *task_line)
{
	int locked = line_number_after(first_line, "LOCKUP on cpu ");

	return locked >= 0 && task_line && has_prefix(task_line, "CPU: ") &&
	       line_number_after(task_line, "CPU: ") != locked;
}

/* What the report at start says: its message, task, trace, function, taint and hardware. */
static int analysis_read_report(DmesgAnalysis *a, const Line *lines, size_t n, size_t start,
				Event kind, const Line **ret_hardware_line)
{
	Report report = {};
	Symbol frame = {};
	bool have_frame = false;
	int r;

	r = set_text(&a->message, lines[start].s, lines[start].len, TEXT_MAX_LEN);
	if (r < 0)
		return r;
	r = analysis_read_event_task(a, classify(&lines[start]), &lines[start]);
	if (r < 0)
		return r;
	report_read(&report, lines, n, start, kind);
	if (report.trace_start) {
		r = analysis_read_trace(a, lines, report.trace_index, n, &frame, &have_frame);
		if (r < 0)
			return r;
	}
	if (!is_lockup_of_other_cpu(&lines[start], report.task_line)) {
		r = analysis_read_function(a, &lines[start], &report, have_frame ? &frame : NULL);
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
		*ret_hardware_line = report.hardware_line;
	return 0;
}

/* From elsewhere in the log, what the report did not say: task, kernel version, hardware. */
static int analysis_read_elsewhere(DmesgAnalysis *a, const LogScan *scan, const Line *hardware_line)
{
	int r;

	if (scan->task_line) {
		r = analysis_read_task_line(a, scan->task_line, false);
		if (r < 0)
			return r;
	}
	if (!a->kernel_version && scan->version_line) {
		Line rest = line_after(scan->version_line, strlen("Linux version "));
		size_t i = 0;

		while (i < rest.len && !is_blank(rest.s[i]))
			i++;
		r = set_text(&a->kernel_version, rest.s, i, NAME_MAX_LEN);
		if (r < 0)
			return r;
	}
	if (hardware_line) {
		Line rest = line_after(hardware_line, strlen("Hardware name: "));

		return set_text(&a->hardware, rest.s, rest.len, TEXT_MAX_LEN);
	}
	return 0;
}

static int analyse_lines(DmesgAnalysis *a, const Line *lines, size_t n, const LogHas *has)
{
	LogScan scan;
	const Line *hardware_line;
	size_t start;
	Event kind;
	int r;

	log_scan(&scan, lines, n, has);
	hardware_line = scan.hardware_line;
	start = choose_cause(&scan, lines, n, &kind);
	a->reason = strdup(event_reasons[kind]);
	if (!a->reason)
		return -ENOMEM;
	if (start < n) {
		r = analysis_read_report(a, lines, n, start, kind, &hardware_line);
		if (r < 0)
			return r;
	}
	r = analysis_read_elsewhere(a, &scan, hardware_line);
	if (r < 0)
		return r;
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
	_cleanup_free_ char *joined = NULL;
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
	r = join_wrapped_task_lines(lines, n, &joined);
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
