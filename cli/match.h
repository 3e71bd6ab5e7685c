/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Which crashes list, show, dmesg and export work on, chosen as coredumpctl
 * chooses core dumps: matches on the crash's fields (--since=, --reason=,
 * --function=, ...), every one of which a crash must pass. list shows the
 * crashes that pass, and show, dmesg and export without an id take the newest.
 *
 * The options are shared by the verbs (match_options, their
 * VerbOptions.shared); each verb's handler passes them on to
 * match_parse_option().
 */

#include <stdbool.h>
#include <stddef.h>

#include "source.h"

/* Option ids from ARG_MATCH_BASE up: after the sources', before the verbs' own. */
#define ARG_MATCH_BASE 0x1c0
enum {
	ARG_MATCH_REASON = ARG_MATCH_BASE,
	ARG_MATCH_KIND,
	ARG_MATCH_SIGNATURE,
	ARG_MATCH_HOST,
	ARG_MATCH_MACHINE,
	ARG_MATCH_FUNCTION,
	ARG_MATCH_MODULE,
	ARG_MATCH_KERNEL,
	ARG_MATCH_COMM,
};

/* The matches, in each reader's VerbOptions.shared. */
extern const OptionSpec match_options[];

/* Takes one of match_options: 0 if taken, <0 on error (logged), -ENOENT if not one of them. */
int match_parse_option(int c, const char *arg);

/* Whether any match was given. */
bool match_given(void);

/*
 * Refuses (logging why) the matches that cannot apply to the source: --host=
 * and --machine= in the store, which holds one machine's crashes.
 */
int match_check_source(void);

/* Whether the crash passes every match. */
bool crash_matches(const CrashEntry *e);

/* The matches need the summaries of the crashes (CrashEntry.crash.summary), not only the columns. */
bool match_needs_summary(void);

/*
 * The matches need the process of a crash, "comm" of its summary, which the
 * store's index has only for the crashes archived since --comm= exists.
 */
bool match_needs_comm(void);

/* Logs that no crash matched, as coredumpctl does, and returns -ESRCH. */
int log_no_crashes(void);
