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
 * An option, for getopt_long() and for --help at once, so that the two
 * cannot drift apart: a val below 0x100 is also the short option -val, and
 * name NULL makes it a short option only. arg names the value in --help
 * ("DIR"), NULL for none; help is its text, where a '\n' starts an indented
 * continuation line. A table ends with an all-zero entry.
 */
typedef struct OptionSpec {
	const char *name;
	int has_arg; /* no_argument, required_argument or optional_argument */
	int val;
	const char *arg;
	const char *help;
} OptionSpec;

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
#define COMMON_OPTIONS                                                                             \
	{"help", no_argument, 'h', NULL, "Show this help"},                                        \
	{"version", no_argument, ARG_COMMON_VERSION, NULL, "Show package version"},                \
	{"log-level", required_argument, ARG_COMMON_LOG_LEVEL, "LEVEL",                            \
	 "Log up to LEVEL: emerg..debug or 0..7 (default: info)"}
/* clang-format on */

/*
 * getopt_long()'s tables for the options of tables[] (each ending with an
 * all-zero entry, the list with NULL): *ret_longopts ends with an all-zero
 * entry, *ret_shortopts starts with prefix ("+" to stop at the first
 * argument that is not an option). Returns 0 or -ENOMEM.
 */
int options_to_getopt(const OptionSpec *const tables[], const char *prefix,
		      struct option **ret_longopts, char **ret_shortopts);

/* The --help lines of table: "  -S --since=TIME        Only crashes...". */
void options_print_help(const OptionSpec *table, FILE *f);

/*
 * Logs why getopt_long() returned '?' (with opterr = 0) for the options of
 * tables[]: the unknown option or the missing or extra value, and that
 * "PROGRAM [VERB] --help" lists them (verb may be NULL). Returns -EINVAL.
 */
int log_option_error(const OptionSpec *const tables[], char *argv[], const char *verb);

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
	const OptionSpec *options; /* the verb's own, terminated by an all-zero entry */
	/* Options that several verbs take, which --help shows once; NULL for none. */
	const OptionSpec *shared;
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
	const char *args; /* its arguments in --help ("ID", "[FILE...]"), NULL for none */
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

/* The "Commands:" lines of --help: each verb's name, arguments and help. */
void verbs_print_help(const Verb verbs[], size_t n_verbs, FILE *f);
