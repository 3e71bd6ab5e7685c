// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the CPER and struct mce decoders: every input is
 * decoded to a JSON tree (and serialised), to JSON text straight from the
 * decoder, which must be byte for byte the serialised tree (anything else
 * aborts), as struct mce, and to text. Built with ./configure
 * --enable-fuzzing CC=clang; the seed corpus comes from
 * tests/cper/cper-gen-corpus, and .ci/run runs it for a bounded time.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The two outputs of the decoder must agree; a small budget reaches its limits too. */
static void check_text_matches_tree(const uint8_t *data, size_t size, size_t budget)
{
	json_t *doc = NULL;
	char *tree = NULL, *text = NULL;
	size_t len = 0;
	int r = cper_decode_json_budget(data, size, budget, &doc);
	int t = cper_decode_json_text(data, size, budget, &text, &len);

	if (r >= 0)
		tree = json_dumps(doc, JSON_COMPACT);
	/* Out of memory on either side proves nothing. */
	if (r != -ENOMEM && t != -ENOMEM && (r >= 0 || t >= 0) && tree) {
		if (t != r || len != strlen(tree) || memcmp(text, tree, len) != 0)
			abort();
	}
	free(text);
	free(tree);
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	json_t *doc = NULL;

	if (!null)
		null = fopen("/dev/null", "we");

	check_text_matches_tree(data, size, CPER_DECODE_BUDGET);
	check_text_matches_tree(data, size, size / 2);
	if (cper_mce_decode_json(data, size, &doc) == 0) {
		if (null)
			cper_mce_print_text(json_object_get(doc, "mce"), NULL, null);
		json_decref(doc);
	}
	if (null)
		cper_decode_text(data, size, NULL, null);
	return 0;
}
