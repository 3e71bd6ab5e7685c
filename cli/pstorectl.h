/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * pstorectl: the verb table lives in pstorectl.c; each verb is one
 * function in its own file, declared here. Global options are parsed once
 * into the arg_ variables below, and again after the verb (so that
 * "pstorectl list --json" works like "pstorectl --json list").
 */

#include <jansson.h>
#include <stdbool.h>

#include "verbs.h"

typedef enum JsonFormat {
	JSON_OFF,
	JSON_PRETTY,
	JSON_SHORT,
} JsonFormat;

extern const char *arg_store_dir;
extern JsonFormat arg_json;
extern bool arg_legend;
extern bool arg_pager;

/*
 * A verb's own options (see VerbOptions) have option ids from ARG_VERB_BASE
 * up. The verb is called with only its positional arguments.
 */
#define ARG_VERB_BASE 0x200

extern const VerbOptions list_options;
extern const VerbOptions show_options;
extern const VerbOptions decode_options;
extern const VerbOptions dmesg_options;
extern const VerbOptions export_options;
extern const VerbOptions status_options;
extern const VerbOptions upload_options;
extern const VerbOptions vacuum_options;

/* Prints a JSON value in the format chosen with --json. */
int print_json(json_t *v);

/*
 * A verb returns <0 on error (exit status 1, after logging), 0 on success, or a positive exit
 * status of its own, documented in pstorectl(1).
 */
#define EXIT_UNDECODED 2 /* decode: a record could not be decoded whole */

int verb_list(int argc, char *argv[]);
int verb_show(int argc, char *argv[]);
int verb_dmesg(int argc, char *argv[]);
int verb_export(int argc, char *argv[]);
int verb_status(int argc, char *argv[]);
int verb_delete(int argc, char *argv[]);
int verb_upload(int argc, char *argv[]);
int verb_vacuum(int argc, char *argv[]);
int verb_decode(int argc, char *argv[]);
