// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl: list, show and decode the crashes pstored archived.
 *
 * One verb table; each verb is its own function (see pstorectl.h).
 * parse_argv() returns <0 on error, 0 to exit successfully, >0 to go on.
 */

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "pager.h"
#include "pstorectl.h"
#include "source.h"

const char *arg_store_dir = PSTORED_LOCALSTATEDIR "/lib/pstored";
JsonFormat arg_json = JSON_OFF;
bool arg_legend = true;
bool arg_pager = true;

static int verb_help(int argc, char *argv[]);

/* For verbs that take only the global options after them. */
static const OptionSpec no_options[] = {{}};
static const VerbOptions global_options_only = {no_options, NULL};

static const Verb verbs[] = {
	{"list", 1, 1, VERB_DEFAULT, verb_list, "List the archived crashes (the default)",
	 &list_options, NULL},
	{"show", 2, 2, 0, verb_show, "Show everything about a crash", &global_options_only, "ID"},
	{"dmesg", 2, 2, 0, verb_dmesg, "Print the kernel log of a crash", &dmesg_options, "ID"},
	{"export", 2, 2, 0, verb_export, "Print a crash as one JSON document", &export_options,
	 "ID"},
	{"status", 1, 1, 0, verb_status, "Show pstore and store status", &status_options, NULL},
	{"delete", 2, VERB_ANY, 0, verb_delete, "Delete crashes from the store",
	 &global_options_only, "ID..."},
	{"upload", 1, VERB_ANY, 0, verb_upload, "Send crashes to the collectors now",
	 &upload_options, "[ID...]"},
	{"vacuum", 1, 1, 0, verb_vacuum, "Apply the retention limits now", &vacuum_options, NULL},
	{"decode", 2, VERB_ANY, 0, verb_decode, "Decode CPER, MCE and dmesg records, analyse logs",
	 &decode_options, "FILE..."},
	{"help", 1, 1, 0, verb_help, "Show this help", &global_options_only, NULL},
};

enum {
	ARG_STORE_DIR = _ARG_COMMON_MAX,
	ARG_JSON,
	ARG_NO_LEGEND,
	ARG_NO_PAGER,
};

static const OptionSpec global_options[] = {
	COMMON_OPTIONS,
	{"store-dir", required_argument, ARG_STORE_DIR, "DIR",
	 "Read the crash store in DIR (default: " PSTORED_LOCALSTATEDIR "/lib/pstored)"},
	{"json", optional_argument, ARG_JSON, "FORMAT",
	 "Print JSON: pretty (the default) or short"},
	{"no-legend", no_argument, ARG_NO_LEGEND, NULL, "Do not print the column headers"},
	{"no-pager", no_argument, ARG_NO_PAGER, NULL, "Do not pipe output into a pager"},
	{}};

/* The verb whose options are being parsed, for its own --help; NULL before the verb. */
static const Verb *parsing_verb;

int print_json(json_t *v)
{
	size_t flags = arg_json == JSON_SHORT ? JSON_COMPACT : JSON_INDENT(2);

	if (json_dumpf(v, stdout, flags | JSON_ENSURE_ASCII | JSON_SORT_KEYS) < 0 ||
	    fputc('\n', stdout) == EOF)
		return log_error_errno(EIO, "Failed to write JSON output: %m");
	return 0;
}

/* "Options of list:" and the lines of its options, if it has any. */
static void print_verb_options(const Verb *v)
{
	if (!v->options || !v->options->options[0].name)
		return;
	printf("\nOptions of %s%s%s:\n", v->name, v->args ? " " : "", v->args ?: "");
	options_print_help(v->options->options, stdout);
}

/* pstorectl VERB --help: the verb's arguments and options, the global ones after. */
static void print_verb_help(const Verb *v)
{
	printf("%s [OPTIONS...] %s%s%s\n\n%s.\n", program_invocation_short_name, v->name,
	       v->args ? " " : "", v->args ?: "", v->help);
	print_verb_options(v);
	printf("\nGlobal options:\n");
	options_print_help(global_options, stdout);
	if (source_verb_reads(v->name)) {
		printf("\nSources (default: the store):\n");
		options_print_help(source_options, stdout);
	}
	printf("\nSee the pstorectl(1) man page for details.\n");
}

static int verb_help(int argc, char *argv[])
{
	printf("%s [OPTIONS...] COMMAND ...\n\n"
	       "List, show and decode the kernel crashes that pstored archived.\n\n"
	       "Commands:\n",
	       program_invocation_short_name);
	verbs_print_help(verbs, ARRAY_SIZE(verbs), stdout);
	printf("\nOptions:\n");
	options_print_help(global_options, stdout);
	printf("\nSources of list, show, dmesg and export (default: the store):\n");
	options_print_help(source_options, stdout);
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		print_verb_options(&verbs[i]);
	printf("\nSee '%s COMMAND --help' and the pstorectl(1) man page for details.\n",
	       program_invocation_short_name);
	return 0;
}

/* Returns 1 if the option was a global one and taken, 0 to exit, <0 on error. */
static int parse_global_option(int c, const char *arg)
{
	int r;

	switch (c) {
	case 'h':
		if (parsing_verb && !streq(parsing_verb->name, "help"))
			print_verb_help(parsing_verb);
		else
			(void)verb_help(0, NULL);
		return 0;
	case ARG_STORE_DIR:
		arg_store_dir = arg;
		return 1;
	case ARG_JSON:
		if (!arg || streq(arg, "pretty"))
			arg_json = JSON_PRETTY;
		else if (streq(arg, "short"))
			arg_json = JSON_SHORT;
		else
			return log_error_errno(EINVAL,
					       "Unknown JSON format '%s': use --json=pretty or "
					       "--json=short.",
					       arg);
		return 1;
	case ARG_NO_LEGEND:
		arg_legend = false;
		return 1;
	case ARG_NO_PAGER:
		arg_pager = false;
		return 1;
	default:
		r = parse_common_option(c, arg);
		return r == -ENOENT ? source_parse_option(c, arg) : r;
	}
}

/*
 * Parses the options in argv against tables[] (the global ones, and after
 * the verb the verb's own too): a global option is taken at once, a verb's
 * goes to handle(). Returns 1 to go on, 0 to exit successfully, <0 on error.
 */
static int parse_options(const OptionSpec *const tables[], const char *prefix,
			 int (*handle)(int c, const char *arg), int argc, char *argv[])
{
	_cleanup_free_ struct option *longopts = NULL;
	_cleanup_free_ char *shortopts = NULL;
	int c, r;

	if (options_to_getopt(tables, prefix, &longopts, &shortopts) < 0)
		return log_oom();

	/* Errors are told in pstorectl's words, not getopt's under the verb's name. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0) {
		if (c == '?')
			return log_option_error(tables, argv,
						parsing_verb ? parsing_verb->name : NULL);
		r = parse_global_option(c, optarg);
		if (r == -ENOENT && handle)
			/* Not a global option, so one of the verb's own. */
			r = handle(c, optarg) ?: 1;
		if (r == -ENOENT)
			abort();
		if (r <= 0)
			return r;
	}
	return 1;
}

static int parse_argv(int argc, char *argv[])
{
	const OptionSpec *const tables[] = {global_options, source_options, NULL};

	/* "+": stop at the verb; what follows it is parsed by parse_verb_argv(). */
	return parse_options(tables, "+", NULL, argc, argv);
}

/*
 * Parses the options after the verb, the verb's and the global ones mixed,
 * and moves the positional arguments to argv[1...]. Returns the new argc,
 * 0 to exit successfully, or <0 on error.
 */
static int parse_verb_argv(const Verb *v, int argc, char *argv[])
{
	const OptionSpec *const tables[] = {global_options, source_options, v->options->options,
					    NULL};
	int r;

	/* argv[0] is the verb; optind = 0 makes getopt start afresh. */
	optind = 0;
	parsing_verb = v;
	r = parse_options(tables, "", v->options->handle, argc, argv);
	if (r <= 0)
		return r;

	/* getopt_long() moved the options in front of the positional arguments. */
	memmove(argv + 1, argv + optind, (argc - optind) * sizeof(char *));
	argc = argc - optind + 1;
	argv[argc] = NULL;
	return argc;
}

static int run_verb(int argc, char *argv[])
{
	const char *name = argc > 0 ? argv[0] : NULL;
	const Verb *v = verb_find(verbs, ARRAY_SIZE(verbs), name);
	int r;

	/* Without a name, v is the default verb, "list". */
	if (!v)
		return log_error_errno(EINVAL, "Unknown command '%s': see '%s --help'.", name,
				       program_invocation_short_name);

	if (argc > 0 && v->options) {
		r = parse_verb_argv(v, argc, argv);
		if (r <= 0)
			return r;
		argc = r;
	}

	r = verb_check_args(v, argc);
	if (r == -EINVAL)
		return log_error_errno(EINVAL, "Too few arguments for '%s': see '%s %s --help'.",
				       v->name, program_invocation_short_name, v->name);
	if (r < 0)
		return log_error_errno(EINVAL, "Too many arguments for '%s': see '%s %s --help'.",
				       v->name, program_invocation_short_name, v->name);
	r = source_check_verb(v->name);
	if (r < 0)
		return r;

	return dispatch_verb(v, argc, argv);
}

int main(int argc, char *argv[])
{
	int r;

	/* Table widths and ellipses follow the terminal's character set. */
	(void)setlocale(LC_CTYPE, "");

	log_parse_environment();
	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	r = run_verb(argc - optind, argv + optind);
	pager_close();
	return r < 0 ? EXIT_FAILURE : r;
}
