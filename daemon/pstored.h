/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * pstored: the command line lives in pstored.c, the verb table in main.c;
 * each verb is one function in its own file, declared here. Options are
 * parsed once into the arg_ variables below. pstored-upload
 * (pstored-upload.c) takes the same command line, with a verb table of its
 * own.
 */

#include <stdbool.h>
#include <stddef.h>

#include "verbs.h"

extern const char *arg_pstore_dir; /* NULL: /sys/fs/pstore, mounted if needed */
extern const char *arg_store_dir;
extern const char *arg_config; /* NULL: /etc/pstored.conf and drop-ins */
extern bool arg_no_unlink;
extern bool arg_no_journal;
extern const char *arg_target;	/* upload: only [Target.NAME]; NULL: all */
extern const char *arg_sysfs_dir; /* archive: the running kernel's build ids; default /sys */
extern const char *arg_dmi_dir; /* upload: DMI serials to redact; NULL: /sys/class/dmi/id */
extern char **pstored_argv;	/* the whole command line, as main() got it */

/* Parses the options, runs the verb; returns the exit status. */
int pstored_main(int argc, char *argv[], const Verb *verbs, size_t n_verbs);

/*
 * A verb returns a negative errno on failure (exit status 1), 0 on success, or
 * one of these exit statuses, each in pstored(8), EXIT STATUS.
 */
#define PSTORED_EXIT_ARCHIVE_BUSY 75 /* EX_TEMPFAIL: another archive run holds the store */

int verb_archive(int argc, char *argv[]);
int verb_upload(int argc, char *argv[]);
int verb_verify_config(int argc, char *argv[]);
