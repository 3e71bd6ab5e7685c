// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
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
	{"show", 2, 2, 0, record_call, "Show one", NULL},
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
	cr_assert_str_eq(text, "  show                   Show one\n"
			       "  list                   List all\n");
	free(text);
}
