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
const char *arg_sysfs_dir = "/sys";
const char *arg_dmi_dir = NULL;
char **pstored_argv;

enum {
	ARG_PSTORE_DIR = _ARG_COMMON_MAX,
	ARG_STORE_DIR,
	ARG_CONFIG,
	ARG_NO_UNLINK,
	ARG_NO_JOURNAL,
	ARG_TARGET,
	ARG_SYSFS_DIR,
	ARG_DMI_DIR,
};

static const OptionSpec options[] = {
	COMMON_OPTIONS,
	{"pstore-dir", required_argument, ARG_PSTORE_DIR, "DIR",
	 "Read records from DIR (default: /sys/fs/pstore)"},
	{"store-dir", required_argument, ARG_STORE_DIR, "DIR",
	 "Archive into DIR (default: " PSTORED_LOCALSTATEDIR "/lib/pstored)"},
	{"config", required_argument, ARG_CONFIG, "FILE",
	 "Read only FILE, no drop-ins (default: " PSTORED_SYSCONFDIR "/pstored.conf)"},
	{"no-unlink", no_argument, ARG_NO_UNLINK, NULL, "Leave the records in pstore"},
	{"no-journal", no_argument, ARG_NO_JOURNAL, NULL, "Write no journal entries"},
	{"target", required_argument, ARG_TARGET, "NAME",
	 "upload: only the collector of [Target.NAME]"},
	{"sysfs-dir", required_argument, ARG_SYSFS_DIR, "DIR",
	 "Read the running kernel's build ids under DIR\n(default: /sys)"},
	{"dmi-dir", required_argument, ARG_DMI_DIR, "DIR",
	 "upload: DMI serial numbers to redact (default:\n/sys/class/dmi/id)"},
	{},
};

static void help(const Verb *verbs, size_t n_verbs)
{
	printf("%s [OPTIONS...] [COMMAND]\n\n"
	       "Archive the kernel crash records that pstore kept over a reboot.\n\n"
	       "Commands:\n",
	       program_invocation_short_name);
	verbs_print_help(verbs, n_verbs, stdout);
	printf("\nOptions:\n");
	options_print_help(options, stdout);
	printf("\nSee the pstored(8) man page for details.\n");
}

/* Takes one option into its arg_ variable; returns 1 to go on, 0 to exit, <0 on error. */
static int parse_option(int c, const char *arg, const Verb *verbs, size_t n_verbs)
{
	int r;

	switch (c) {
	case 'h':
		help(verbs, n_verbs);
		return 0;
	case ARG_PSTORE_DIR:
		arg_pstore_dir = arg;
		return 1;
	case ARG_STORE_DIR:
		arg_store_dir = arg;
		return 1;
	case ARG_CONFIG:
		arg_config = arg;
		return 1;
	case ARG_NO_UNLINK:
		arg_no_unlink = true;
		return 1;
	case ARG_NO_JOURNAL:
		arg_no_journal = true;
		return 1;
	case ARG_TARGET:
		arg_target = arg;
		return 1;
	case ARG_SYSFS_DIR:
		arg_sysfs_dir = arg;
		return 1;
	case ARG_DMI_DIR:
		arg_dmi_dir = arg;
		return 1;
	default:
		r = parse_common_option(c, arg);
		if (r == -ENOENT)
			return log_error_errno(EINVAL, "Unhandled option %d.", c);
		return r;
	}
}

static int parse_argv(int argc, char *argv[], const Verb *verbs, size_t n_verbs)
{
	const OptionSpec *const tables[] = {options, NULL};
	_cleanup_free_ struct option *longopts = NULL;
	_cleanup_free_ char *shortopts = NULL;
	int c, r;

	if (options_to_getopt(tables, "", &longopts, &shortopts) < 0)
		return log_oom();
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0) {
		if (c == '?')
			return log_option_error(tables, argv, NULL);
		r = parse_option(c, optarg, verbs, n_verbs);
		if (r <= 0)
			return r;
	}
	return 1;
}

static int run_verb(int argc, char *argv[], const Verb *verbs, size_t n_verbs)
{
	const char *name = argc > 0 ? argv[0] : NULL;
	const Verb *v = verb_find(verbs, n_verbs, name);

	if (!v)
		return log_error_errno(EINVAL, "Unknown command '%s' (see '%s --help').", name,
				       program_invocation_short_name);
	if (verb_check_args(v, argc) < 0)
		return log_error_errno(EINVAL,
				       "Wrong number of arguments for '%s' (see '%s --help').",
				       v->name, program_invocation_short_name);
	return dispatch_verb(v, argc, argv);
}

int pstored_main(int argc, char *argv[], const Verb *verbs, size_t n_verbs)
{
	int r;

	pstored_argv = argv;
	log_parse_environment();
	r = parse_argv(argc, argv, verbs, n_verbs);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	r = run_verb(argc - optind, argv + optind, verbs, n_verbs);
	return r < 0 ? EXIT_FAILURE : r;
}
