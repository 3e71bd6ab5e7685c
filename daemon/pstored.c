// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line of pstored (see pstored(8)), shared by pstored itself
 * (main.c) and by pstored-upload (pstored-upload.c), which "pstored upload"
 * runs with the same command line: one set of options, parsed once into the
 * arg_ variables, and a verb table of each program's own.
 *
 * parse_argv() returns <0 on error, 0 to exit successfully, >0 to go on.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "pstored.h"

const char *arg_pstore_dir = NULL;
const char *arg_store_dir = PSTORED_LOCALSTATEDIR "/lib/pstored";
const char *arg_config = NULL;
bool arg_no_unlink = false;
bool arg_no_journal = false;
const char *arg_target = NULL;
const char *arg_dmi_dir = NULL;
char **pstored_argv;

static void help(const Verb *verbs, size_t n_verbs)
{
	printf("%s [OPTIONS...] [COMMAND]\n\n"
	       "Archive the kernel crash records that pstore kept over a reboot.\n\n"
	       "Commands:\n",
	       program_invocation_short_name);
	for (size_t i = 0; i < n_verbs; i++)
		printf("  %-22s %s\n", verbs[i].name, verbs[i].help);
	printf("\nOptions:\n"
	       "  -h --help              Show this help\n"
	       "     --version           Show package version\n"
	       "     --pstore-dir=DIR    Read records from DIR (default: /sys/fs/pstore)\n"
	       "     --store-dir=DIR     Archive into DIR (default: %s)\n"
	       "     --config=FILE       Read only FILE, no drop-ins (default: %s/pstored.conf)\n"
	       "     --no-unlink         Leave the records in pstore\n"
	       "     --no-journal        Write no journal entries\n"
	       "     --target=NAME       upload: only the collector of [Target.NAME]\n"
	       "     --dmi-dir=DIR       upload: DMI serial numbers to redact (default:\n"
	       "                         /sys/class/dmi/id)\n"
	       "     --log-level=LEVEL   Log up to LEVEL: emerg..debug or 0..7 (default: info)\n"
	       "\nSee the pstored(8) man page for details.\n",
	       PSTORED_LOCALSTATEDIR "/lib/pstored", PSTORED_SYSCONFDIR);
}

static int parse_argv(int argc, char *argv[], const Verb *verbs, size_t n_verbs)
{
	enum {
		ARG_VERSION = 0x100,
		ARG_PSTORE_DIR,
		ARG_STORE_DIR,
		ARG_CONFIG,
		ARG_NO_UNLINK,
		ARG_NO_JOURNAL,
		ARG_TARGET,
		ARG_DMI_DIR,
		ARG_LOG_LEVEL,
	};
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, ARG_VERSION},
		{"pstore-dir", required_argument, NULL, ARG_PSTORE_DIR},
		{"store-dir", required_argument, NULL, ARG_STORE_DIR},
		{"config", required_argument, NULL, ARG_CONFIG},
		{"no-unlink", no_argument, NULL, ARG_NO_UNLINK},
		{"no-journal", no_argument, NULL, ARG_NO_JOURNAL},
		{"target", required_argument, NULL, ARG_TARGET},
		{"dmi-dir", required_argument, NULL, ARG_DMI_DIR},
		{"log-level", required_argument, NULL, ARG_LOG_LEVEL},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help(verbs, n_verbs);
			return 0;
		case ARG_VERSION:
			puts(PACKAGE_STRING);
			return 0;
		case ARG_PSTORE_DIR:
			arg_pstore_dir = optarg;
			break;
		case ARG_STORE_DIR:
			arg_store_dir = optarg;
			break;
		case ARG_CONFIG:
			arg_config = optarg;
			break;
		case ARG_NO_UNLINK:
			arg_no_unlink = true;
			break;
		case ARG_NO_JOURNAL:
			arg_no_journal = true;
			break;
		case ARG_TARGET:
			arg_target = optarg;
			break;
		case ARG_DMI_DIR:
			arg_dmi_dir = optarg;
			break;
		case ARG_LOG_LEVEL:
			if (log_set_max_level_from_option(optarg) < 0)
				return -EINVAL;
			break;
		case '?':
			return -EINVAL;
		default:
			return log_error_errno(EINVAL, "Unhandled option %d.", c);
		}
	}
	return 1;
}

static int dispatch_verb(int argc, char *argv[], const Verb *verbs, size_t n_verbs)
{
	const Verb *verb = NULL;
	int left = argc - optind;

	for (size_t i = 0; i < n_verbs; i++)
		if (left == 0 ? verbs[i].is_default : streq(argv[optind], verbs[i].name))
			verb = &verbs[i];
	if (!verb)
		return log_error_errno(EINVAL, "Unknown command '%s' (see '%s --help').",
				       argv[optind], program_invocation_short_name);
	if (left == 0) {
		char *args[] = {(char *)verb->name, NULL};
		return verb->dispatch(1, args);
	}
	if (left < verb->min_args || left > verb->max_args)
		return log_error_errno(EINVAL,
				       "Wrong number of arguments for '%s' (see '%s --help').",
				       verb->name, program_invocation_short_name);
	return verb->dispatch(left, argv + optind);
}

int pstored_main(int argc, char *argv[], const Verb *verbs, size_t n_verbs)
{
	int r;

	pstored_argv = argv;
	log_parse_environment();
	r = parse_argv(argc, argv, verbs, n_verbs);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	r = dispatch_verb(argc, argv, verbs, n_verbs);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
