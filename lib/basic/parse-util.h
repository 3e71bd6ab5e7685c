/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Parsers for configuration values and command line options, with systemd's
 * syntax (time spans are in time-util.h). Each returns 0, or -EINVAL for a
 * malformed value, -ERANGE for one that does not fit and -EDOM for one that
 * is not 0 but rounds down to 0 ("0.0001K", a tenth of a byte), and leaves
 * *ret untouched on failure.
 */

#include <stdbool.h>
#include <stdint.h>

/* yes/no, y/n, true/false, t/f, on/off, 1/0; case-insensitive */
int parse_boolean(const char *s, bool *ret);

/* A plain decimal number: no sign, no spaces, no suffix. */
int parse_uint64(const char *s, uint64_t *ret);

/*
 * Bytes: "4096", "256M", "1.5G"; the suffixes B, K, M, G, T, P and E are
 * powers of 1024. "infinity" is not accepted here; callers that allow it check
 * for it first.
 */
int parse_size(const char *s, uint64_t *ret);

/* A kernel module's name, as a call trace prints it ("[i915]"): letters, digits, '_' and '-',
 * 55 at most (MODULE_NAME_LEN). Text from a log must be one before it names a path. */
bool kernel_module_name_is_valid(const char *name);
