// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for <store>/kdump-taken (lib/store/kdump-taken.c): any
 * bytes parse, without failing, into entries; formatting those and parsing
 * the text again gives the same entries and no bad line. Built with
 * ./configure --enable-fuzzing CC=clang; seeds: tests/lib/fuzz-seeds.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "store/kdump-taken.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = NULL;
	KdumpTaken t = {}, again = {};
	size_t len;

	if (kdump_taken_parse((const char *)data, size, &t) < 0)
		return 0;
	if (kdump_taken_format(&t, &text, &len) < 0)
		abort();
	if (kdump_taken_parse(text, len, &again) < 0)
		abort();
	if (again.n != t.n || again.n_bad != 0 ||
	    (t.n > 0 && memcmp(again.entries, t.entries, t.n * sizeof(*t.entries)) != 0))
		abort();
	kdump_taken_done(&t);
	kdump_taken_done(&again);
	return 0;
}
