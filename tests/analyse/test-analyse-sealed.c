// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How the analysis generalizes: tests/analyse/real-world/sealed holds real logs from sources that
 * dev/ does not use, which the analyser is never fixed from. Once it holds 100 logs or more, the
 * analysis must name the reason and the kernel version in 97% of them and the faulting function
 * in 95% (issue 35), and every labelled pair of sealed/PAIRS must be right. Only the figures are
 * printed, never a case: a sealed log that is looked at is no longer sealed.
 *
 * Not part of make check while the analysis is below these bars (make check-analyse-sealed runs
 * it; make bench-analyse prints the figures): the bars are not lowered to pass.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "case-dirs.h"
#include "corpus-score.h"
#include "macro.h"

#define SEALED_LOGS_MIN 100

static void assert_field(const CorpusScore *s, CorpusField field, double bar)
{
	unsigned right = s->all.right[field], total = s->all.expected[field];

	cr_expect_geq(corpus_percent(right, total), bar, "sealed %s: %u/%u, %.1f%% < %.0f%%",
		      corpus_field_names[field], right, total, corpus_percent(right, total), bar);
}

Test(analyse_sealed, thresholds)
{
	_cleanup_free_ char *dir = test_suite_path("analyse", "real-world/sealed"), *what = NULL;
	size_t n = test_case_count_in("analyse", "real-world/sealed");
	CorpusScore s;
	int r;

	if (n < SEALED_LOGS_MIN)
		cr_skip_test("sealed holds %zu logs, fewer than %d", n, SEALED_LOGS_MIN);
	r = corpus_score(dir, NULL, NULL, &s, &what);
	cr_assert_eq(r, 0, "%s: %s: %s", dir, what ?: "", strerror(-r));
	cr_assert_eq(s.all.cases, n, "sealed: MANIFEST names %u of %zu cases", s.all.cases, n);
	assert_field(&s, CORPUS_REASON, 97);
	assert_field(&s, CORPUS_KERNEL_VERSION, 97);
	assert_field(&s, CORPUS_FUNCTION, 95);
	cr_expect_eq(s.pairs_right[1], s.pairs_total[1], "sealed: %u of %u same-bug pairs right",
		     s.pairs_right[1], s.pairs_total[1]);
	cr_expect_eq(s.pairs_right[0], s.pairs_total[0],
		     "sealed: %u of %u different-bug pairs right", s.pairs_right[0],
		     s.pairs_total[0]);
}
