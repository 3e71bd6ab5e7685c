/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Classifying lines: which line starts a report of which kind (an oops, a BUG, a WARNING, a
 * lockup, a panic, ...), and what a panic says caused it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"

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

#define SOFT_LOCKUP_TEXT "BUG: soft lockup"
/* "Watchdog detected hard LOCKUP on cpu 1"; powerpc: "CPU 28 self-detected hard LOCKUP @ ..." */
#define HARD_LOCKUP_TEXT "hard LOCKUP"
/* powerpc: "watchdog: CPU 24 Hard LOCKUP", 4.15: "Watchdog CPU:42 Hard LOCKUP" */
#define HARD_LOCKUP_TEXT2 "Hard LOCKUP"
/* The first letters of the prefixes that classify_in() looks for after the lockups: "BUG: ",
 * "CPU ", "INFO: ", "Internal error: ", "Kernel BUG at ", "Oops", "Power down.", "Restarting
 * system.", "SysRq : ", "System halted.", "Unable to handle", "UBSAN: ", "WARNING: ", "double
 * fault: ", "general protection fault", "invalid opcode: ", "kernel BUG at ", "rcu: INFO: ",
 * "reboot: ", "stack segment: ", "sysrq: " */
#define REPORT_INITIALS "BCIKOPRSUWdgikrs"
#define MCE_TEXT "[Hardware Error]: CPU "
#define MCE_TEXT2 ": Machine Check"

static const LogHas log_has_all = {true, true, true};

/* Whether the len bytes at log hold text; log may be NULL when len is 0. */
bool log_contains(const char *log, size_t len, const char *text)
{
	size_t n = strlen(text);

	return len >= n && memmem(log, len, text, n);
}

LogHas log_has(const char *log, size_t len)
{
	return (LogHas){
		.soft_lockup = log_contains(log, len, SOFT_LOCKUP_TEXT),
		.hard_lockup = log_contains(log, len, HARD_LOCKUP_TEXT) ||
			       log_contains(log, len, HARD_LOCKUP_TEXT2),
		.mce = log_contains(log, len, MCE_TEXT) && log_contains(log, len, MCE_TEXT2),
	};
}

/*
 * Whether an "Oops: " line is die()'s, which counts the oopses: "Oops: 0000 [#1] SMP", 2.6's
 * "Oops: 0000 [1] SMP", powerpc's "Oops: Kernel access of bad area, sig: 11 [#1]"; not another
 * message that starts with the word ("Oops: efitime: can't read time!").
 */
static bool is_die_line(const Line *l)
{
	const char *p;

	if (!has_prefix(l, "Oops: "))
		return true;
	for (p = memchr(l->s, '[', l->len); p;
	     p = memchr(p + 1, '[', (size_t)(l->s + l->len - p - 1)))
		if (p + 1 < l->s + l->len && (p[1] == '#' || is_digit(p[1])))
			return true;
	return false;
}

/*
 * lockdep's and RCU-lockdep's reports, which start with "WARNING: " and the problem: "WARNING:
 * possible circular locking dependency detected", "WARNING: suspicious RCU usage", ...
 */
bool is_lockdep_warning(const Line *l)
{
	static const char *const problems[] = {
		"WARNING: possible ",
		"WARNING: suspicious RCU usage",
		"WARNING: inconsistent lock state",
		"WARNING: bad unlock balance detected!",
		"WARNING: held lock freed!",
		"WARNING: lock held when returning to user space!",
		"WARNING: Nested lock was not taken",
		"WARNING: bad contention detected!",
	};

	for (size_t i = 0; i < ARRAY_SIZE(problems); i++)
		if (has_prefix(l, problems[i]))
			return true;
	return false;
}

/* What line l reports; has says which texts the log holds at all. */
Event classify_in(const Line *l, const LogHas *has)
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
		"invalid operand: ", /* 2.6 */
		"stack segment: ",
		"double fault: ",
	};

	/* arc's die() prints its message alone: "Oops", then "Path: ..." and the task line */
	if (line_is(l, "Oops"))
		return EVENT_OOPS;
	if (l->len < 6)
		return EVENT_NONE;
	/* arm64_serror_panic(): the registers, then "Kernel panic - not syncing: Asynchronous
	 * SError Interrupt" */
	/* a log that keeps only the end of a panic: "---[ end Kernel panic - not syncing: Out of
	 * memory ... ]---" */
	if (has_prefix(l, PANIC_TEXT) || has_prefix(l, "SError Interrupt on CPU") ||
	    has_prefix(l, END_MARKER PANIC_TEXT))
		return EVENT_PANIC;
	if (has->soft_lockup && line_find(l, SOFT_LOCKUP_TEXT))
		return EVENT_SOFT_LOCKUP;
	if (has->hard_lockup &&
	    (line_find(l, HARD_LOCKUP_TEXT) || line_find(l, HARD_LOCKUP_TEXT2)) &&
	    !has_prefix(l, END_MARKER))
		return EVENT_HARD_LOCKUP;
	/* The reports below start their line with one of these letters; most lines start with
	 * another and are passed over at once. */
	if (!memchr(REPORT_INITIALS, l->s[0], strlen(REPORT_INITIALS)))
		return has->mce && line_find(l, MCE_TEXT) && line_find(l, MCE_TEXT2) ? EVENT_MCE
										     : EVENT_NONE;
	if (has_prefix(l, "INFO: task ") && line_find(l, " blocked for more than "))
		return EVENT_HUNG_TASK;
	if ((has_prefix(l, "INFO: rcu_") || has_prefix(l, "rcu: INFO: rcu_")) &&
	    line_find(l, " stall"))
		return EVENT_RCU_STALL;
	/* 6.16 and later: "WARNING: mm/memblock.c:904 at __free_reserved_area+0xd3/0xf0, CPU#0:
	 * swapper/0/0"; UBSAN's reports are of a WARNING's kind, the kernel going on unless
	 * panic_on_warn is set ("UBSAN: array-index-out-of-bounds in drivers/...") */
	if (has_prefix(l, "WARNING: CPU: ") || has_prefix(l, "WARNING: at ") ||
	    has_prefix(l, "UBSAN: ") || is_lockdep_warning(l) ||
	    (has_prefix(l, "WARNING: ") && line_find(l, " at ") && line_find(l, ", CPU#")))
		return EVENT_WARNING;
	/* x86-64 before 2.6.18: "Kernel BUG at "fs/exec.c":777" */
	if (has_prefix(l, "kernel BUG at ") || has_prefix(l, "Kernel BUG at "))
		return EVENT_BUG;
	for (size_t i = 0; i < ARRAY_SIZE(oops_prefixes); i++)
		if (has_prefix(l, oops_prefixes[i]))
			return is_die_line(l) ? EVENT_OOPS : EVENT_NONE;
	/* mips, loongarch: "CPU 0 Unable to handle kernel paging request at virtual address ..." */
	if (has_prefix(l, "CPU ") && line_find(l, " Unable to handle kernel "))
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

Event classify(const Line *l)
{
	return classify_in(l, &log_has_all);
}

/* What the message of a panic says caused it (EVENT_OOPS stands for an oops or a BUG). */
Event panic_cause(const Line *l)
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
	if (line_find(l, "Fatal exception") || line_find(l, "scheduling while atomic") ||
	    line_find(l, "not syncing: Oops")) /* 2.6 */
		return EVENT_OOPS;
	return EVENT_PANIC;
}

const char *event_reason(Event e)
{
	return event_reasons[e];
}

/*
 * Whether a panic is that of a task that must not exit, "Attempted to kill the idle task!",
 * "Attempted to kill init! exitcode=0x0000000b": after an oops killed it, the oops is the cause.
 */
bool panic_on_task_exit(const Line *l)
{
	return line_find(l, "Attempted to kill the idle task") ||
	       line_find(l, "Attempted to kill init");
}

/* The text of a report's first line: without "---[ end " and " ]---" when it is an end marker. */
Line event_headline(const Line *l)
{
	Line h = *l;

	if (!has_prefix(&h, END_MARKER))
		return h;
	h = line_after(&h, strlen(END_MARKER));
	if (h.len >= 5 && memcmp(h.s + h.len - 5, " ]---", 5) == 0)
		h.len -= 5;
	return h;
}
