/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Data-driven Criterion tests, jansson style: one directory per case under
 * $top_srcdir/tests/<suite>/cases/, each one parameter of a
 * ParameterizedTest:
 *
 *	ParameterizedTestParameters(config, cases)
 *	{
 *		return test_case_dirs("config");
 *	}
 *	ParameterizedTest(struct test_case *c, config, cases) { ... c->name ... }
 */

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct test_case {
	char name[NAME_MAX + 1];
};

/* "$top_srcdir/tests/<suite>/<file>"; the caller frees it. */
char *test_suite_path(const char *suite, const char *file);

/*
 * The case directories of a suite, sorted by name, in memory from
 * cr_malloc(). Runs before any test, so it cannot assert: a missing
 * directory gives no cases, which test_case_count() lets a test catch.
 */
struct criterion_test_params test_case_dirs(const char *suite);
/* The same for the cases under $top_srcdir/tests/<suite>/<dir_name>/. */
struct criterion_test_params test_case_dirs_in(const char *suite, const char *dir_name);

/* The number of case directories, asserting that the directory can be read. */
size_t test_case_count(const char *suite);
size_t test_case_count_in(const char *suite, const char *dir_name);

/*
 * Whether every key of expected is in actual with the same value, recursively for objects and
 * for arrays of the same length; an empty object in expected must be empty in actual. On a
 * mismatch, *ret_where says where (the caller frees it).
 */
bool test_json_subset(const json_t *expected, const json_t *actual, char **ret_where);
