/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What the verbs share about the store: opening it with an error message that
 * says what to do, resolving (short) crash ids, and reading crash fields.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"
#include "time-util.h"

/* The group whose members may read the store, see pstorectl(1). */
#define PSTORE_GROUP "pstore"

/* Opens the store at store_dir (read-only unless writable); logs why not on failure. */
int open_store(const char *store_dir, bool writable, Store **ret);

/* Resolves an id or unique id prefix; logs the matches when it is ambiguous. */
int resolve_crash_id(Store *s, const char *prefix, char **ret_id);

/*
 * For the verbs on one crash: opens store_dir read-only and resolves
 * prefix in it, as the two above; logs why not on failure.
 */
int open_crash(const char *store_dir, const char *prefix, Store **ret_store, char **ret_id);

/* Logs a failure to read something in the store, with the fix where there is one. */
int log_store_error(int r, const char *what);

/* A crash's time field ("time", "archived_at": µs since the epoch, as in the journal), 0 if none. */
usec_t crash_time_usec(json_t *crash, const char *key);

/* crash[key] as a string, or NULL if it is missing or not a string. */
const char *crash_string(json_t *crash, const char *key);

/* "12.3K", "4.0M", "512B", in 1024s as systemd prints sizes. */
#define FORMAT_BYTES_MAX 16
char *format_bytes(char buf[static FORMAT_BYTES_MAX], uint64_t bytes);

/*
 * The fields of show and decode, one per line as coredumpctl info prints them:
 * "     Function: sysrq_handle_crash", the value escaped; nothing for a NULL or
 * empty value.
 */
void print_field(const char *label, const char *value);
/* The label of a field of several lines, for the first of them; blank for the others. */
void print_label(const char *name, bool first);
/* The fields of a log's analysis (crash.json's "analysis"): kernel version to signature. */
void print_analysis(json_t *analysis);
/* Its call trace, one frame per line: "func+0x2a/0x90 [mod]" (or the function alone, as in
 * crash.json before "frames"). */
void print_call_trace(json_t *analysis);
