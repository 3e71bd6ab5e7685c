// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-analyse: how right the analysis of kernel logs is on the real-world corpus.
 *
 *   bench-analyse DIR
 *
 * DIR is tests/analyse/real-world: its MANIFEST names each case ("case<TAB>arch<TAB>form<TAB>
 * source"), and each case directory holds dmesg.txt and expected.json, the fields worked out by
 * hand. Prints, for each field of expected.json, how many cases the analysis gets right, then per
 * architecture how many it gets right whole and the function and kernel version. A field is right
 * when it equals the expected value; call_trace when its first frames are the expected ones.
 * Then the signature pairs of DIR/PAIRS ("same" or "different", two cases): whether the two
 * signatures are equal or differ as labelled.
 * Figures only: tests/analyse/test-analyse.c holds every case to its expected values.
 */

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyse/analyse.h"
#include "fs-util.h"
#include "macro.h"

#define LOG_MAX (16u * 1024 * 1024)
#define ARCH_MAX 16

static const char *const fields[] = {
	"reason", "function", "module", "kernel_version", "comm", "pid", "taint", "call_trace",
};

typedef struct Tally {
	char arch[32];
	unsigned cases, whole, right[ARRAY_SIZE(fields)], expected[ARRAY_SIZE(fields)];
} Tally;

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
	size_t len;
	int r;

	if (asprintf(&path, "%s/dmesg.txt", name) < 0)
		return -ENOMEM;
	r = read_full_file_at(dir_fd, path, LOG_MAX, &log, &len);
	if (r < 0)
		return r;
	r = dmesg_analyse(log, len, &a);
	if (r < 0)
		return r;
	free(path);
	if (asprintf(&path, "%s/expected.json", name) < 0)
		return -ENOMEM;
	r = read_full_file_at(dir_fd, path, LOG_MAX, &json, &len);
	if (r < 0)
		return r;
	*ret_expected = json_loadb(json, len, 0, NULL);
	if (!*ret_expected)
		return -EBADMSG;
	r = dmesg_analysis_to_json(a, ret_actual);
	if (r < 0)
		json_decref(*ret_expected);
	return r;
}

/* The signature of case name, "" when none, in sig. */
static int case_signature(int dir_fd, const char *name, char sig[static 64])
{
	json_t *expected = NULL, *actual = NULL;
	int r = analyse_case(dir_fd, name, &expected, &actual);

	if (r < 0)
		return r;
	snprintf(sig, 64, "%s", json_string_value(json_object_get(actual, "signature")) ?: "");
	json_decref(expected);
	json_decref(actual);
	return 0;
}

/* Prints each pair of DIR/PAIRS and whether its signatures are as labelled. */
static int print_pairs(int dir_fd)
{
	_cleanup_free_ char *pairs = NULL;
	unsigned right[2] = {}, total[2] = {};
	char *line, *save = NULL;
	size_t len;
	int r;

	r = read_full_file_at(dir_fd, "PAIRS", LOG_MAX, &pairs, &len);
	if (r < 0)
		return r;
	printf("\n%-9s %-5s %s\n", "pair", "right", "cases");
	for (line = strtok_r(pairs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *label, *first, *second, *field_save = NULL, sig1[64], sig2[64];
		bool same, ok;

		if (line[0] == '#')
			continue;
		label = strtok_r(line, "\t", &field_save);
		first = strtok_r(NULL, "\t", &field_save);
		second = strtok_r(NULL, "\t", &field_save);
		if (!label || !first || !second)
			return -EBADMSG;
		r = case_signature(dir_fd, first, sig1);
		if (r >= 0)
			r = case_signature(dir_fd, second, sig2);
		if (r < 0)
			return r;
		same = streq(label, "same");
		ok = sig1[0] && (streq(sig1, sig2) == same);
		total[same]++;
		right[same] += ok;
		printf("%-9s %-5s %s %s\n", label, ok ? "yes" : "NO", first, second);
	}
	printf("same-bug pairs right: %u/%u, different-bug pairs right: %u/%u\n", right[1],
	       total[1], right[0], total[0]);
	return 0;
}

static void tally_case(Tally *t, json_t *expected, json_t *actual)
{
	bool whole = true;

	t->cases++;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		json_t *e = json_object_get(expected, fields[i]), *v = json_object_get(actual, fields[i]);
		bool right;

		if (!e)
			continue;
		right = streq(fields[i], "call_trace") ? trace_right(e, v) : json_equal(e, v);
		t->expected[i]++;
		t->right[i] += right;
		whole = whole && right;
	}
	t->whole += whole;
}

static double percent(unsigned right, unsigned total)
{
	return total > 0 ? 100.0 * right / total : 0;
}

static size_t field_index(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (streq(fields[i], name))
			return i;
	abort();
}

int main(int argc, char *argv[])
{
	_cleanup_close_ int dir_fd = -1;
	_cleanup_free_ char *manifest = NULL;
	Tally all = {}, arch[ARCH_MAX] = {};
	size_t n_arch = 0, len, fn = field_index("function"), kv = field_index("kernel_version");
	char *line, *save = NULL;
	int r;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s tests/analyse/real-world\n", program_invocation_short_name);
		return EXIT_FAILURE;
	}
	dir_fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0 || (r = read_full_file_at(dir_fd, "MANIFEST", LOG_MAX, &manifest, &len)) < 0) {
		fprintf(stderr, "Failed to read %s/MANIFEST: %s\n", argv[1],
			strerror(dir_fd < 0 ? errno : -r));
		return EXIT_FAILURE;
	}

	for (line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *expected = NULL, *actual = NULL;
		char *tab = strchr(line, '\t'), *arch_end;
		size_t k;

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		arch_end = strchrnul(tab + 1, '\t');
		*arch_end = '\0';
		for (k = 0; k < n_arch && !streq(arch[k].arch, tab + 1); k++)
			;
		if (k == n_arch) {
			if (n_arch == ARCH_MAX) {
				fprintf(stderr, "More than %d architectures in MANIFEST\n", ARCH_MAX);
				return EXIT_FAILURE;
			}
			snprintf(arch[n_arch++].arch, sizeof(arch[0].arch), "%s", tab + 1);
		}
		r = analyse_case(dir_fd, line, &expected, &actual);
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", line, strerror(-r));
			return EXIT_FAILURE;
		}
		tally_case(&all, expected, actual);
		tally_case(&arch[k], expected, actual);
		json_decref(expected);
		json_decref(actual);
	}

	printf("%u real-world logs, %u right in every field (%.1f%%)\n\n", all.cases, all.whole,
	       percent(all.whole, all.cases));
	printf("%-16s %9s %7s\n", "field", "right", "%");
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		printf("%-16s %4u/%-4u %6.1f%%\n", fields[i], all.right[i], all.expected[i],
		       percent(all.right[i], all.expected[i]));
	printf("\n%-10s %5s %9s %9s %9s\n", "arch", "logs", "whole%", "function%", "version%");
	for (size_t k = 0; k < n_arch; k++)
		printf("%-10s %5u %8.1f%% %8.1f%% %8.1f%%\n", arch[k].arch, arch[k].cases,
		       percent(arch[k].whole, arch[k].cases),
		       percent(arch[k].right[fn], arch[k].expected[fn]),
		       percent(arch[k].right[kv], arch[k].expected[kv]));
	r = print_pairs(dir_fd);
	if (r < 0) {
		fprintf(stderr, "Failed to check %s/PAIRS: %s\n", argv[1], strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
