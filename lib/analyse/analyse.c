/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"
#include "utf8-util.h"

/*
 * dmesg_analyse(): the lines of the log (lines.c), the report of the cause among them (report.c),
 * read for where it happened (symbols.c, trace.c) and who ran (task.c), and its signature
 * (signature.c).
 *
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

/*
 * A copy of at most max bytes of s for JSON and the journal: valid UTF-8, and
 * each control character (C0, DEL, and C1 such as CSI) replaced by '?'.
 */
char *text_dup(const char *s, size_t len, size_t max)
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

int set_text(char **field, const char *s, size_t len, size_t max)
{
	if (*field)
		return 0;
	*field = text_dup(s, len, max);
	return *field ? 0 : -ENOMEM;
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
	for (size_t i = 0; i < a->n_frames; i++) {
		free(a->frames[i].function);
		free(a->frames[i].module);
	}
	free(a->frames);
	free(a->taint);
	free(a->kernel_version);
	free(a->kernel_package);
	free(a->comm);
	free(a->hardware);
	free(a->signature);
	free(a);
	return NULL;
}

static bool is_empty_line(const Line *l)
{
	return skip_blanks(l, 0) == l->len;
}

/*
 * Drops the empty lines of a log in which every line is followed by an empty one, as a web page
 * or a mail client that made each line a paragraph leaves it: the lines of a report follow each
 * other. A log is taken for one when fewer than one in ten of its lines with text is followed by
 * another line with text. Returns the number of lines left.
 */
static size_t drop_double_spacing(Line *lines, size_t n)
{
	size_t texts = 0, adjacent = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		if (!is_empty_line(&lines[i])) {
			texts++;
			adjacent += i + 1 < n && !is_empty_line(&lines[i + 1]);
		}
	if (texts < 8 || adjacent * 10 >= texts)
		return n;
	for (size_t i = 0; i < n; i++)
		if (!is_empty_line(&lines[i]))
			lines[k++] = lines[i];
	return k;
}

int dmesg_analyse(const char *log, size_t len, DmesgAnalysis **ret)
{
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
	_cleanup_free_ Line *lines = NULL;
	_cleanup_free_ char *joined = NULL, *plain = NULL, *unescaped = NULL, *decoded = NULL;
	LineCounts counts;
	LogHas has;
	size_t n, joins;
	int r;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->pid = -1;
	a->call_trace = calloc(1, sizeof(char *));
	if (!a->call_trace)
		return -ENOMEM;

	r = strip_terminal_escapes(log, len, &plain, &len);
	if (r < 0)
		return r;
	if (plain)
		log = plain;
	r = decode_html_entities(log, len, &unescaped, &len);
	if (r < 0)
		return r;
	if (unescaped)
		log = unescaped;
	r = decode_quoted_printable(log, len, &decoded, &len);
	if (r < 0)
		return r;
	if (decoded)
		log = decoded;
	r = split_lines(log, len, &lines, &n, &counts);
	if (r < 0)
		return r;
	n = drop_double_spacing(lines, n);
	/* a third of the lines with a prefix is the log's own when a mail client wrapped the rest:
	 * the lines without one are those that went on */
	r = join_wrapped_lines(lines, n, counts.prefixed * 3 > counts.texts, &joined, &joins);
	if (r < 0)
		return r;
	has = log_has(log, len);
	/* most of the lines left have a prefix */
	has.prefixed = counts.prefixed > (counts.texts - MIN(joins, counts.texts)) / 2;
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

/* An offset or size as JSON, null when the log does not say or it does not fit. */
static json_t *json_offset(const DmesgFrame *f, uint64_t v)
{
	return f->have_offset && v <= INT64_MAX ? json_integer((json_int_t)v) : json_null();
}

static int frames_to_json(const DmesgAnalysis *a, json_t **ret)
{
	json_auto_t *frames = json_array();

	if (!frames)
		return -ENOMEM;
	for (size_t i = 0; i < a->n_frames; i++) {
		const DmesgFrame *f = &a->frames[i];

		if (json_array_append_new(frames,
					  json_pack("{s:s?,s:o,s:o,s:o}", "function", f->function,
						    "offset", json_offset(f, f->offset), "size",
						    json_offset(f, f->size), "module",
						    json_string_or_null(f->module))) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(frames);
	return 0;
}

int dmesg_analysis_to_json(const DmesgAnalysis *a, json_t **ret)
{
	json_auto_t *trace = json_array(), *frames = NULL, *o = NULL;
	int r;

	if (!trace)
		return -ENOMEM;
	for (char **p = a->call_trace; *p; p++)
		if (json_array_append_new(trace, json_string(*p)) < 0)
			return -ENOMEM;
	r = frames_to_json(a, &frames);
	if (r < 0)
		return r;

	o = json_pack("{s:s,s:o,s:o,s:o,s:O,s:O,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "reason", a->reason,
		      "message", json_string_or_null(a->message), "function",
		      json_string_or_null(a->function), "module", json_string_or_null(a->module),
		      "call_trace", trace, "frames", frames, "taint", json_string_or_null(a->taint),
		      "kernel_version", json_string_or_null(a->kernel_version), "kernel_package",
		      json_string_or_null(a->kernel_package), "comm", json_string_or_null(a->comm),
		      "pid", a->pid >= 0 ? json_integer(a->pid) : json_null(), "hardware",
		      json_string_or_null(a->hardware), "signature",
		      json_string_or_null(a->signature));
	if (!o)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}

int dmesg_analyse_json(const char *log, size_t len, json_t **ret)
{
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
	int r;

	r = dmesg_analyse(log, len, &a);
	if (r < 0)
		return r;
	return dmesg_analysis_to_json(a, ret);
}
