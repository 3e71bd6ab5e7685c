/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the parts of the analysis share: a log is an array of Lines (pointers into the log or into
 * a buffer of joined lines, never copies), each without its prefixes (lines.c); each line is
 * classified as the start of an Event or not (events.c); the lines of the report chosen as the
 * cause (report.c) are read for the faulting function (symbols.c), the call trace (trace.c) and
 * the task, taint and kernel version (task.c); signature.c hashes the result.
 *
 * Every helper works on a Line with fixed prefixes and substrings (memmem()), never regular
 * expressions, and moves forward: hostile input costs time linear in its length.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyse.h"
#include "signature.h"

/* The first line of a panic. */
#define PANIC_TEXT "Kernel panic - not syncing"
/* The line that ends a report: "---[ end trace 0000000000000000 ]---" */
#define END_MARKER "---[ end "

/* How far after its first line a report is looked at. */
#define REPORT_LINES_MAX 512
#define NAME_MAX_LEN 128
#define TEXT_MAX_LEN 512

typedef struct Line {
	const char *s;
	size_t len;
	/* no prefix was removed from it: in a log whose lines have one, not the kernel's */
	bool bare;
	/* its text was joined to the line before (join_wrapped_lines()), and it is empty */
	bool continued;
	/* it ended with a blank, which format=flowed mail puts where it wrapped a line */
	bool flowed;
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

static inline bool has_prefix(const Line *l, const char *prefix)
{
	size_t n = strlen(prefix);
	return l->len >= n && memcmp(l->s, prefix, n) == 0;
}

static inline const char *line_find(const Line *l, const char *needle)
{
	return memmem(l->s, l->len, needle, strlen(needle));
}

static inline bool line_ends_with(const Line *l, const char *s)
{
	size_t n = strlen(s);

	return l->len >= n && memcmp(l->s + l->len - n, s, n) == 0;
}

static inline bool line_is(const Line *l, const char *s)
{
	return l->len == strlen(s) && memcmp(l->s, s, l->len) == 0;
}

/* The rest of l after prefix; l must start with it. */
static inline Line line_after(const Line *l, size_t skip)
{
	return (Line){l->s + skip, l->len - skip};
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline void line_trim(Line *l)
{
	while (l->len > 0 && is_blank(l->s[0])) {
		l->s++;
		l->len--;
	}
	while (l->len > 0 && is_blank(l->s[l->len - 1]))
		l->len--;
}

/* A symbol as %pS prints it: "func+0x12/0x40 [mod]" or "func+0x12/0x40 [mod buildid]". */
typedef struct Symbol {
	Line name;
	Line module; /* len 0 when none */
	bool unreliable;
	bool have_offset; /* offset and size: "+0x12/0x40" */
	uint64_t offset, size;
} Symbol;

static inline size_t skip_hex(const Line *l, size_t i)
{
	while (i < l->len && is_hex(l->s[i]))
		i++;
	return i;
}

static inline size_t skip_blanks(const Line *l, size_t i)
{
	while (i < l->len && is_blank(l->s[i]))
		i++;
	return i;
}

/*
 * The texts that classify() looks for anywhere in a line, not at its start:
 * most logs hold none of them, which one search of the whole log tells, and
 * then the pass over every line need not search each line for each.
 */
typedef struct LogHas {
	bool soft_lockup, hard_lockup, mce;
	/* most lines have a prefix: those that have none were written by another program into the
	 * same console (systemd's "[  OK  ] Started ...", KUnit's "    ok 17 ...") */
	bool prefixed;
} LogHas;

/* What one pass over the log finds: the first line of each event, and lines to fall back on. */
typedef struct LogScan {
	size_t first[_EVENT_MAX]; /* n when there is none */
	const Line *task_line;
	const Line *hardware_line;
	const Line *version_line;
	const Line *taint_line;
	const Line *release_line;
} LogScan;

/* unescape.c: the log as the kernel wrote it, before a mail, a terminal or a web page carried it;
 * *ret is NULL when the log shows no such encoding. */
int strip_terminal_escapes(const char *log, size_t len, char **ret, size_t *ret_len);
int decode_html_entities(const char *log, size_t len, char **ret, size_t *ret_len);
int decode_quoted_printable(const char *log, size_t len, char **ret, size_t *ret_len);

/* lines.c: the log's lines, without prefixes, wrapped lines joined. */
/* How many lines have text, and how many of those had a prefix. */
typedef struct LineCounts {
	size_t texts, prefixed;
} LineCounts;

int split_lines(const char *log, size_t len, Line **ret, size_t *ret_n, LineCounts *ret_counts);
int join_wrapped_lines(Line *lines, size_t n, bool prefixed, char **ret_buf,
		       size_t *ret_joined);

/* events.c: what a line reports. */
LogHas log_has(const char *log, size_t len);
bool log_contains(const char *log, size_t len, const char *text);
Event classify_in(const Line *l, const LogHas *has);
Event classify(const Line *l);
Event panic_cause(const Line *l);
Line event_headline(const Line *l);
bool panic_on_task_exit(const Line *l);
bool is_lockdep_warning(const Line *l);
const char *event_reason(Event e);

/* symbols.c: frames and instruction pointers as each architecture and era prints them. */
bool parse_symbol(const Line *l, Symbol *ret);
size_t parse_angle_frame(const Line *l, size_t i, Symbol *ret);
bool parse_arm_frame(const Line *l, Symbol *ret, Symbol *ret_caller);
bool parse_ip_line(const Line *l, Symbol *ret);
bool is_null_ip_line(const Line *l);
bool parse_return_address_line(const Line *l, Symbol *ret);
bool parse_message_symbol(const Line *l, Symbol *ret);
bool parse_warning_symbol(const Line *l, Symbol *ret);

/* trace.c: the frames of a call trace. */
size_t trace_header_len(const Line *l);
int analysis_read_trace(DmesgAnalysis *a, const Line *lines, size_t start, size_t end,
			bool skip_bare, Symbol *ret_first, bool *ret_have_first);
bool is_sanitizer_helper(const Line *name);
bool is_irq_entry(const Line *name);
size_t trace_after_irq_entry(const Line *lines, size_t start, size_t end);
bool trace_has_frame_at(const Line *lines, size_t i, size_t end);

/* task.c: the task, its taint and the kernel version. */
bool is_task_line(const Line *l);
bool is_taint_line(const Line *l);
bool is_release_line(const Line *l);
int analysis_read_release_line(DmesgAnalysis *a, const Line *l);
int analysis_read_taint(DmesgAnalysis *a, const Line *line, bool take_taint);
int analysis_read_task_line(DmesgAnalysis *a, const Line *l, bool take_task, bool take_taint);
int analysis_read_event_task(DmesgAnalysis *a, Event kind, const Line *l);
int analysis_read_task_dump(DmesgAnalysis *a, const Line *l);
int analysis_read_by_task(DmesgAnalysis *a, const Line *l);
int analysis_read_process_line(DmesgAnalysis *a, const Line *l);
int line_number_after(const Line *l, const char *prefix);
int analysis_read_elsewhere(DmesgAnalysis *a, const LogScan *scan, const Line *report_line,
			    const Line *hardware_line);

/* report.c: the report of the cause, read whole. */
int analyse_lines(DmesgAnalysis *a, const Line *lines, size_t n, const LogHas *has);

/* analyse.c */
char *text_dup(const char *s, size_t len, size_t max);
int set_text(char **field, const char *s, size_t len, size_t max);
