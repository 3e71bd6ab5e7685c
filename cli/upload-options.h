/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The options of "pstorectl upload" (--target=, --config=, --dmi-dir=,
 * --force), shared by pstorectl, which parses them, and the upload helper
 * it runs (pstorectl-upload.c), which gets them back on its command line; the
 * first three also pick the redaction rules of "pstorectl export --redacted".
 */

#include <getopt.h>
#include <stdbool.h>

#include "config/config.h"
#include "pstorectl.h"

enum {
	ARG_UPLOAD_TARGET = ARG_VERB_BASE + 0x40,
	ARG_UPLOAD_CONFIG,
	ARG_UPLOAD_DMI_DIR,
	ARG_UPLOAD_FORCE,
};

/* clang-format off */
#define UPLOAD_CONFIG_OPTIONS                                                                      \
	{"target", required_argument, ARG_UPLOAD_TARGET, "NAME",                                   \
	 "Only the collector of [Target.NAME]"},                                                   \
	{"config", required_argument, ARG_UPLOAD_CONFIG, "FILE",                                   \
	 "Read the configuration from FILE only"},                                                 \
	{"dmi-dir", required_argument, ARG_UPLOAD_DMI_DIR, "DIR",                                  \
	 "DMI serial numbers to redact (default: /sys/class/dmi/id)"}
#define UPLOAD_FORCE_OPTION                                                                        \
	{"force", no_argument, ARG_UPLOAD_FORCE, NULL,                                             \
	 "Also resend sent and failed crashes, ignore the limits"}
/* clang-format on */

extern const char *arg_upload_config;
extern const char *arg_upload_target;
extern const char *arg_upload_dmi_dir;
extern bool arg_upload_force;

/* Takes --target=, --config= and --dmi-dir=; -EINVAL for any other option. */
int handle_upload_config_option(int c, const char *arg);
/* Also takes --force. */
int handle_upload_option(int c, const char *arg);

/* Loads --config= (or pstored.conf and its drop-ins); checks --target=. Logs errors. */
int load_upload_config(PstoredConfig **ret);
