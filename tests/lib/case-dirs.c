// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case-dirs.h"
#include "macro.h"

char *test_suite_path(const char *suite, const char *file)
{
	const char *top = getenv("top_srcdir");
	char *p;

	if (asprintf(&p, "%s/tests/%s/%s", top ?: ".", suite, file) < 0)
		return NULL;
	return p;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct test_case *)a)->name, ((const struct test_case *)b)->name);
}

/* Case directories only: a MANIFEST or README beside them is not a case. */
static bool is_case(const struct dirent *de)
{
	return de->d_name[0] != '.' && de->d_type != DT_REG;
}

struct criterion_test_params test_case_dirs_in(const char *suite, const char *dir_name)
{
	_cleanup_free_ char *dir = test_suite_path(suite, dir_name);
	struct test_case *cases = NULL;
	size_t n = 0, allocated = 0;
	struct dirent *de;
	DIR *d;

	d = dir ? opendir(dir) : NULL;
	if (!d)
		return cr_make_param_array(struct test_case, NULL, 0);
	while ((de = readdir(d)))
		allocated += is_case(de);
	cases = cr_malloc(MAX(allocated, 1) * sizeof(*cases));
	rewinddir(d);
	while (cases && (de = readdir(d)) && n < allocated)
		if (is_case(de)) {
			snprintf(cases[n].name, sizeof(cases[n].name), "%s", de->d_name);
			n++;
		}
	closedir(d);
	if (!cases)
		return cr_make_param_array(struct test_case, NULL, 0);
	qsort(cases, n, sizeof(*cases), compare_names);
	return cr_make_param_array(struct test_case, cases, n);
}

struct criterion_test_params test_case_dirs(const char *suite)
{
	return test_case_dirs_in(suite, "cases");
}

size_t test_case_count_in(const char *suite, const char *dir_name)
{
	_cleanup_free_ char *dir = test_suite_path(suite, dir_name);
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	cr_assert_not_null(dir);
	d = opendir(dir);
	cr_assert_not_null(d, "%s: %m", dir);
	while ((de = readdir(d)))
		n += is_case(de);
	closedir(d);
	return n;
}

size_t test_case_count(const char *suite)
{
	return test_case_count_in(suite, "cases");
}

bool test_json_subset(const json_t *expected, const json_t *actual, char **ret_where)
{
	const char *key;
	size_t i;
	json_t *v;

	if (json_is_array(expected) && json_is_array(actual)) {
		if (json_array_size(expected) != json_array_size(actual)) {
			cr_assert(asprintf(ret_where, "%zu elements instead of %zu",
					   json_array_size(actual),
					   json_array_size(expected)) >= 0);
			return false;
		}
		json_array_foreach(expected, i, v)
			if (!test_json_subset(v, json_array_get(actual, i), ret_where)) {
				char *inner = *ret_where;
				cr_assert(asprintf(ret_where, "[%zu]: %s", i, inner) >= 0);
				free(inner);
				return false;
			}
		return true;
	}
	if (!json_is_object(expected) || !json_is_object(actual) ||
	    json_object_size(expected) == 0) {
		if (json_equal(expected, actual))
			return true;
		*ret_where = json_dumps(actual, JSON_ENCODE_ANY | JSON_COMPACT);
		return false;
	}
	json_object_foreach((json_t *)expected, key, v) {
		json_t *a = json_object_get(actual, key);

		if (!a) {
			cr_assert(asprintf(ret_where, "missing key %s", key) >= 0);
			return false;
		}
		if (!test_json_subset(v, a, ret_where)) {
			char *inner = *ret_where;
			cr_assert(asprintf(ret_where, "%s: %s", key, inner) >= 0);
			free(inner);
			return false;
		}
	}
	return true;
}
