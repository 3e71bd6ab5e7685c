/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The signature of a crash (see DmesgAnalysis.signature), a compatibility contract: stores and
 * collectors group crashes by it, so a change here regroups every stored crash.
 */

#include <stdbool.h>
#include <stddef.h>

#include "analyse.h"

/* Whether the function is the reporting machinery that every report of a kind shares
 * (dump_stack, panic, __warn, ...), not the bug; name without its compiler suffix. */
bool is_generic_frame(const char *name, size_t len);

/* The length of the name a function has in every build: without ".isra.0", ".cold", ... */
size_t function_base_len(const char *name, size_t len);

/*
 * Sets a->signature from a->reason, a->function, a->call_trace and a->message, or leaves it NULL
 * when the analysis found no report at all. Returns 0 or -ENOMEM.
 */
int dmesg_analysis_sign(DmesgAnalysis *a);
