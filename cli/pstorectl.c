// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl: list, show and decode the crashes pstored archived.
 *
 * One verb table; each verb is its own function (see pstorectl.h).
 * parse_argv() returns <0 on error, 0 to exit successfully, >0 to go on.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "pstorectl.h"

const char *arg_store_dir = PSTORED_LOCALSTATEDIR "/lib/pstored";
JsonFormat arg_json = JSON_OFF;
bool arg_legend = true;
bool arg_pager = true;

typedef struct Verb {
	const char *name;
	int min_args, max_args; /* counting the verb itself; -1: no limit */
	bool is_default;
	int (*dispatch)(int argc, char *argv[]);
	const char *help;
} Verb;

static int verb_help(int argc, char *argv[]);

static const Verb verbs[] = {
	{"help", 1, 1, false, verb_help, "Show this help"},
	{"decode", 2, -1, false, verb_decode, "Decode CPER, MCE and dmesg records in FILEs"},
};

int print_json(json_t *v)
{
	size_t flags = arg_json == JSON_SHORT ? JSON_COMPACT : JSON_INDENT(2);

	if (json_dumpf(v, stdout, flags | JSON_ENSURE_ASCII | JSON_SORT_KEYS) < 0 ||
	    fputc('\n', stdout) == EOF)
		return log_error_errno(EIO, "Failed to write JSON output: %m");
	return 0;
}

int parse_json_arg(const char *s)
{
	if (!s || streq(s, "pretty"))
		arg_json = JSON_PRETTY;
	else if (streq(s, "short"))
		arg_json = JSON_SHORT;
	else
		return log_error_errno(
			EINVAL, "Unknown JSON format '%s': use --json=pretty or --json=short.", s);
	return 0;
}

static int verb_help(int argc, char *argv[])
{
	printf("%s [OPTIONS...] COMMAND ...\n\n"
	       "List, show and decode the kernel crashes that pstored archived.\n\n"
	       "Commands:\n",
	       program_invocation_short_name);
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		printf("  %-22s %s\n", verbs[i].name, verbs[i].help);
	printf("\nOptions:\n"
	       "  -h --help              Show this help\n"
	       "     --version           Show package version\n"
	       "     --store-dir=DIR     Read the crash store in DIR (default: %s)\n"
	       "     --json=pretty|short Print JSON (default for --json: pretty)\n"
	       "     --no-legend         Do not print the column headers and footer\n"
	       "     --no-pager          Do not pipe output into a pager\n"
	       "\nSee the pstorectl(1) man page for details.\n",
	       PSTORED_LOCALSTATEDIR "/lib/pstored");
	return 0;
}

static int parse_argv(int argc, char *argv[])
{
	enum {
		ARG_VERSION = 0x100,
		ARG_STORE_DIR,
		ARG_JSON,
		ARG_NO_LEGEND,
		ARG_NO_PAGER,
	};
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, ARG_VERSION},
		{"store-dir", required_argument, NULL, ARG_STORE_DIR},
		{"json", optional_argument, NULL, ARG_JSON},
		{"no-legend", no_argument, NULL, ARG_NO_LEGEND},
		{"no-pager", no_argument, NULL, ARG_NO_PAGER},
		{}};
	int c, r;

	/* "+": options after the verb belong to the verb. */
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			return verb_help(0, NULL);
		case ARG_VERSION:
			puts(PACKAGE_STRING);
			return 0;
		case ARG_STORE_DIR:
			arg_store_dir = optarg;
			break;
		case ARG_JSON:
			r = parse_json_arg(optarg);
			if (r < 0)
				return r;
			break;
		case ARG_NO_LEGEND:
			arg_legend = false;
			break;
		case ARG_NO_PAGER:
			arg_pager = false;
			break;
		case '?':
			return -EINVAL;
		default:
			abort();
		}
	}
	return 1;
}

static const Verb *find_verb(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (name ? streq(verbs[i].name, name) : verbs[i].is_default)
			return &verbs[i];
	return NULL;
}

static int dispatch_verb(int argc, char *argv[])
{
	const char *name = argc > 0 ? argv[0] : NULL;
	const Verb *v = find_verb(name);

	if (!v && !name)
		return log_error_errno(EINVAL, "No command given: see '%s --help'.",
				       program_invocation_short_name);
	if (!v)
		return log_error_errno(EINVAL, "Unknown command '%s': see '%s --help'.", name,
				       program_invocation_short_name);

	int n = argc > 0 ? argc : 1;
	if (n < v->min_args)
		return log_error_errno(EINVAL, "Too few arguments for '%s'.", v->name);
	if (v->max_args >= 0 && n > v->max_args)
		return log_error_errno(EINVAL, "Too many arguments for '%s'.", v->name);

	if (argc == 0) {
		char *args[] = {(char *)v->name, NULL};
		return v->dispatch(1, args);
	}
	return v->dispatch(argc, argv);
}

int main(int argc, char *argv[])
{
	int r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	r = dispatch_verb(argc - optind, argv + optind);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
