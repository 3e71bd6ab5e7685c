// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-analyse: how right and how fast the analysis of kernel logs is on the real-world corpus.
 *
 *   bench-analyse [--sealed-only] DIR
 *
 * DIR is tests/analyse/real-world, split by source into dev/ (the logs the analyser is fixed
 * from) and sealed/ (logs it is measured on and never fixed from). For each part: how many cases
 * the analysis gets right per field of expected.json, then per architecture how many it gets
 * right whole and the function and kernel version, then the labelled signature pairs of PAIRS.
 * dev/ names each pair; sealed/ gives figures only, never a case, so that it stays unseen.
 * Last, the speed of dmesg_analyse() in MB/s on a 16 MiB log made of the dev/ logs one after
 * another: the median of 5 runs, CPU time of this thread. --sealed-only prints the sealed
 * figures alone.
 * Figures only: tests/analyse/test-analyse.c holds every dev case to its expected values.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyse/analyse.h"
#include "corpus-score.h"
#include "fs-util.h"
#include "macro.h"

#define SPEED_LOG_SIZE (16u * 1024 * 1024)
#define SPEED_ROUNDS 5

static void print_pair(const char *label, const char *first, const char *second, bool right,
		       void *userdata)
{
	printf("%-9s %-5s %s %s\n", label, right ? "yes" : "NO", first, second);
}

static int print_part(const char *top, const char *part, bool named_pairs)
{
	_cleanup_free_ char *dir = NULL, *what = NULL;
	CorpusScore s;
	int r;

	if (asprintf(&dir, "%s/%s", top, part) < 0)
		return -ENOMEM;
	printf("== %s ==\n", part);
	if (named_pairs)
		printf("%-9s %-5s %s\n", "pair", "right", "cases");
	r = corpus_score(dir, named_pairs ? print_pair : NULL, NULL, &s, &what);
	if (r < 0) {
		fprintf(stderr, "Failed to score %s: %s: %s\n", dir, what ?: "", strerror(-r));
		return r;
	}
	printf("same-bug pairs right: %u/%u, different-bug pairs right: %u/%u\n\n",
	       s.pairs_right[1], s.pairs_total[1], s.pairs_right[0], s.pairs_total[0]);

	printf("%u real-world logs, %u right in every field (%.1f%%)\n", s.all.cases, s.all.whole,
	       corpus_percent(s.all.whole, s.all.cases));
	printf("%-16s %9s %7s\n", "field", "right", "%");
	for (size_t i = 0; i < _CORPUS_FIELD_MAX; i++)
		printf("%-16s %4u/%-4u %6.1f%%\n", corpus_field_names[i], s.all.right[i],
		       s.all.expected[i], corpus_percent(s.all.right[i], s.all.expected[i]));
	printf("%-10s %5s %9s %9s %9s %9s\n", "arch", "logs", "whole%", "reason%", "function%",
	       "version%");
	for (size_t k = 0; k < s.n_arch; k++) {
		const CorpusTally *t = &s.arch[k];

		printf("%-10s %5u %8.1f%% %8.1f%% %8.1f%% %8.1f%%\n", t->arch, t->cases,
		       corpus_percent(t->whole, t->cases),
		       corpus_percent(t->right[CORPUS_REASON], t->expected[CORPUS_REASON]),
		       corpus_percent(t->right[CORPUS_FUNCTION], t->expected[CORPUS_FUNCTION]),
		       corpus_percent(t->right[CORPUS_KERNEL_VERSION],
				      t->expected[CORPUS_KERNEL_VERSION]));
	}
	printf("\n");
	return 0;
}

static double thread_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Fills buf with the dev logs of MANIFEST one after another, over and over, to SPEED_LOG_SIZE. */
static int make_speed_log(const char *top, char *buf)
{
	_cleanup_close_ int dir_fd = -EBADF;
	_cleanup_free_ char *dir = NULL, *manifest = NULL;
	char *line, *save = NULL;
	size_t len, used = 0;
	int r;

	if (asprintf(&dir, "%s/dev", top) < 0)
		return -ENOMEM;
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	r = read_full_file_at(dir_fd, "MANIFEST", SPEED_LOG_SIZE, &manifest, &len);
	if (r < 0)
		return r;
	for (line = strtok_r(manifest, "\n", &save); line && used < SPEED_LOG_SIZE;
	     line = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *path = NULL, *log = NULL;
		size_t n;

		if (line[0] == '#')
			continue;
		if (asprintf(&path, "%.*s/dmesg.txt", (int)strcspn(line, "\t"), line) < 0)
			return -ENOMEM;
		r = read_full_file_at(dir_fd, path, SPEED_LOG_SIZE, &log, &n);
		if (r < 0)
			return r;
		n = MIN(n, SPEED_LOG_SIZE - used);
		memcpy(buf + used, log, n);
		used += n;
	}
	if (used == 0)
		return -ENODATA;
	/* then the same again */
	for (size_t once = used; used < SPEED_LOG_SIZE; used += MIN(once, SPEED_LOG_SIZE - used))
		memcpy(buf + used, buf, MIN(once, SPEED_LOG_SIZE - used));
	return 0;
}

static int print_speed(const char *top)
{
	_cleanup_free_ char *log = malloc(SPEED_LOG_SIZE);
	double mbs[SPEED_ROUNDS];
	int r;

	if (!log)
		return -ENOMEM;
	r = make_speed_log(top, log);
	if (r < 0) {
		fprintf(stderr, "Failed to make a log of the dev logs of %s: %s\n", top,
			strerror(-r));
		return r;
	}
	for (size_t i = 0; i < SPEED_ROUNDS; i++) {
		_cleanup_(dmesg_analysis_freep) DmesgAnalysis *a = NULL;
		double start = thread_seconds();

		r = dmesg_analyse(log, SPEED_LOG_SIZE, &a);
		if (r < 0) {
			fprintf(stderr, "Failed to analyse the 16 MiB log: %s\n", strerror(-r));
			return r;
		}
		mbs[i] = SPEED_LOG_SIZE / 1e6 / (thread_seconds() - start);
	}
	qsort(mbs, SPEED_ROUNDS, sizeof(mbs[0]), compare_doubles);
	printf("speed: %.1f MB/s on a 16 MiB log (median of %d runs, %.1f to %.1f)\n",
	       mbs[SPEED_ROUNDS / 2], SPEED_ROUNDS, mbs[0], mbs[SPEED_ROUNDS - 1]);
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"sealed-only", no_argument, NULL, 's'},
		{},
	};
	bool sealed_only = false;
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		if (c != 's')
			return EXIT_FAILURE;
		sealed_only = true;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "Usage: %s [--sealed-only] tests/analyse/real-world\n",
			program_invocation_short_name);
		return EXIT_FAILURE;
	}
	if (!sealed_only && print_part(argv[optind], "dev", true) < 0)
		return EXIT_FAILURE;
	if (print_part(argv[optind], "sealed", false) < 0)
		return EXIT_FAILURE;
	if (!sealed_only && print_speed(argv[optind]) < 0)
		return EXIT_FAILURE;
	return EXIT_SUCCESS;
}
