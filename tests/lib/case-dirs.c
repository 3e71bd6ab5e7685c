// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
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

struct criterion_test_params test_case_dirs(const char *suite)
{
	_cleanup_free_ char *dir = test_suite_path(suite, "cases");
	struct test_case *cases = NULL;
	size_t n = 0, allocated = 0;
	struct dirent *de;
	DIR *d;

	d = dir ? opendir(dir) : NULL;
	if (!d)
		return cr_make_param_array(struct test_case, NULL, 0);
	while ((de = readdir(d)))
		allocated += de->d_name[0] != '.';
	cases = cr_malloc(MAX(allocated, 1) * sizeof(*cases));
	rewinddir(d);
	while (cases && (de = readdir(d)) && n < allocated)
		if (de->d_name[0] != '.') {
			snprintf(cases[n].name, sizeof(cases[n].name), "%s", de->d_name);
			n++;
		}
	closedir(d);
	if (!cases)
		return cr_make_param_array(struct test_case, NULL, 0);
	qsort(cases, n, sizeof(*cases), compare_names);
	return cr_make_param_array(struct test_case, cases, n);
}

size_t test_case_count(const char *suite)
{
	_cleanup_free_ char *dir = test_suite_path(suite, "cases");
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	cr_assert_not_null(dir);
	d = opendir(dir);
	cr_assert_not_null(d, "%s: %m", dir);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}
