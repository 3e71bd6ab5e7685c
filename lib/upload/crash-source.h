/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the journal entry (journal-export.h) of a crash is made of:
 * crash.json and the log, both already redacted when the target redacts,
 * and this host's facts for what crash.json does not say.
 */

#include <jansson.h>
#include <stddef.h>

typedef struct UploadCrashSource {
	json_t *crash;
	const char *dmesg; /* NULL: no log */
	size_t dmesg_len;
	const char *hostname;
	const char *machine_id; /* used when crash.json has none */
} UploadCrashSource;
