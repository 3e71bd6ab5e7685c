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
#include "match.h"
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
static const VerbOptions global_options_only = {no_options, NULL, NULL};

static const Verb verbs[] = {
	{"list", 1, 1, VERB_DEFAULT, verb_list, "List the archived crashes (the default)",
	 &list_options, NULL},
	{"show", 1, 2, 0, verb_show, "Show everything about a crash (default: the newest)",
	 &show_options, "[ID]"},
	{"dmesg", 1, 2, 0, verb_dmesg, "Print the kernel log of a crash (default: the newest)",
	 &dmesg_options, "[ID]"},
	{"export", 1, 2, 0, verb_export, "Print a crash as one JSON document (default: the newest)",
	 &export_options, "[ID]"},
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

/* The verb named on the command line, for its own --help; NULL for none. */
static const Verb *named_verb;

int print_json(json_t *v)
{
	size_t flags = arg_json == JSON_SHORT ? JSON_COMPACT : JSON_INDENT(2);

	if (json_dumpf(v, stdout, flags | JSON_ENSURE_ASCII | JSON_SORT_KEYS) < 0 ||
	    fputc('\n', stdout) == EOF)
		return log_error_errno(EIO, "Failed to write JSON output: %m");
	return 0;
}

/* "Options of list:" and the lines of its own options, if it has any. */
static void print_verb_options(const Verb *v)
{
	if (!v->options->options[0].val)
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
	if (v->options->shared) {
		printf("\nMatches (without an ID: the newest match):\n");
		options_print_help(v->options->shared, stdout);
	}
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
	printf("\nMatches of list, show, dmesg and export (without an ID: the newest match):\n");
	options_print_help(match_options, stdout);
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
		if (named_verb && named_verb->dispatch != verb_help)
			print_verb_help(named_verb);
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

/* Adds table to tables[*n], unless it is there already (the matches, shared by verbs). */
static void option_tables_add(const OptionSpec *tables[], size_t *n, const OptionSpec *table)
{
	for (size_t i = 0; i < *n; i++)
		if (tables[i] == table)
			return;
	tables[(*n)++] = table;
}

/* At most: the global ones, the sources, and each verb's own and shared ones, and NULL. */
#define OPTION_TABLES_MAX (2 + 2 * ARRAY_SIZE(verbs) + 1)

/*
 * The option tables of v and the global ones, NULL-terminated in
 * ret[OPTION_TABLES_MAX]; with v NULL, of every verb.
 */
static void option_tables(const Verb *v, const OptionSpec *ret[])
{
	size_t n = 0;

	option_tables_add(ret, &n, global_options);
	option_tables_add(ret, &n, source_options);
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (v && v != &verbs[i])
			continue;
		option_tables_add(ret, &n, verbs[i].options->options);
		if (verbs[i].options->shared)
			option_tables_add(ret, &n, verbs[i].options->shared);
	}
	ret[n] = NULL;
}

/*
 * The verb: the first argument that is neither an option nor an option's
 * value. Options before it may be any verb's ("pstorectl -n 2 list", as
 * coredumpctl takes them), so they are told apart with every verb's at once;
 * what is wrong with them is left to parse_argv() to say. *ret gets the verb,
 * NULL for the default one.
 */
static int find_verb(int argc, char *argv[], const char **ret)
{
	const OptionSpec *tables[OPTION_TABLES_MAX];
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ char *stop_at_verb = NULL;

	option_tables(NULL, tables);
	/* "+": stop at the verb; ":": no messages, nor for an option of no verb. */
	if (options_to_getopt(tables, "+:", &options, &stop_at_verb) < 0)
		return log_oom();
	/*
	 * Only whether an option takes a value matters here: with one id for all, two
	 * verbs' options of the same name (--config=) are not ambiguous when abbreviated.
	 */
	for (struct option *o = options; o->name; o++) {
		o->flag = NULL;
		o->val = 0;
	}
	opterr = 0;
	optind = 0;
	while (getopt_long(argc, argv, stop_at_verb, options, NULL) >= 0)
		;
	*ret = optind < argc ? argv[optind] : NULL;
	return 0;
}

/*
 * Parses the options of the whole command line, the global ones and the
 * verb's own, before the verb and after it, and leaves the verb and its
 * arguments at argv[optind...]. Returns 0 to exit successfully, >0 to go on,
 * or <0 on error.
 */
static int parse_argv(const Verb *v, int argc, char *argv[])
{
	const OptionSpec *tables[OPTION_TABLES_MAX];
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ char *shortopts = NULL;
	int c, r;

	option_tables(v, tables);
	if (options_to_getopt(tables, "", &options, &shortopts) < 0)
		return log_oom();
	/* Errors are told in pstorectl's words, with the help to read. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, options, NULL)) >= 0) {
		if (c == '?')
			return log_option_error(tables, argv, named_verb ? named_verb->name : NULL);
		r = parse_global_option(c, optarg);
		if (r == -ENOENT) {
			/* Not a global option, so one of the verb's own. */
			r = v->options->handle(c, optarg);
			if (r < 0)
				return r;
			continue;
		}
		if (r <= 0)
			return r;
	}
	return 1;
}

static int run(int argc, char *argv[])
{
	const char *name = NULL;
	const Verb *v;
	int r;

	r = find_verb(argc, argv, &name);
	if (r < 0)
		return r;
	/* Without a name, v is the default verb, "list". */
	v = verb_find(verbs, ARRAY_SIZE(verbs), name);
	if (!v)
		return log_error_errno(EINVAL, "Unknown command '%s': see '%s --help'.", name,
				       program_invocation_short_name);
	if (name)
		named_verb = v;

	r = parse_argv(v, argc, argv);
	if (r <= 0)
		return r;
	argc -= optind;
	argv += optind;

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
	r = run(argc, argv);
	pager_close();
	return r < 0 ? EXIT_FAILURE : r;
}
