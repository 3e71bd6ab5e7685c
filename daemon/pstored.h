/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * pstored: the verb table lives in pstored.c; each verb is one function in
 * its own file, declared here. Options are parsed once into the arg_
 * variables below.
 */

#include <stdbool.h>

extern const char *arg_pstore_dir; /* NULL: /sys/fs/pstore, mounted if needed */
extern const char *arg_store_dir;
extern const char *arg_config; /* NULL: /etc/pstored.conf and drop-ins */
extern bool arg_no_unlink;
extern bool arg_no_journal;
extern const char *arg_target;	/* upload: only [Target.NAME]; NULL: all */
extern const char *arg_dmi_dir; /* upload: DMI serials to redact; NULL: /sys/class/dmi/id */

int verb_archive(int argc, char *argv[]);
int verb_upload(int argc, char *argv[]);
