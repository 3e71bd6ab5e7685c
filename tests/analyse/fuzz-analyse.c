// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the dmesg analysis: every input is a kernel log,
 * analysed and turned into JSON. Built with ./configure --enable-fuzzing
 * CC=clang; seeds: tests/analyse/cases/\*\/dmesg.txt.
 */

#include <stdint.h>
#include <stdlib.h>

#include "analyse/analyse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	DmesgAnalysis *a = NULL;
	json_t *j = NULL;

	if (dmesg_analyse((const char *)data, size, &a) < 0)
		return 0;
	/* The output is always valid for JSON: any failure here is a bug. */
	if (!a->reason || !a->call_trace || dmesg_analysis_to_json(a, &j) < 0)
		abort();
	free(json_dumps(j, JSON_COMPACT));
	json_decref(j);
	dmesg_analysis_free(a);
	return 0;
}
