/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * One sample body for every section type the decoder knows, built from the
 * layouts of UEFI appendix N, with every validation bit set or every one
 * clear. The JSON bodies the decoder must produce for them are in
 * tests/cper/expected/<name>.{valid,invalid}.json, written from the same
 * values (key names: pstore-cper(7)).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct CperSample {
	const char *name;      /* also names the expected JSON files */
	const char *type;      /* section type GUID */
	const char *type_name; /* the decoder's name for it */
	/* Writes the body to out (CPER_SAMPLE_MAX bytes); returns its length. */
	size_t (*build)(uint8_t *out, bool all_valid);
} CperSample;

extern const CperSample cper_samples[];
extern const size_t cper_n_samples;

#define CPER_SAMPLE_MAX 1024

/* A struct mce of 128 bytes: VAL UC EN MISCV ADDRV PCC, memory read error. */
void cper_sample_mce(uint8_t m[128]);

/*
 * A CXL General Media component event section as libcper generates it
 * (examples/cxlcomponent-media.json): 51 bytes, a device id and 19 bytes of
 * event log, less than the 48-byte event record header. Returns 51.
 */
#define CPER_SAMPLE_CXL_SHORT_LOG_LEN 51
size_t cper_sample_cxl_short_event_log(uint8_t o[CPER_SAMPLE_CXL_SHORT_LOG_LEN]);
