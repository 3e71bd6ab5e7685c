/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A program's verbs in one table, as systemd's src/shared/verbs.h: each verb
 * is one function, called with its name in argv[0] and its arguments after.
 * The program logs the usage errors that verb_find() and verb_check_args()
 * return, in its own words.
 */

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#define VERB_ANY (-1)

/*
 * The options that each program takes, before its verb and after it: -h,
 * --help (the program's own text), --version and --log-level=. A program's
 * own option ids start at _ARG_COMMON_MAX.
 */
enum {
	ARG_COMMON_VERSION = 0x100,
	ARG_COMMON_LOG_LEVEL,
	_ARG_COMMON_MAX,
};

/* clang-format off */
#define COMMON_OPTIONS                                                  \
	{"help", no_argument, NULL, 'h'},                               \
	{"version", no_argument, NULL, ARG_COMMON_VERSION},             \
	{"log-level", required_argument, NULL, ARG_COMMON_LOG_LEVEL}
/* clang-format on */

/*
 * Takes --version (prints it) or --log-level= (sets it, or logs why not).
 * Returns 1 to go on, 0 to exit successfully, -EINVAL for a bad level, or
 * -ENOENT if c is none of them.
 */
int parse_common_option(int c, const char *arg);

typedef enum VerbFlags {
	VERB_DEFAULT = 1 << 0, /* what runs when no verb is given */
} VerbFlags;

/*
 * A verb's own options, parsed after the verb together with the program's
 * global ones; handle() returns <0 on a bad value, after logging.
 */
typedef struct VerbOptions {
	const struct option *options; /* terminated by an all-zero entry */
	const char *shortopts;
	int (*handle)(int c, const char *arg);
} VerbOptions;

typedef struct Verb {
	const char *name;
	int min_args, max_args; /* counting the verb itself; VERB_ANY: no limit */
	VerbFlags flags;
	int (*dispatch)(int argc, char *argv[]);
	const char *help; /* its line in --help */
	/* NULL: the verb gets its arguments as they are and parses them itself. */
	const VerbOptions *options;
} Verb;

/* The verb called name, or with name NULL the default verb; NULL if there is none. */
const Verb *verb_find(const Verb verbs[], size_t n_verbs, const char *name);

/*
 * Checks argc, the verb's name included, against the verb's limits; argc 0 is
 * the default verb called without its name, and fits. Returns 0, -EINVAL for
 * too few arguments or -E2BIG for too many.
 */
int verb_check_args(const Verb *v, int argc);

/*
 * Runs the verb; with argc 0 (the default verb, not named), as if argv were
 * its name alone. Returns what the verb returns.
 */
int dispatch_verb(const Verb *v, int argc, char *argv[]);

/* The "Commands:" lines of --help: each verb's name and help. */
void verbs_print_help(const Verb verbs[], size_t n_verbs, FILE *f);
