// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "verbs.h"

static int n_called;
static char called_argv0[16];

static int record_call(int argc, char *argv[])
{
	n_called = argc;
	snprintf(called_argv0, sizeof(called_argv0), "%s", argv[0]);
	return 42;
}

static const Verb verbs[] = {
	{"show", 2, 2, 0, record_call, "Show one", NULL, "ID"},
	{"list", 1, 1, VERB_DEFAULT, record_call, "List all", NULL},
	{"delete", 2, VERB_ANY, 0, record_call, "Delete some", NULL},
};

Test(verbs, find)
{
	cr_assert_eq(verb_find(verbs, ARRAY_SIZE(verbs), "show"), &verbs[0]);
	cr_assert_eq(verb_find(verbs, ARRAY_SIZE(verbs), "delete"), &verbs[2]);
	cr_assert_eq(verb_find(verbs, ARRAY_SIZE(verbs), NULL), &verbs[1]);
	cr_assert_null(verb_find(verbs, ARRAY_SIZE(verbs), "sho"));
	cr_assert_null(verb_find(verbs, 1, NULL), "no default verb");
}

Test(verbs, check_args)
{
	cr_assert_eq(verb_check_args(&verbs[0], 1), -EINVAL);
	cr_assert_eq(verb_check_args(&verbs[0], 2), 0);
	cr_assert_eq(verb_check_args(&verbs[0], 3), -E2BIG);
	cr_assert_eq(verb_check_args(&verbs[1], 0), 0, "the default verb, not named");
	cr_assert_eq(verb_check_args(&verbs[2], 1), -EINVAL);
	cr_assert_eq(verb_check_args(&verbs[2], 1000), 0, "VERB_ANY: no limit");
}

Test(verbs, dispatch)
{
	char delete[] = "delete", a[] = "a", b[] = "b";
	char *argv[] = {delete, a, b, NULL};

	cr_assert_eq(dispatch_verb(&verbs[2], 3, argv), 42);
	cr_assert_eq(n_called, 3);
	cr_assert_str_eq(called_argv0, "delete");

	cr_assert_eq(dispatch_verb(&verbs[1], 0, NULL), 42);
	cr_assert_eq(n_called, 1, "the default verb gets its name alone");
	cr_assert_str_eq(called_argv0, "list");
}

Test(verbs, help)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	verbs_print_help(verbs, 2, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_str_eq(text, "  show ID                Show one\n"
			       "  list                   List all\n");
	free(text);
}

enum { ARG_GROUP = 0x200, ARG_JSON, ARG_A_VERY_LONG_OPTION };

static const OptionSpec list_options[] = {
	{"since", required_argument, 'S', "TIME", "Only crashes at or after TIME"},
	{"group", no_argument, ARG_GROUP, NULL, "One line per signature:\ncrashes, machines"},
	{"json", optional_argument, ARG_JSON, "FORMAT", "Print JSON"},
	{"an-option-with-a-long-name", required_argument, ARG_A_VERY_LONG_OPTION, "VALUE", "Long"},
	{}};
static const OptionSpec common_options[] = {COMMON_OPTIONS, {}};

Test(verbs, options_to_getopt)
{
	const OptionSpec *const tables[] = {common_options, list_options, NULL};
	struct option *longopts = NULL;
	char *shortopts = NULL;

	cr_assert_eq(options_to_getopt(tables, "+", &longopts, &shortopts), 0);
	cr_assert_str_eq(shortopts, "+hS:", "short options come from the vals below 0x100");
	cr_assert_str_eq(longopts[0].name, "help");
	cr_assert_eq(longopts[0].val, 'h');
	cr_assert_str_eq(longopts[3].name, "since");
	cr_assert_eq(longopts[3].has_arg, required_argument);
	cr_assert_eq(longopts[5].has_arg, optional_argument);
	cr_assert_null(longopts[7].name, "ends with an all-zero entry");
	free(longopts);
	free(shortopts);
}

Test(verbs, options_print_help)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	options_print_help(list_options, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_str_eq(text, "  -S --since=TIME        Only crashes at or after TIME\n"
			       "     --group             One line per signature:\n"
			       "                         crashes, machines\n"
			       "     --json[=FORMAT]     Print JSON\n"
			       "     --an-option-with-a-long-name=VALUE\n"
			       "                         Long\n");
	free(text);
}

/* Runs getopt_long() over args until it fails; returns what log_option_error() returned. */
static int option_error(char **args, int n)
{
	const OptionSpec *const tables[] = {common_options, list_options, NULL};
	struct option *longopts = NULL;
	char *shortopts = NULL;
	int c, r = 0;

	cr_assert_eq(options_to_getopt(tables, "", &longopts, &shortopts), 0);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(n, args, shortopts, longopts, NULL)) >= 0)
		if (c == '?') {
			r = log_option_error(tables, args, "list");
			break;
		}
	free(longopts);
	free(shortopts);
	return r;
}

Test(verbs, log_option_error, .init = cr_redirect_stderr)
{
	char prog[] = "prog", list[] = "list", unknown[] = "--bogus", no_value[] = "--group=3",
	     missing[] = "-S", unknown_short[] = "-x", group[] = "--group", cluster[] = "-xS";
	char *a[] = {list, unknown, NULL}, *b[] = {list, no_value, NULL},
	     *c[] = {list, missing, NULL}, *d[] = {list, unknown_short, NULL},
	     *e[] = {list, group, cluster, NULL};

	program_invocation_short_name = prog;
	cr_assert_eq(option_error(a, 2), -EINVAL);
	cr_assert_eq(option_error(b, 2), -EINVAL);
	cr_assert_eq(option_error(c, 2), -EINVAL);
	cr_assert_eq(option_error(d, 2), -EINVAL);
	/* -x before S in one word: not the --group before it. */
	cr_assert_eq(option_error(e, 3), -EINVAL);
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"prog: Unknown option '--bogus': see 'prog list --help'.\n"
		"prog: Option '--group' takes no value: see 'prog list --help'.\n"
		"prog: Option '-S' needs a value (TIME): see 'prog list --help'.\n"
		"prog: Unknown option '-x': see 'prog list --help'.\n"
		"prog: Unknown option '-x': see 'prog list --help'.\n");
}
