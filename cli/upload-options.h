/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What "pstorectl upload" shares with "pstorectl export --redacted": the
 * options that pick the configuration and target (--config=, --target=,
 * --dmi-dir=), and the redaction rules they give.
 */

#include <getopt.h>

#include "config/config.h"
#include "pstorectl.h"
#include "store/redact.h"

enum {
	ARG_UPLOAD_TARGET = ARG_VERB_BASE + 0x40,
	ARG_UPLOAD_CONFIG,
	ARG_UPLOAD_DMI_DIR,
	ARG_UPLOAD_FORCE,
};

#define UPLOAD_CONFIG_OPTIONS                                                                      \
	{"target", required_argument, NULL, ARG_UPLOAD_TARGET},                                    \
		{"config", required_argument, NULL, ARG_UPLOAD_CONFIG},                            \
	{                                                                                          \
		"dmi-dir", required_argument, NULL, ARG_UPLOAD_DMI_DIR                             \
	}

/* Takes --target=, --config= and --dmi-dir=; -EINVAL for any other option. */
int handle_upload_config_option(int c, const char *arg);

/* Loads --config= (or pstored.conf and its drop-ins); checks --target=. Logs errors. */
int load_upload_config(PstoredConfig **ret);

/*
 * The redaction rules of --target= (default: the first target; the
 * built-in rules when there is none), for "export --redacted".
 */
int upload_redactor_for_export(Redactor **ret);
