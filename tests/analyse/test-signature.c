// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The signature is a compatibility contract: stores and collectors group crashes by it, so a
 * change regroups every stored crash. Two golden files pin it:
 *
 *   tests/analyse/signature/contract.json  dmesg_analysis_sign() on hand-made analyses (reason,
 *                                          function, call trace, message), with the signature
 *                                          each must get and why;
 *   tests/analyse/signature/corpus         the signature of every case of tests/analyse/cases
 *                                          and tests/analyse/real-world/dev, from its log.
 *
 * The first fails when the hash changes; the second also when the analysis changes what it
 * hashes. Either is updated only for a change meant to regroup crashes.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <string.h>

#include "analyse/signature.h"
#include "case-dirs.h"
#include "fs-util.h"
#include "macro.h"

#define LOG_MAX (16u * 1024 * 1024)

static char *json_strdup_or_null(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	char *t;

	if (!s)
		return NULL;
	t = strdup(s);
	cr_assert_not_null(t);
	return t;
}

Test(signature, contract)
{
	_cleanup_free_ char *path = test_suite_path("analyse", "signature/contract.json");
	json_auto_t *cases = NULL;
	json_error_t err;
	json_t *c;
	size_t i;

	cases = json_load_file(path, 0, &err);
	cr_assert(json_is_array(cases), "%s:%d: %s", path, err.line, err.text);
	cr_assert_geq(json_array_size(cases), 10);
	json_array_foreach(cases, i, c) {
		_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = calloc(1, sizeof(*a));
		json_t *trace = json_object_get(c, "call_trace"), *frame;
		const char *expected = json_string_value(json_object_get(c, "signature"));
		size_t k;

		cr_assert_not_null(a);
		a->reason = json_strdup_or_null(c, "reason");
		a->function = json_strdup_or_null(c, "function");
		a->message = json_strdup_or_null(c, "message");
		a->call_trace = calloc(json_array_size(trace) + 1, sizeof(char *));
		cr_assert(a->reason && a->call_trace);
		json_array_foreach(trace, k, frame) {
			a->call_trace[k] = strdup(json_string_value(frame));
			cr_assert_not_null(a->call_trace[k]);
		}
		cr_assert_eq(dmesg_analysis_sign(a), 0);
		if (expected)
			cr_expect(a->signature && streq(a->signature, expected),
				  "%s [%zu] (%s): %s instead of %s", path, i,
				  json_string_value(json_object_get(c, "why")),
				  a->signature ?: "none", expected);
		else
			cr_expect_null(a->signature, "%s [%zu] (%s): %s instead of none", path, i,
				       json_string_value(json_object_get(c, "why")), a->signature);
	}
}

static char *case_signature(const char *name)
{
	_cleanup_free_ char *path = NULL, *log = NULL;
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
	size_t len;
	int r;

	path = test_suite_path("analyse", name);
	cr_assert_not_null(path);
	r = read_full_file_at(AT_FDCWD, path, LOG_MAX, &log, &len);
	cr_assert_eq(r, 0, "%s: %s", path, strerror(-r));
	cr_assert_eq(dmesg_analyse(log, len, &a), 0);
	return strdup(a->signature ?: "-");
}

/* Every case directory of tests/analyse/<part> is in the corpus golden file. */
static void assert_all_listed(json_t *listed, const char *part)
{
	_cleanup_free_ char *dir = test_suite_path("analyse", part);
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	d = opendir(dir);
	cr_assert_not_null(d, "%s: %m", dir);
	while ((de = readdir(d))) {
		_cleanup_free_ char *name = NULL;

		if (de->d_name[0] == '.' || de->d_type == DT_REG)
			continue;
		cr_assert(asprintf(&name, "%s/%s", part, de->d_name) >= 0);
		cr_expect_not_null(json_object_get(listed, name),
				   "%s has no signature in signature/corpus", name);
		n++;
	}
	closedir(d);
	cr_assert_gt(n, 0, "no cases in %s", dir);
}

Test(signature, corpus)
{
	_cleanup_free_ char *path = test_suite_path("analyse", "signature/corpus"), *line = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	json_auto_t *listed = json_object();
	size_t size = 0;

	f = fopen(path, "re");
	cr_assert_not_null(f, "%s: %m", path);
	while (getline(&line, &size, f) > 0) {
		_cleanup_free_ char *log = NULL, *actual = NULL;
		char *name, *expected, *save = NULL;

		if (line[0] == '#')
			continue;
		name = strtok_r(line, "\t\n", &save);
		expected = strtok_r(NULL, "\t\n", &save);
		cr_assert(name && expected, "%s: bad line", path);
		cr_assert(asprintf(&log, "%s/dmesg.txt", name) >= 0);
		actual = case_signature(log);
		cr_expect_str_eq(actual, expected, "%s: signature %s instead of %s", name, actual,
				 expected);
		cr_assert_eq(json_object_set_new(listed, name, json_true()), 0);
	}
	assert_all_listed(listed, "cases");
	assert_all_listed(listed, "real-world/dev");
}
