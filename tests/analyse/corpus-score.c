// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyse/analyse.h"
#include "corpus-score.h"
#include "fs-util.h"
#include "macro.h"

#define CORPUS_FILE_MAX (16u * 1024 * 1024)

/* In the order of CorpusField, named as in expected.json. */
const char *const corpus_field_names[_CORPUS_FIELD_MAX] = {
	"reason", "function", "module", "kernel_version", "comm", "pid", "taint", "call_trace",
};

double corpus_percent(unsigned right, unsigned total)
{
	return total > 0 ? 100.0 * right / total : 0;
}

/* Whether actual's call trace starts with the expected frames (all of them when none are). */
static bool trace_right(json_t *expected, json_t *actual)
{
	size_t n = json_array_size(expected);

	if (n == 0)
		return json_array_size(actual) == 0;
	if (json_array_size(actual) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!json_equal(json_array_get(expected, i), json_array_get(actual, i)))
			return false;
	return true;
}

static int analyse_case(int dir_fd, const char *name, json_t **ret_expected, json_t **ret_actual)
{
	_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
	_cleanup_free_ char *log = NULL, *path = NULL, *json = NULL;
	json_t *expected;
	size_t len;
	int r;

	if (asprintf(&path, "%s/dmesg.txt", name) < 0)
		return -ENOMEM;
	r = read_full_file_at(dir_fd, path, CORPUS_FILE_MAX, &log, &len);
	if (r < 0)
		return r;
	r = dmesg_analyse(log, len, &a);
	if (r < 0)
		return r;
	free(path);
	if (asprintf(&path, "%s/expected.json", name) < 0)
		return -ENOMEM;
	r = read_full_file_at(dir_fd, path, CORPUS_FILE_MAX, &json, &len);
	if (r < 0)
		return r;
	expected = json_loadb(json, len, 0, NULL);
	if (!expected)
		return -EBADMSG;
	r = dmesg_analysis_to_json(a, ret_actual);
	if (r < 0) {
		json_decref(expected);
		return r;
	}
	*ret_expected = expected;
	return 0;
}

/* The signature of case name, "" when none, in sig. */
static int case_signature(int dir_fd, const char *name, char sig[static 65])
{
	json_t *expected = NULL, *actual = NULL;
	int r = analyse_case(dir_fd, name, &expected, &actual);

	if (r < 0)
		return r;
	snprintf(sig, 65, "%s", json_string_value(json_object_get(actual, "signature")) ?: "");
	json_decref(expected);
	json_decref(actual);
	return 0;
}

static int score_pairs(int dir_fd, corpus_pair_fn pair_fn, void *userdata, CorpusScore *score,
		       char **ret_what)
{
	_cleanup_free_ char *pairs = NULL;
	char *line, *save = NULL;
	size_t len;
	int r;

	r = read_full_file_at(dir_fd, "PAIRS", CORPUS_FILE_MAX, &pairs, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return *ret_what = strdup("PAIRS"), r;
	for (line = strtok_r(pairs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *label, *first, *second, *field_save = NULL, sig1[65], sig2[65];
		bool same, right;

		if (line[0] == '#')
			continue;
		label = strtok_r(line, "\t", &field_save);
		first = strtok_r(NULL, "\t", &field_save);
		second = strtok_r(NULL, "\t", &field_save);
		if (!label || !first || !second ||
		    !(streq(label, "same") || streq(label, "different")))
			return *ret_what = strdup("PAIRS"), -EBADMSG;
		r = case_signature(dir_fd, first, sig1);
		if (r < 0)
			return *ret_what = strdup(first), r;
		r = case_signature(dir_fd, second, sig2);
		if (r < 0)
			return *ret_what = strdup(second), r;
		same = streq(label, "same");
		right = sig1[0] && (streq(sig1, sig2) == same);
		score->pairs_total[same]++;
		score->pairs_right[same] += right;
		if (pair_fn)
			pair_fn(label, first, second, right, userdata);
	}
	return 0;
}

static void tally_case(CorpusTally *t, json_t *expected, json_t *actual)
{
	bool whole = true;

	t->cases++;
	for (size_t i = 0; i < _CORPUS_FIELD_MAX; i++) {
		json_t *e = json_object_get(expected, corpus_field_names[i]),
		       *v = json_object_get(actual, corpus_field_names[i]);
		bool right;

		if (!e)
			continue;
		right = i == CORPUS_CALL_TRACE ? trace_right(e, v) : json_equal(e, v);
		t->expected[i]++;
		t->right[i] += right;
		whole = whole && right;
	}
	t->whole += whole;
}

static CorpusTally *arch_tally(CorpusScore *score, const char *arch)
{
	size_t k;

	for (k = 0; k < score->n_arch; k++)
		if (streq(score->arch[k].arch, arch))
			return &score->arch[k];
	if (k == CORPUS_ARCH_MAX)
		return NULL;
	snprintf(score->arch[k].arch, sizeof(score->arch[k].arch), "%s", arch);
	score->n_arch++;
	return &score->arch[k];
}

int corpus_score(const char *dir, corpus_pair_fn pair_fn, void *userdata, CorpusScore *ret,
		 char **ret_what)
{
	_cleanup_close_ int dir_fd = -EBADF;
	_cleanup_free_ char *manifest = NULL;
	CorpusScore score = {};
	char *line, *save = NULL;
	size_t len;
	int r;

	*ret_what = NULL;
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return *ret_what = strdup(dir), -errno;
	r = read_full_file_at(dir_fd, "MANIFEST", CORPUS_FILE_MAX, &manifest, &len);
	if (r < 0)
		return *ret_what = strdup("MANIFEST"), r;

	for (line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *expected = NULL, *actual = NULL;
		char *tab = strchr(line, '\t');
		CorpusTally *arch;

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		*strchrnul(tab + 1, '\t') = '\0';
		arch = arch_tally(&score, tab + 1);
		if (!arch)
			return *ret_what = strdup("MANIFEST: too many architectures"), -E2BIG;
		r = analyse_case(dir_fd, line, &expected, &actual);
		if (r < 0)
			return *ret_what = strdup(line), r;
		tally_case(&score.all, expected, actual);
		tally_case(arch, expected, actual);
		json_decref(expected);
		json_decref(actual);
	}

	r = score_pairs(dir_fd, pair_fn, userdata, &score, ret_what);
	if (r < 0)
		return r;
	*ret = score;
	return 0;
}
