// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dmesg analysis, data-driven: every directory under tests/analyse/cases/
 * holds a kernel log (dmesg.txt) and the analysis it must give
 * (expected.json, compared whole with dmesg_analysis_to_json()).
 *
 * tests/analyse/signatures.json lists the groups of cases that are the same
 * bug (on other boots, with other prefixes, truncated): their signatures must
 * be equal, and differ from those of every other case.
 *
 * tests/analyse/real-world/dev holds logs that machines wrote, each checked
 * field by field, and the labelled signature pairs of dev/PAIRS; the sealed
 * part is measured by test-analyse-sealed.c, out of make check.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "analyse/analyse.h"
#include "case-dirs.h"
#include "corpus-score.h"
#include "macro.h"

ParameterizedTestParameters(analyse, cases)
{
	return test_case_dirs("analyse");
}

static void read_file(const char *path, char **ret, size_t *ret_len)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t size = 0;
	FILE *out;
	char chunk[4096];
	size_t n;

	cr_assert_not_null(f, "%s: %m", path);
	out = open_memstream(&buf, &size);
	cr_assert_not_null(out);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, out);
	cr_assert(!ferror(f));
	fclose(out);
	*ret = buf;
	*ret_len = size;
}

static json_t *analyse_log_json(const char *dir_name, const char *name)
{
	_cleanup_free_ char *dir = test_suite_path("analyse", dir_name), *path = NULL, *log = NULL;
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
	json_t *j = NULL;
	size_t len;

	cr_assert(asprintf(&path, "%s/%s/dmesg.txt", dir, name) >= 0);
	read_file(path, &log, &len);
	cr_assert_eq(dmesg_analyse(log, len, &a), 0, "%s", name);
	cr_assert_not_null(a->reason);
	cr_assert_not_null(a->call_trace);
	cr_assert_eq(dmesg_analysis_to_json(a, &j), 0);
	return j;
}

static json_t *analyse_case_json(const char *name)
{
	return analyse_log_json("cases", name);
}

ParameterizedTest(struct test_case *c, analyse, cases)
{
	_cleanup_free_ char *dir = test_suite_path("analyse", "cases"), *path = NULL;
	json_auto_t *expected = NULL, *actual = NULL;
	json_error_t err;

	actual = analyse_case_json(c->name);
	cr_assert(asprintf(&path, "%s/%s/expected.json", dir, c->name) >= 0);
	expected = json_load_file(path, 0, &err);
	cr_assert_not_null(expected, "%s:%d: %s", path, err.line, err.text);
	cr_assert(json_equal(expected, actual), "%s:\nexpected: %s\n  actual: %s", c->name,
		  json_dumps(expected, JSON_INDENT(2)), json_dumps(actual, JSON_INDENT(2)));
}

/* A missing or emptied cases directory would otherwise pass silently. */
Test(analyse, cases_exist)
{
	size_t n = test_case_count("analyse");

	cr_assert_geq(n, 20, "only %zu cases", n);
}

/*
 * Logs that machines wrote, one directory each under tests/analyse/real-world/dev/ (see its
 * MANIFEST): dmesg.txt as it was published, its SOURCE, and expected.json, the fields worked out
 * by hand from the log. Every field there must be in the analysis with the same value, except
 * call_trace, which holds the first frames only (all of them when it is empty).
 */
ParameterizedTestParameters(analyse, real_world)
{
	return test_case_dirs_in("analyse", "real-world/dev");
}

ParameterizedTest(struct test_case *c, analyse, real_world)
{
	_cleanup_free_ char *dir = test_suite_path("analyse", "real-world/dev"), *path = NULL,
			    *where = NULL;
	json_auto_t *expected = NULL, *actual = NULL;
	json_error_t err;
	json_t *trace;
	size_t frames;

	actual = analyse_log_json("real-world/dev", c->name);
	cr_assert(asprintf(&path, "%s/%s/expected.json", dir, c->name) >= 0);
	expected = json_load_file(path, 0, &err);
	cr_assert_not_null(expected, "%s:%d: %s", path, err.line, err.text);

	frames = json_array_size(json_object_get(expected, "call_trace"));
	trace = json_object_get(actual, "call_trace");
	while (frames > 0 && json_array_size(trace) > frames)
		cr_assert_eq(json_array_remove(trace, frames), 0);
	cr_assert(test_json_subset(expected, actual, &where), "%s: %s\nactual: %s", c->name, where,
		  json_dumps(actual, JSON_INDENT(2)));
}

/* A missing or emptied dev directory would otherwise pass silently. */
Test(analyse, real_world_exists)
{
	size_t n = test_case_count_in("analyse", "real-world/dev");

	cr_assert_geq(n, 20, "only %zu real-world logs", n);
}

static void assert_pair_right(const char *label, const char *first, const char *second, bool right,
			      void *userdata)
{
	cr_expect(right, "%s and %s: %s bugs, but %s signatures", first, second,
		  streq(label, "same") ? "same" : "different",
		  streq(label, "same") ? "other" : "the same");
}

static CorpusScore score_part(const char *part, corpus_pair_fn pair_fn)
{
	_cleanup_free_ char *dir = test_suite_path("analyse", part), *what = NULL;
	CorpusScore s;
	int r;

	r = corpus_score(dir, pair_fn, NULL, &s, &what);
	cr_assert_eq(r, 0, "%s: %s: %s", dir, what ?: "", strerror(-r));
	/* every case directory is in MANIFEST, so that it is counted */
	cr_assert_eq(s.all.cases, test_case_count_in("analyse", part),
		     "%s: MANIFEST names %u of %zu cases", part, s.all.cases,
		     test_case_count_in("analyse", part));
	return s;
}

/* real-world/dev/PAIRS: "same" pairs have equal signatures, "different" ones not. */
Test(analyse, real_world_pairs)
{
	CorpusScore s = score_part("real-world/dev", assert_pair_right);

	cr_assert_gt(s.pairs_total[1], 0);
	cr_assert_gt(s.pairs_total[0], 0);
}

Test(analyse, signatures)
{
	_cleanup_free_ char *path = test_suite_path("analyse", "signatures.json"),
			    *dir = test_suite_path("analyse", "cases");
	json_auto_t *groups = NULL, *seen = json_object();
	json_error_t err;
	struct dirent *de;
	json_t *group;
	size_t i;
	DIR *d;

	groups = json_load_file(path, 0, &err);
	cr_assert(json_is_array(groups), "%s:%d: %s", path, err.line, err.text);

	/* Same bug, same signature; the first of each group is recorded in seen. */
	json_array_foreach(groups, i, group) {
		const char *first = json_string_value(json_array_get(group, 0));
		json_t *name;
		size_t k;

		cr_assert_gt(json_array_size(group), 1);
		json_array_foreach(group, k, name) {
			json_auto_t *j = analyse_case_json(json_string_value(name));
			const char *sig = json_string_value(json_object_get(j, "signature"));
			const char *owner;

			cr_assert_not_null(sig, "%s has no signature", json_string_value(name));
			owner = json_string_value(json_object_get(seen, sig));
			if (k == 0) {
				cr_assert_null(owner, "%s has the signature of %s", first, owner);
				cr_assert_eq(json_object_set_new(seen, sig, json_string(first)), 0);
			} else
				cr_assert(owner && streq(owner, first),
					  "%s: signature differs from %s", json_string_value(name),
					  first);
		}
	}

	/* Different bugs, different signatures: every case outside the groups is new. */
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		bool grouped = false;
		json_t *name;
		size_t k;

		if (de->d_name[0] == '.')
			continue;
		json_array_foreach(groups, i, group)
			json_array_foreach(group, k, name)
				grouped = grouped || streq(json_string_value(name), de->d_name);
		if (grouped)
			continue;

		json_auto_t *j = analyse_case_json(de->d_name);
		const char *sig = json_string_value(json_object_get(j, "signature"));
		if (!sig)
			continue;
		cr_assert_null(json_object_get(seen, sig), "%s has the signature of %s", de->d_name,
			       json_string_value(json_object_get(seen, sig)));
		cr_assert_eq(json_object_set_new(seen, sig, json_string(de->d_name)), 0);
	}
	closedir(d);
}

Test(analyse, empty_input_and_json)
{
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
	json_auto_t *j = NULL;

	cr_assert_eq(dmesg_analyse(NULL, 0, &a), 0);
	cr_assert_str_eq(a->reason, "unknown");
	cr_assert_null(a->message);
	cr_assert_null(a->call_trace[0]);
	cr_assert_eq(a->pid, -1);
	cr_assert_null(a->signature);
	cr_assert_eq(dmesg_analysis_to_json(a, &j), 0);
	cr_assert(json_is_null(json_object_get(j, "pid")));
	cr_assert_null(dmesg_analysis_free(NULL));
}

/* The kernel's own line cannot be told from the same line in the middle of a long one. */
Test(analyse, long_and_hostile_lines)
{
	static const char *const pieces[] = {
		"Kernel panic - not syncing: ",
		"RIP: 0010:",
		"[<",
		"? ",
		"+0x",
		"/0x",
		"Call Trace:\n",
		"CPU: 0 PID: 1 Comm: ",
		" Tainted: ",
		"[",
		"INFO: task ",
		"<ffffffff80123456>{:m:f+44} ",
		"=\n",
		"> >> [ 1.2] ",
		"---[ end Kernel panic - not syncing: ",
		"epc : ",
		"task:",
		" by task ",
		"f (a.c:1 (b 2)) m\n",
		"CPU: 0 PID: 1 Comm: x Not tainted\n",
		"f+0x1/0x",
	};
	_cleanup_free_ char *log = NULL;
	size_t size = 1 << 20, len = 0;

	log = malloc(size);
	cr_assert_not_null(log);
	for (size_t k = 0; len + 64 < size; k++) {
		const char *p = pieces[k % ARRAY_SIZE(pieces)];
		memcpy(log + len, p, strlen(p));
		len += strlen(p);
	}
	for (size_t round = 0; round < 2; round++) {
		_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;

		cr_assert_eq(dmesg_analyse(log, len, &a), 0);
		cr_assert_not_null(a->reason);
		/* the same with every line a frame: "f+0x1/0x2\n" */
		for (size_t i = 0; i + 10 <= len; i += 10)
			memcpy(log + i, "f+0x1/0x2\n", 10);
	}
}
