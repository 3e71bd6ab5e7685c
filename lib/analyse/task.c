/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading who and what ran: the task line ("CPU: 0 PID: 1 Comm: sh Not tainted 6.1.0 #1"), the
 * taint flags, the kernel version and the hardware.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"

/* "CPU: 0 PID: 1 Comm: sh ...", 2.6's "Pid: 1, comm: sh ...", 32-bit powerpc's
 * "TASK = cfa5d000[950] 'bash' THREAD: cf9ce000" */
bool is_task_line(const Line *l)
{
	return (has_prefix(l, "CPU: ") && line_find(l, " PID: ") && line_find(l, " Comm: ")) ||
	       (has_prefix(l, "Pid: ") && line_find(l, ", comm: ")) ||
	       (has_prefix(l, "TASK = ") && line_find(l, "] '"));
}

/* The slab allocator's report of a cache, which names the taint in parentheses: "BUG
 * kmalloc-128 (Not tainted): Poison overwritten", "BUG tfw_cli_conn_cache (Tainted: P    B
 * O   ): kasan: bad access detected" (KASan before 4.4 reports through it). */
static bool is_slab_bug_line(const Line *l)
{
	return has_prefix(l, "BUG ") && (line_find(l, " (Tainted: ") || line_find(l, " (Not tainted)"));
}

/* The lines that print the taint after other fields: powerpc's "REGS: cf9cfe40 TRAP: 0300 Not
 * tainted (2.6.25-rc2)", arm's and others' "CPU: 0 Not tainted  (3.8.0-dirty #26)" before 3.x,
 * i386's "EIP:    0060:[<c0145fa0>]    Not tainted VLI" before 2.6.2x. */
static bool has_taint_after_fields(const Line *l)
{
	return has_prefix(l, "REGS: ") || has_prefix(l, "EIP: ") ||
	       (has_prefix(l, "CPU: ") && !line_find(l, " PID: "));
}

bool is_taint_line(const Line *l)
{
	return has_prefix(l, "Not tainted ") || has_prefix(l, "Tainted: ") || is_slab_bug_line(l) ||
	       (has_taint_after_fields(l) &&
		(line_find(l, " Not tainted") || line_find(l, " Tainted:")));
}

/* i386 before 2.6.2x prints the release on the line after the taint: "EFLAGS: 00010282
 * (2.6.19.1 #1)" */
bool is_release_line(const Line *l)
{
	return has_prefix(l, "EFLAGS: ") && memchr(l->s, '(', l->len);
}

/* Where the word after the next words words of l from i starts. */
static size_t skip_words(const Line *l, size_t i, size_t words)
{
	for (size_t k = 0; k < words; k++) {
		i = skip_blanks(l, i);
		while (i < l->len && !is_blank(l->s[i]))
			i++;
	}
	return skip_blanks(l, i);
}

static bool is_capital(char c)
{
	return c >= 'A' && c <= 'Z';
}

/*
 * The distribution's package of the kernel, where it prints one after the build number at i:
 * Debian's task line "6.1.0-18-amd64 #1  Debian 6.1.76-1" and banner "#1 SMP PREEMPT_DYNAMIC
 * Debian 6.1.115-1 (2024-11-01)". A name and a version that starts with a digit ("Debian
 * 1:6.6.20-1+rpt1"), after words in capitals (SMP, PREEMPT(full)); not SUSE's "SLE15-SP4
 * (unreleased)" nor the build id that CONFIG_STACKTRACE_BUILD_ID appends.
 */
static int analysis_read_package(DmesgAnalysis *a, const Line *l, size_t i)
{
	size_t name, version, end;

	i = skip_blanks(l, i);
	if (a->kernel_package || i >= l->len || l->s[i] != '#')
		return 0;
	for (i = skip_words(l, i, 1); i < l->len; i = skip_words(l, i, 1)) {
		size_t k = i;

		while (k < l->len && (is_capital(l->s[k]) || l->s[k] == '_'))
			k++;
		if (k == i || (k < l->len && !is_blank(l->s[k]) && l->s[k] != '('))
			break;
	}
	name = i;
	version = skip_words(l, name, 1);
	if (name >= l->len || !is_capital(l->s[name]) || version >= l->len ||
	    !is_digit(l->s[version]))
		return 0;
	for (end = version; end < l->len && !is_blank(l->s[end]);)
		end++;
	return set_text(&a->kernel_package, l->s + name, end - name, NAME_MAX_LEN);
}

/*
 * The release at i in l ("6.1.0-18-amd64 #1 ...", in parentheses on powerpc and before 3.x:
 * "(2.6.25-rc2)") and the distribution's package after it, when a release is there.
 */
static int analysis_read_release(DmesgAnalysis *a, const Line *l, size_t i)
{
	size_t start;
	int r;

	i = skip_blanks(l, i);
	if (i < l->len && l->s[i] == '(')
		i++;
	if (i >= l->len || is_blank(l->s[i]))
		return 0;
	for (start = i; i < l->len && !is_blank(l->s[i]) && l->s[i] != ')';)
		i++;
	/* a release that is not a number is one when the build number follows: " #0" */
	if (!is_digit(l->s[start]) &&
	    !(i + 2 < l->len && l->s[i] == ' ' && l->s[i + 1] == '#' && is_digit(l->s[i + 2])))
		return 0;
	r = set_text(&a->kernel_version, l->s + start, i - start, NAME_MAX_LEN);
	if (r < 0)
		return r;
	return analysis_read_package(a, l, i);
}

/*
 * Reads "Not tainted 6.1.0-18-amd64 #1 ...", "Tainted: G      D W  O      6.1.0 #1 ..." or, after
 * powerpc's "REGS: ... TRAP: 0300 ", "Not tainted (2.6.25-rc2)".
 */
int analysis_read_taint(DmesgAnalysis *a, const Line *line, bool take_taint)
{
	const char *t = NULL;
	Line rest = *line;
	const Line *l = &rest;
	char letters[33];
	size_t n = 0, i;
	bool tainted, slab = is_slab_bug_line(line);

	if (slab) {
		t = line_find(line, " (");
		rest = line_after(line, (size_t)(t - line->s) + 2);
	} else if (has_taint_after_fields(line) &&
	    ((t = line_find(line, " Not tainted")) || (t = line_find(line, " Tainted:"))))
		rest = (Line){t + 1, (size_t)(line->s + line->len - t - 1)};
	/* i386 marks its "Code:" as of variable length after the taint: "Tainted: P      VLI" */
	if (has_prefix(line, "EIP: ") && line_ends_with(&rest, " VLI"))
		rest.len -= strlen(" VLI");
	if (has_prefix(l, "Not tainted"))
		i = strlen("Not tainted"), tainted = false;
	else if (has_prefix(l, "Tainted:"))
		i = strlen("Tainted:"), tainted = true;
	else
		return 0;

	/* Taint columns are upper-case letters or blanks; the version starts with a digit (in
	 * parentheses on powerpc and before 3.x) or, when it is not a number ("syzkaller"), with a
	 * lower-case letter. */
	for (; i < l->len && !is_digit(l->s[i]) && l->s[i] != '(' && !(slab && l->s[i] == ')');
	     i++) {
		if (!tainted || (l->s[i] >= 'a' && l->s[i] <= 'z'))
			break;
		if (l->s[i] >= 'A' && l->s[i] <= 'Z') {
			if (n < sizeof(letters) - 1)
				letters[n++] = l->s[i];
		} else if (!is_blank(l->s[i]) && l->s[i] != '-') /* RHEL 6 pads with dashes */
			return 0;				 /* not a taint string */
	}
	letters[n] = '\0';
	if (take_taint && !a->taint) {
		a->taint = strdup(letters);
		if (!a->taint)
			return -ENOMEM;
	}
	return slab ? 0 : analysis_read_release(a, l, i);
}

/* "EFLAGS: 00010282   (2.6.19.1 #1)" */
int analysis_read_release_line(DmesgAnalysis *a, const Line *l)
{
	const char *open = memchr(l->s, '(', l->len);

	return open ? analysis_read_release(a, l, (size_t)(open - l->s)) : 0;
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
int analysis_read_task_line(DmesgAnalysis *a, const Line *l, bool take_task, bool take_taint)
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
	return analysis_read_taint(a, &rest, take_taint);
}

/* "INFO: task kworker/0:1:15 blocked ...", "... stuck for 22s! [kworker/0:1:15]", and with sep
 * '/' "CPU#0: kworker/8:3/858": the comm, then sep and the PID. */
static int analysis_read_comm_pid(DmesgAnalysis *a, const char *s, size_t len, char sep)
{
	const char *at = memrchr(s, sep, len);

	if (!at || at == s)
		return 0;
	a->pid = parse_pid(at + 1, (size_t)(s + len - at - 1));
	if (a->pid < 0)
		return 0;
	a->comm = text_dup(s, (size_t)(at - s), NAME_MAX_LEN);
	return a->comm ? 0 : -ENOMEM;
}

int analysis_read_event_task(DmesgAnalysis *a, Event kind, const Line *l)
{
	if (kind == EVENT_HUNG_TASK && has_prefix(l, "INFO: task ")) {
		/* after the prefix: "INFO: task blocked for more than" names no task */
		const Line rest = line_after(l, strlen("INFO: task "));
		const char *e = line_find(&rest, " blocked for more than ");

		return e ? analysis_read_comm_pid(a, rest.s, (size_t)(e - rest.s), ':') : 0;
	}
	if (kind == EVENT_SOFT_LOCKUP && l->len > 2 && l->s[l->len - 1] == ']') {
		const char *open = memrchr(l->s, '[', l->len);

		if (open)
			return analysis_read_comm_pid(a, open + 1,
						      (size_t)(l->s + l->len - open - 2), ':');
	}
	if (kind == EVENT_WARNING) {
		/* 6.16 and later: "WARNING: ... at func+0x44c/0xbc0, CPU#0: comm/pid" */
		const char *cpu = line_find(l, ", CPU#"), *colon;

		if (cpu && (colon = memchr(cpu, ':', (size_t)(l->s + l->len - cpu))) &&
		    colon + 2 < l->s + l->len)
			return analysis_read_comm_pid(a, colon + 2,
						      (size_t)(l->s + l->len - colon - 2), '/');
		/* "WARNING: CPU: 0 PID: 1184 at ...": the PID, for when the task line is not there */
		a->pid = line_number_after(l, " PID: ");
	}
	return 0;
}

/* The number after prefix in l, -1 if none. */
int line_number_after(const Line *l, const char *prefix)
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

/*
 * From elsewhere in the log, what the report at report_line did not say: task, kernel version,
 * hardware. The kernel version is that of every report; the taint only when a later report was
 * not tainted, since taint flags are only ever added.
 */
static bool later_not_tainted(const Line *l, const Line *report_line)
{
	return (!report_line || l > report_line) && line_find(l, "Not tainted");
}

int analysis_read_elsewhere(DmesgAnalysis *a, const LogScan *scan, const Line *report_line,
			    const Line *hardware_line)
{
	int r;

	if (scan->task_line) {
		r = analysis_read_task_line(a, scan->task_line, false,
					    later_not_tainted(scan->task_line, report_line));
		if (r < 0)
			return r;
	}
	/* "      Not tainted 4.8.0-rc1 #1" of another report */
	if ((!a->kernel_version || !a->taint) && scan->taint_line) {
		r = analysis_read_taint(a, scan->taint_line,
					later_not_tainted(scan->taint_line, report_line));
		if (r < 0)
			return r;
	}
	if (!a->kernel_version && scan->release_line) {
		r = analysis_read_release_line(a, scan->release_line);
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
	/* the banner's build number follows the compiler's version in parentheses */
	if (scan->version_line && a->kernel_version) {
		Line rest = line_after(scan->version_line, strlen("Linux version "));
		size_t v = strlen(a->kernel_version);
		const char *hash = memrchr(rest.s, '#', rest.len);

		if (hash && rest.len > v && memcmp(rest.s, a->kernel_version, v) == 0 &&
		    is_blank(rest.s[v])) {
			r = analysis_read_package(a, &rest, (size_t)(hash - rest.s));
			if (r < 0)
				return r;
		}
	}
	if (hardware_line) {
		Line rest = line_after(hardware_line, strlen("Hardware name: "));

		return set_text(&a->hardware, rest.s, rest.len, TEXT_MAX_LEN);
	}
	return 0;
}

/*
 * The task that sched_show_task() shows after "Task dump for CPU 0:" in an RCU stall: since 5.x
 * "task:swapper/0 state:R  running task stack:0 pid:1 ...", before it "swapper/0 R  running
 * task    25256     1      0 0x00000008" (comm, state, free stack, pid, parent).
 */
int analysis_read_task_dump(DmesgAnalysis *a, const Line *l)
{
	size_t comm_end = 0, i, end;

	if (a->comm)
		return 0;
	if (has_prefix(l, "task:")) {
		const char *state = line_find(l, " state:");

		if (!state)
			return 0;
		a->pid = line_number_after(l, " pid:");
		Line comm = {l->s + strlen("task:"), (size_t)(state - l->s) - strlen("task:")};

		line_trim(&comm); /* "task:kworker/2:1     state:R" */
		a->comm = text_dup(comm.s, comm.len, NAME_MAX_LEN);
		return a->comm ? 0 : -ENOMEM;
	}
	while (comm_end < l->len && !is_blank(l->s[comm_end]))
		comm_end++;
	/* the state letter, then "running task" or the saved instruction pointer */
	i = skip_words(l, comm_end, 1);
	i = line_find(l, " running task ") ? skip_words(l, i, 2) : skip_words(l, i, 1);
	i = skip_words(l, i, 1); /* free stack */
	if (comm_end == 0 || i >= l->len || !is_digit(l->s[i]))
		return 0;
	for (end = i; end < l->len && is_digit(l->s[end]);)
		end++;
	a->pid = parse_pid(l->s + i, end - i);
	a->comm = text_dup(l->s, comm_end, NAME_MAX_LEN);
	return a->comm ? 0 : -ENOMEM;
}

/* "Read of size 1 at addr 13ffffc153494b00 by task modprobe/590" (KASAN, KCSAN, ...) */
int analysis_read_by_task(DmesgAnalysis *a, const Line *l)
{
	const char *at = line_find(l, " by task ");
	size_t start, end;

	if (a->comm || !at)
		return 0;
	start = (size_t)(at - l->s) + strlen(" by task ");
	for (end = start; end < l->len && !is_blank(l->s[end]);)
		end++;
	return analysis_read_comm_pid(a, l->s + start, end - start, '/');
}

/* "Process sh (pid: 512, stack limit = 0xc79b02e8)": the task that die() killed, arm and i386 */
int analysis_read_process_line(DmesgAnalysis *a, const Line *l)
{
	const char *open = line_find(l, " (pid: ");
	size_t start, end;

	if (a->comm || !open || !has_prefix(l, "Process "))
		return 0;
	start = (size_t)(open - l->s) + strlen(" (pid: ");
	for (end = start; end < l->len && is_digit(l->s[end]);)
		end++;
	a->pid = parse_pid(l->s + start, end - start);
	a->comm = text_dup(l->s + strlen("Process "), (size_t)(open - l->s) - strlen("Process "),
			   NAME_MAX_LEN);
	return a->comm ? 0 : -ENOMEM;
}
