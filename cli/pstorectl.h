/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * pstorectl: the verb table lives in pstorectl.c; each verb is one
 * function in its own file, declared here. Global options are parsed once
 * into the arg_ variables below.
 */

#include <stdbool.h>
#include <jansson.h>

typedef enum JsonFormat {
	JSON_OFF,
	JSON_PRETTY,
	JSON_SHORT,
} JsonFormat;

extern const char *arg_store_dir;
extern JsonFormat arg_json;
extern bool arg_legend;
extern bool arg_pager;

/* Prints a JSON value in the format chosen with --json. */
int print_json(json_t *v);
/* Sets arg_json from the argument of --json (NULL: pretty). */
int parse_json_arg(const char *s);

int verb_decode(int argc, char *argv[]);
