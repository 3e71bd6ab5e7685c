// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the CPER and struct mce decoders: every input is
 * decoded to JSON (and serialised), as struct mce, and to text. Built with
 * ./configure --enable-fuzzing CC=clang; the seed corpus comes from
 * tests/cper/cper-gen-corpus, and .ci/run runs it for a bounded time.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	json_t *doc = NULL;

	if (!null)
		null = fopen("/dev/null", "we");

	if (cper_decode_json(data, size, &doc) == 0) {
		free(json_dumps(doc, JSON_COMPACT));
		json_decref(doc);
	}
	if (cper_mce_decode_json(data, size, &doc) == 0) {
		if (null)
			cper_mce_print_text(json_object_get(doc, "mce"), NULL, null);
		json_decref(doc);
	}
	if (null)
		cper_decode_text(data, size, NULL, null);
	return 0;
}
