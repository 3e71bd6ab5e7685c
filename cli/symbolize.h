/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The source lines of a call trace for pstorectl show and decode: pstorectl-symbolize, run as
 * a helper, looks them up, so that pstorectl itself never loads libdw or libdebuginfod (see
 * lib/symbolize/symbolize.h and pstorectl(1), SYMBOLIZATION).
 */

#include <jansson.h>

#include "pstorectl.h"
#include "verbs.h"

enum {
	ARG_NO_SYMBOLIZE = ARG_VERB_BASE + 0x50,
	ARG_DEBUG_DIR,
};

/* clang-format off */
#define SYMBOLIZE_OPTIONS                                                                          \
	{"no-symbolize", no_argument, ARG_NO_SYMBOLIZE, NULL,                                      \
	 "Do not look up the call trace's source lines"},                                         \
	{"debug-dir", required_argument, ARG_DEBUG_DIR, "DIR",                                     \
	 "Look for debug files of the kernel and modules in DIR"}
/* clang-format on */

/* Takes --no-symbolize and --debug-dir=: 0, or -ENOENT for another option. */
int symbolize_parse_option(int c, const char *arg);

/*
 * Adds to each frame of analysis["frames"] its source, as pstorectl-symbolize finds it: "file",
 * "line" and "inlined", or "unresolved" with the reason. build_ids: crash.json's, or NULL.
 * Unless --no-symbolize; a helper that fails leaves the frames as they were, with a warning.
 * Returns 0, or -ENOMEM.
 */
int symbolize_analysis(json_t *analysis, json_t *build_ids);
