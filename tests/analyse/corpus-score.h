/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * How right the analysis is on a directory of real-world logs (tests/analyse/real-world/dev or
 * sealed): its MANIFEST names each case ("case<TAB>arch<TAB>form<TAB>source"), each case
 * directory holds dmesg.txt and expected.json (the fields worked out by hand), and PAIRS labels
 * pairs of cases "same" (equal signatures) or "different". Shared by bench/bench-analyse, which
 * prints the figures, and the tests, which hold them to a bar.
 */

#include <stdbool.h>
#include <stddef.h>

#define CORPUS_ARCH_MAX 16

typedef enum CorpusField {
	CORPUS_REASON,
	CORPUS_FUNCTION,
	CORPUS_MODULE,
	CORPUS_KERNEL_VERSION,
	CORPUS_COMM,
	CORPUS_PID,
	CORPUS_TAINT,
	CORPUS_CALL_TRACE,
	_CORPUS_FIELD_MAX,
} CorpusField;

extern const char *const corpus_field_names[_CORPUS_FIELD_MAX];

typedef struct CorpusTally {
	char arch[32];
	unsigned cases, whole;
	unsigned right[_CORPUS_FIELD_MAX], expected[_CORPUS_FIELD_MAX];
} CorpusTally;

typedef struct CorpusScore {
	CorpusTally all, arch[CORPUS_ARCH_MAX];
	size_t n_arch;
	/* Signature pairs, [0] "different", [1] "same". */
	unsigned pairs_right[2], pairs_total[2];
} CorpusScore;

/*
 * Called for each labelled pair with whether its signatures are as labelled; NULL when only the
 * figures are wanted (the sealed part is never looked at case by case).
 */
typedef void (*corpus_pair_fn)(const char *label, const char *first, const char *second, bool right,
			       void *userdata);

/*
 * Scores every case of DIR/MANIFEST and every pair of DIR/PAIRS (a part without PAIRS has no
 * pairs). Returns 0, or -errno with *ret_what naming the file that failed (static or case name,
 * valid while dir lives).
 */
int corpus_score(const char *dir, corpus_pair_fn pair_fn, void *userdata, CorpusScore *ret,
		 char **ret_what);

double corpus_percent(unsigned right, unsigned total);
