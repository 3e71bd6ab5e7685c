/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Choosing the report: of all the reports in a log, the one of the cause (not of the aftermath),
 * and reading it whole.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"

/* What one report tells, first found wins. */
typedef struct Report {
	const Line *task_line;	    /* "CPU: 0 PID: 1 Comm: sh ..." */
	const Line *task_dump_line; /* sched_show_task()'s, in an RCU stall */
	const Line *by_task_line;   /* KASAN's "Read of size 1 at addr ... by task modprobe/590" */
	const Line *process_line;   /* "Process sh (pid: 512, stack limit = 0xc79b02e8)" */
	const Line *taint_line;
	const Line *release_line; /* i386's "EFLAGS: 00010282   (2.6.19.1 #1)" */
	const Line *hardware_line;
	Symbol ip;
	bool have_ip;
	/* the instruction pointer is that of the context an interrupt stopped, at line ip_index */
	bool ip_interrupted;
	size_t ip_index;
	const Line *trace_start; /* "Call Trace:" */
	size_t trace_index;
	/* the "</IRQ>" or "<EOI>" after which a trace goes on in the interrupted context, 0 if none */
	size_t after_irq_index;
} Report;

/*
 * Reads the report in lines start to end. With stalled (an RCU stall: the CPU is stuck where the
 * timer interrupt found it), the instruction pointer after the interrupt's frames is where it
 * happened; in other reports it is not.
 */
static void report_scan(Report *r, const Line *lines, size_t start, size_t end, bool stalled)
{
	bool in_trace = false, after_irq = false, null_ip = false;
	size_t traces = 0;

	for (size_t i = start; i < end; i++) {
		const Line *l = &lines[i];

		if (trace_header_len(l) > 0) {
			in_trace = true;
			after_irq = false;
			traces++;
		} else if (has_prefix(l, END_MARKER))
			in_trace = false;
		/* in the report's first trace: the others are other CPUs' */
		else if (in_trace && !after_irq && traces == 1 &&
			 (has_prefix(l, "</IRQ>") || has_prefix(l, "<EOI>") ||
			  has_prefix(l, "<<EOE>>") || has_prefix(l, "</NMI>"))) {
			after_irq = true;
			/* "<EOI>  [<ffffffff810e4299>] ? note_page+0x249/0xe90" before 4.9 */
			r->after_irq_index = i;
		}

		if (!r->task_dump_line &&
		    ((i > start && has_prefix(&lines[i - 1], "Task dump for CPU ")) ||
		     (has_prefix(l, "task:") && line_find(l, " pid:"))))
			r->task_dump_line = l;
		if (!r->by_task_line && line_find(l, " by task "))
			r->by_task_line = l;
		if (!r->process_line && has_prefix(l, "Process ") && line_find(l, " (pid: "))
			r->process_line = l;
		if (!r->task_line && is_task_line(l))
			r->task_line = l;
		else if (!r->taint_line && is_taint_line(l))
			r->taint_line = l;
		else if (!r->release_line && is_release_line(l))
			r->release_line = l;
		else if (!r->hardware_line && has_prefix(l, "Hardware name: "))
			r->hardware_line = l;
		/* inside a trace, an instruction pointer is that of an interrupted context: in an
		 * RCU stall, the one the timer interrupt found the stalled CPU in */
		/* before 5.x, x86's die() ends with the instruction pointer again, after the trace
		 * ("EIP: [<c0123456>] func+0x43/0x183 SS:ESP 0068:e7935f58", "RIP  [<...>] func") */
		else if (!r->have_ip &&
			 (!in_trace || stalled || has_prefix(l, "EIP: [<") ||
			  has_prefix(l, "RIP  [<")) &&
			 parse_ip_line(l, &r->ip)) {
			r->have_ip = true;
			r->ip_interrupted = in_trace;
			r->ip_index = i;
		}
		/* arm's unwinder prints the frames right after the stack, without a header */
		else if (!r->trace_start &&
			 (trace_header_len(l) > 0 || parse_arm_frame(l, &(Symbol){}, NULL))) {
			r->trace_start = l;
			r->trace_index = i;
		}
		/* a call through a NULL function pointer: the return address names the caller */
		if (!r->have_ip && !in_trace) {
			if (is_null_ip_line(l))
				null_ip = true;
			else if (null_ip && parse_return_address_line(l, &r->ip)) {
				r->have_ip = true;
				r->ip_index = i;
			}
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

		if (has_prefix(&lines[i], END_MARKER))
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

/* The PID that a report's first line names ("WARNING: CPU: 1 PID: 0 at ..."), -1 if none. */
static int pid_named(const Line *first_line)
{
	return line_number_after(first_line, " PID: ");
}

/* The PID of the report at start: on its first line (a WARNING), else on its task line. */
static int report_pid(const Line *lines, size_t n, size_t start)
{
	int pid = pid_named(&lines[start]);
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
		if (!scan->taint_line && is_taint_line(&lines[i]))
			scan->taint_line = &lines[i];
		if (!scan->release_line && is_release_line(&lines[i]))
			scan->release_line = &lines[i];
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
		 * does, and the first report is the cause; so is an oops that killed the idle
		 * task or init. */
		if ((cause == EVENT_OOPS && oops != n) ||
		    (cause == EVENT_WARNING && first[EVENT_WARNING] == n && oops < start) ||
		    (panic_on_task_exit(&lines[start]) && oops < start)) {
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
	/* "BUG: unsupported FP instruction in kernel mode", then die()'s "Internal error: Oops -
	 * undefined instruction: 0 [#1]" in the same report: die() says what it was */
	if (*ret_kind == EVENT_BUG && has_prefix(&lines[start], "BUG: ") &&
	    first[EVENT_OOPS] > start && first[EVENT_OOPS] < report_end(lines, n, start) &&
	    !line_find(&lines[first[EVENT_OOPS]], "Oops - BUG"))
		*ret_kind = EVENT_OOPS;
	if (report_caused(lines, n, first[EVENT_WARNING], start)) {
		*ret_kind = EVENT_WARNING;
		start = first[EVENT_WARNING];
	} else if (report_caused(lines, n, first[EVENT_HARD_LOCKUP], start)) {
		*ret_kind = EVENT_HARD_LOCKUP;
		start = first[EVENT_HARD_LOCKUP];
	}
	return start;
}

/*
 * A WARNING line that syzkaller decoded is printed once for each function inlined where it
 * happened, as its "RIP:" line is: "WARNING: ./include/linux/ns_common.h:229 at __ns_ref_put
 * include/linux/ns_common.h:229 [inline], CPU#0: kworker/0:6/6108" (before 6.16 "WARNING: CPU: 0
 * PID: 22406 at ./include/linux/ns_common.h:261 __ns_ref_put include/linux/ns_common.h:261
 * [inline]"), then the same for the functions they were inlined into, the last "at
 * destroy_super_work+0x15c/0x1a0 fs/super.c:280". The report is read from the last.
 */
static size_t skip_inlined_warnings(const Line *lines, size_t n, size_t start)
{
	for (;;) {
		size_t next = start + 1;

		/* past the lines that a wrapped WARNING line was joined from */
		while (next < n && lines[next].continued)
			next++;
		if (next == n || classify(&lines[start]) != EVENT_WARNING ||
		    !line_find(&lines[start], " [inline]") ||
		    classify(&lines[next]) != EVENT_WARNING)
			return start;
		start = next;
	}
}

/*
 * A trace without a header: from the first frame in lines from to to. The slab allocator's tracks
 * after "INFO: Allocated in ..." are not where it happened.
 */
static void report_find_frames(Report *report, const Line *lines, size_t from, size_t to)
{
	for (size_t i = from; i < to && !has_prefix(&lines[i], "INFO: "); i++)
		if (parse_symbol(&lines[i], &(Symbol){})) {
			report->trace_start = &lines[i];
			report->trace_index = i;
			return;
		}
}

/* The lines of the report at start (not n) of the given kind, and of what it ran into. */
static void report_read(Report *report, const Line *lines, size_t n, size_t start, Event kind)
{
	bool stalled = kind == EVENT_RCU_STALL;
	size_t end = report_end(lines, n, start);

	report_scan(report, lines, start, end, stalled);
	/* A report cut short by the panic it caused ("panic_on_warn set ..."): the panic's own
	 * dump shows the same task. */
	if (end < n && classify(&lines[end]) == EVENT_PANIC && !has_prefix(&lines[end], END_MARKER))
		report_scan(report, lines, end, report_end(lines, n, end), stalled);
	/* A panic whose cause was cut off the start of the log ("Fatal exception"): what is left
	 * of that report is before the panic line. */
	if (kind != EVENT_PANIC && classify(&lines[start]) == EVENT_PANIC)
		report_scan(report, lines, report_begin(lines, start), start, stalled);
	/* arm64's "kernel stack overflow" panics after the registers of the overflow; a log that
	 * lost a panic's first line keeps its dump before its end marker ("---[ end Kernel panic
	 * - not syncing: Out of memory and no killable processes...") */
	else if (kind == EVENT_PANIC && (line_find(&lines[start], "stack overflow") ||
					 has_prefix(&lines[start], END_MARKER)))
		report_scan(report, lines, report_begin(lines, start), start, stalled);

	/* A stalled CPU's frames are those of the context it was stuck in, after the registers
	 * there, or without them (before 4.9) after the end of the interrupt. */
	if (report->ip_interrupted) {
		for (size_t i = report->ip_index + 1; i < end; i++)
			if (parse_symbol(&lines[i], &(Symbol){})) {
				report->trace_start = &lines[i];
				report->trace_index = i;
				break;
			}
	} else if ((stalled || (kind == EVENT_HARD_LOCKUP && !report->have_ip &&
				trace_has_frame_at(lines, report->after_irq_index, end))) &&
		   report->after_irq_index > 0) {
		/* where the timer interrupt or, in a hard lockup whose registers were not printed,
		 * the NMI watchdog found the CPU: after "<<EOE>>" before 3.x */
		report->trace_start = &lines[report->after_irq_index];
		report->trace_index = report->after_irq_index;
	} else if (stalled && report->trace_start) {
		/* without markers (arm64, arm, riscv; x86 before 3.x): after the interrupt's entry
		 * frame; an instruction pointer outside the trace is then the NMI's, which printed
		 * it (arch_trigger_all_cpu_backtrace()) */
		size_t after = trace_after_irq_entry(lines, report->trace_index, end);

		if (after > 0) {
			report->trace_start = &lines[after];
			report->trace_index = after;
			report->have_ip = false;
		}
	}
	/* KFENCE and others print their frames without a header, after the first line */
	if (!report->trace_start)
		report_find_frames(report, lines, start + 1, end);
	/* a log that keeps only the end of a report, cut inside its trace: the frames before the
	 * end marker ("---[ end Kernel panic - not syncing: VFS: ... ]---") */
	if (!report->trace_start && has_prefix(&lines[start], END_MARKER))
		report_find_frames(report, lines, report_begin(lines, start), start);
}

/*
 * The function that called the frame named name (the first that is not the reporting machinery),
 * and its module: the victim of a stack-protector panic that names it by address (the caller of
 * __stack_chk_fail()), the code that a sanitizer's check named in a report's first line was
 * checking, the code that took a lock lockdep warns about (the caller of lock_acquire()).
 */
static int analysis_read_caller_of(DmesgAnalysis *a, const Line *name)
{
	for (size_t i = 0; i + 1 < a->n_frames; i++) {
		const DmesgFrame *caller = &a->frames[i + 1];
		int r;

		if (strlen(a->frames[i].function) != name->len ||
		    memcmp(a->frames[i].function, name->s, name->len) != 0)
			continue;
		/* past the sleeping lock that lock_acquire() was called for */
		while (i + 2 < a->n_frames &&
		       is_generic_frame(
			       caller->function,
			       function_base_len(caller->function, strlen(caller->function))))
			caller = &a->frames[++i + 1];
		r = set_text(&a->function, caller->function, strlen(caller->function),
			     NAME_MAX_LEN);
		if (r < 0 || !caller->module)
			return r;
		return set_text(&a->module, caller->module, strlen(caller->module), NAME_MAX_LEN);
	}
	return 0;
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

	if (parse_message_symbol(first_line, &sym) && is_sanitizer_helper(&sym.name)) {
		r = analysis_read_caller_of(a, &sym.name);
		if (r < 0 || a->function)
			return r;
	} else if (sym.name.len == 0) {
		if (is_lockdep_warning(first_line)) {
			static const char *const entries[] = {
				"lock_acquire", "lockdep_rcu_suspicious", "lock_release"};

			for (size_t k = 0; k < ARRAY_SIZE(entries) && !a->function; k++) {
				r = analysis_read_caller_of(
					a, &(Line){entries[k], strlen(entries[k])});
				if (r < 0)
					return r;
			}
			if (a->function)
				return 0;
		}
		if (line_find(first_line, "stack is corrupted in: "))
			return analysis_read_caller_of(
				a, &(Line){"__stack_chk_fail", strlen("__stack_chk_fail")});
		/* a sanitizer's check the CPU was in is not where the bug is */
		if (report->have_ip && !(frame && is_sanitizer_helper(&report->ip.name)))
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
				Event kind, const LogHas *has, const Line **ret_hardware_line)
{
	Report report = {};
	Symbol frame = {};
	Line headline;
	bool have_frame = false;
	int r;

	headline = event_headline(&lines[start]);
	r = set_text(&a->message, headline.s, headline.len, TEXT_MAX_LEN);
	if (r < 0)
		return r;
	r = analysis_read_event_task(a, classify(&lines[start]), &lines[start]);
	if (r < 0)
		return r;
	report_read(&report, lines, n, start, kind);
	if (report.trace_start) {
		r = analysis_read_trace(a, lines, report.trace_index, n, has->prefixed, &frame,
					&have_frame);
		if (r < 0)
			return r;
	}
	if (!is_lockup_of_other_cpu(&lines[start], report.task_line)) {
		r = analysis_read_function(a, &lines[start], &report, have_frame ? &frame : NULL);
		if (r < 0)
			return r;
	}
	/* a task line of another PID than the report's first line names is another report's */
	if (report.task_line && pid_named(&lines[start]) >= 0 &&
	    line_number_after(report.task_line, " PID: ") != pid_named(&lines[start]))
		report.task_line = NULL;
	if (report.task_line) {
		r = analysis_read_task_line(a, report.task_line, true, true);
		if (r < 0)
			return r;
	} else if (report.task_dump_line) {
		r = analysis_read_task_dump(a, report.task_dump_line);
		if (r < 0)
			return r;
	} else if (report.by_task_line) {
		r = analysis_read_by_task(a, report.by_task_line);
		if (r < 0)
			return r;
	} else if (report.process_line) {
		r = analysis_read_process_line(a, report.process_line);
		if (r < 0)
			return r;
	}
	if (report.taint_line) {
		r = analysis_read_taint(a, report.taint_line, true);
		if (r < 0)
			return r;
	}
	if (report.release_line) {
		r = analysis_read_release_line(a, report.release_line);
		if (r < 0)
			return r;
	}
	if (report.hardware_line)
		*ret_hardware_line = report.hardware_line;
	return 0;
}

int analyse_lines(DmesgAnalysis *a, const Line *lines, size_t n, const LogHas *has)
{
	LogScan scan;
	const Line *hardware_line;
	size_t start;
	Event kind;
	int r;

	log_scan(&scan, lines, n, has);
	hardware_line = scan.hardware_line;
	start = choose_cause(&scan, lines, n, &kind);
	if (kind == EVENT_WARNING)
		start = skip_inlined_warnings(lines, n, start);
	a->reason = strdup(event_reason(kind));
	if (!a->reason)
		return -ENOMEM;
	if (start < n) {
		r = analysis_read_report(a, lines, n, start, kind, has, &hardware_line);
		if (r < 0)
			return r;
	}
	r = analysis_read_elsewhere(a, &scan, start < n ? &lines[start] : NULL, hardware_line);
	if (r < 0)
		return r;
	return dmesg_analysis_sign(a);
}
