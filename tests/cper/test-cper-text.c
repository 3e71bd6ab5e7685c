// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The two outputs of the decoder give the same JSON: the text of cper_decode_json_text() and
 * cper_decoder_next_text() must be byte for byte json_dumps(JSON_COMPACT) of the trees of
 * cper_decode_json_budget() and cper_decoder_next() (same keys, order and values), on every
 * section sample with its validation bits set and clear, cut at every byte and with every byte
 * flipped, on the Linux pstore and MCE records, on malformed buffers and a spent budget, and on
 * every real-world record of tests/cper/real-world/.
 */

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "case-dirs.h"
#include "cper-builder.h"
#include "cper-samples.h"
#include "cper.h"
#include "fs-util.h"
#include "macro.h"
#include "zlib-util.h"

static uint8_t buf[64 * 1024];

/* Each record and each step's errors of the streaming decoder, both ways. */
static void assert_same_records(const void *p, size_t len, size_t budget, const char *what)
{
	_cleanup_(cper_decoder_freep) CperDecoder *tree = NULL, *text = NULL;
	int r;

	cr_assert_eq(cper_decoder_new(p, len, &tree), 0);
	cr_assert_eq(cper_decoder_new(p, len, &text), 0);
	cper_decoder_set_budget(tree, budget);
	cper_decoder_set_budget(text, budget);
	do {
		json_auto_t *rec = NULL, *errs = NULL, *text_errs = NULL;
		const char *s = NULL;
		size_t n = 0;

		r = cper_decoder_next(tree, &rec, &errs);
		cr_assert_eq(cper_decoder_next_text(text, &s, &n, &text_errs), r, "%s", what);
		if (r <= 0)
			break;
		cr_assert(json_equal(errs, text_errs), "%s", what);
		cr_assert_eq(!rec, !s, "%s", what);
		if (!rec)
			continue;
		_cleanup_free_ char *want = json_dumps(rec, JSON_COMPACT);
		cr_assert_str_eq(s, want, "%s", what);
		cr_assert_eq(n, strlen(want), "%s", what);
	} while (r > 0);
	cr_assert_eq(cper_decoder_budget_spent(text), cper_decoder_budget_spent(tree), "%s", what);
}

static void assert_same_json(const void *p, size_t len, size_t budget, const char *what)
{
	json_auto_t *doc = NULL;
	_cleanup_free_ char *text = NULL;
	size_t n;

	int r = cper_decode_json_budget(p, len, budget, &doc);
	cr_assert_geq(r, 0, "%s", what);
	cr_assert_eq(cper_decode_json_text(p, len, budget, &text, &n), r, "%s", what);
	_cleanup_free_ char *want = json_dumps(doc, JSON_COMPACT);
	cr_assert_str_eq(text, want, "%s", what);
	cr_assert_eq(n, strlen(want), "%s", what);
	assert_same_records(p, len, budget, what);
}

static size_t build_sample(const CperSample *s, bool all_valid, size_t *ret_body_len)
{
	uint8_t body[CPER_SAMPLE_MAX];
	size_t n = s->build(body, all_valid);
	CperSectionSpec sec = {.type = s->type, .severity = 2, .body = body, .body_len = n};
	CperRecordSpec r = {
		.severity = 2,
		.validation = 0x2,
		.creator_id = GUID_CREATOR_WHEA,
		.notification_type = GUID_NOTIFY_CMC,
		.n_sections = 1,
		.sections = &sec,
	};

	timestamp_bcd(r.timestamp, 2024, 5, 17, 10, 11, 12, 1);
	*ret_body_len = n;
	return cper_build_record(&r, buf, sizeof(buf));
}

Test(cper_text, every_sample)
{
	for (size_t i = 0; i < cper_n_samples; i++)
		for (int valid = 0; valid <= 1; valid++) {
			size_t body_len, len = build_sample(&cper_samples[i], valid, &body_len);
			assert_same_json(buf, len, CPER_DECODE_BUDGET, cper_samples[i].name);
		}
}

/* Short sections, short buffers and flipped bytes reach every error path of every decoder. */
Test(cper_text, every_sample_cut_and_flipped)
{
	for (size_t i = 0; i < cper_n_samples; i++) {
		const CperSample *s = &cper_samples[i];
		size_t full, len = build_sample(s, true, &full);
		char what[128];

		for (size_t cut = 0; cut < full; cut++) {
			put_le(buf + 128 + 4, cut, 4);
			snprintf(what, sizeof(what), "%s, section cut to %zu bytes", s->name, cut);
			assert_same_json(buf, len - full + cut, CPER_DECODE_BUDGET, what);
		}
		len = build_sample(s, true, &full);
		for (size_t cut = 0; cut < len; cut += 7) {
			snprintf(what, sizeof(what), "%s, buffer cut to %zu bytes", s->name, cut);
			assert_same_json(buf, cut, CPER_DECODE_BUDGET, what);
		}
		for (size_t at = 0; at < len; at++) {
			buf[at] ^= 0xff;
			snprintf(what, sizeof(what), "%s, byte %zu flipped", s->name, at);
			assert_same_json(buf, len, CPER_DECODE_BUDGET, what);
			buf[at] ^= 0xff;
		}
	}
}

Test(cper_text, linux_records_garbage_and_budget)
{
	static const char log[] = "<0>Kernel panic - not syncing: \"quoted\" \\ \t\x1b[31m\xff\n";
	uint8_t z[256], mce[128];
	size_t len = 0;

	ssize_t zlen = zlib_deflate_buffer(log, sizeof(log) - 1, -15, z, sizeof(z));
	cr_assert_gt(zlen, 0);
	cper_sample_mce(mce);
	memset(buf, 'A', 100);
	len += 100;
	len += cper_build_pstore_record(GUID_DMESG, log, sizeof(log) - 1, 1700000000, 1, buf + len,
					sizeof(buf) - len);
	len += cper_build_pstore_record(GUID_DMESG_Z, z, (size_t)zlen, 1700000000, 2, buf + len,
					sizeof(buf) - len);
	len += cper_build_pstore_record(GUID_MCE, mce, sizeof(mce), 0, 3, buf + len,
					sizeof(buf) - len);
	memset(buf + len, 'B', 50);
	len += 50;

	assert_same_json(buf, len, CPER_DECODE_BUDGET, "pstore records between garbage");
	assert_same_json(buf, len, 200, "pstore records, budget spent");
	assert_same_json(buf, 0, CPER_DECODE_BUDGET, "empty input");
}

static int allocations_left;

static void *failing_malloc(size_t n)
{
	return allocations_left-- > 0 ? malloc(n) : NULL;
}

/*
 * jansson's allocations failing at every point of decoding every sample, in both paths: the
 * result is -ENOMEM or a document, never a crash or a use after free (ASan, valgrind).
 */
Test(cper_text, allocation_failures)
{
	for (size_t i = 0; i < cper_n_samples; i++) {
		size_t body_len, len = build_sample(&cper_samples[i], true, &body_len);
		int tree = -ENOMEM, text = -ENOMEM;

		for (int n = 0; tree == -ENOMEM || text == -ENOMEM; n++) {
			json_t *doc = NULL;
			char *s = NULL;
			size_t s_len;

			json_set_alloc_funcs(failing_malloc, free);
			allocations_left = n;
			tree = cper_decode_json(buf, len, &doc);
			allocations_left = n;
			text = cper_decode_json_text(buf, len, CPER_DECODE_BUDGET, &s, &s_len);
			json_set_alloc_funcs(malloc, free);
			cr_assert(tree == 0 || tree == -ENOMEM, "%s: %d", cper_samples[i].name,
				  tree);
			cr_assert(text == 0 || text == -ENOMEM, "%s: %d", cper_samples[i].name,
				  text);
			json_decref(doc);
			free(s);
		}
	}
}

ParameterizedTestParameters(cper_text, real_world)
{
	return test_case_dirs_in("cper", "real-world");
}

ParameterizedTest(struct test_case *c, cper_text, real_world)
{
	_cleanup_free_ char *dir = test_suite_path("cper", "real-world"), *case_dir = NULL,
			    *raw = NULL;
	_cleanup_close_ int dfd = -1;
	size_t len;

	cr_assert(asprintf(&case_dir, "%s/%s", dir, c->name) >= 0);
	dfd = open(case_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0, "%s: %m", case_dir);
	cr_assert_eq(read_full_file_at(dfd, "record.cper", sizeof(buf), &raw, &len), 0, "%s",
		     c->name);
	assert_same_json(raw, len, CPER_DECODE_BUDGET, c->name);
}
