// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl: list, show and decode the crashes pstored archived.
 *
 * One verb table; each verb is its own function (see pstorectl.h).
 * parse_argv() returns <0 on error, 0 to exit successfully, >0 to go on.
 */

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "pager.h"
#include "pstorectl.h"
#include "source.h"

const char *arg_store_dir = PSTORED_LOCALSTATEDIR "/lib/pstored";
JsonFormat arg_json = JSON_OFF;
bool arg_legend = true;
bool arg_pager = true;

static int verb_help(int argc, char *argv[]);

/* For verbs that take only the global options after them. */
static const struct option no_options[] = {{}};
static const VerbOptions global_options_only = {no_options, NULL, NULL};

static const Verb verbs[] = {
	{"list", 1, 1, VERB_DEFAULT, verb_list, "List the archived crashes (the default)",
	 &list_options},
	{"show", 1, 2, 0, verb_show, "Show everything about a crash (default: the newest)",
	 &show_options},
	{"dmesg", 1, 2, 0, verb_dmesg, "Print the kernel log of a crash (default: the newest)",
	 &dmesg_options},
	{"export", 1, 2, 0, verb_export, "Print a crash as one JSON document (default: the newest)",
	 &export_options},
	{"status", 1, 1, 0, verb_status, "Show pstore and store status", &status_options},
	{"delete", 2, VERB_ANY, 0, verb_delete, "Delete crashes from the store",
	 &global_options_only},
	{"upload", 1, VERB_ANY, 0, verb_upload, "Send crashes to the collectors now",
	 &upload_options},
	{"vacuum", 1, 1, 0, verb_vacuum, "Apply the retention limits now", &vacuum_options},
	{"decode", 2, VERB_ANY, 0, verb_decode, "Decode CPER, MCE and dmesg records, analyse logs",
	 &decode_options},
	{"help", 1, 1, 0, verb_help, "Show this help", &global_options_only},
};

enum {
	ARG_STORE_DIR = _ARG_COMMON_MAX,
	ARG_JSON,
	ARG_NO_LEGEND,
	ARG_NO_PAGER,
};

static const struct option global_options[] = {
	COMMON_OPTIONS,
	{"store-dir", required_argument, NULL, ARG_STORE_DIR},
	{"json", optional_argument, NULL, ARG_JSON},
	{"no-legend", no_argument, NULL, ARG_NO_LEGEND},
	{"no-pager", no_argument, NULL, ARG_NO_PAGER},
	SOURCE_OPTIONS,
	{}};

int print_json(json_t *v)
{
	size_t flags = arg_json == JSON_SHORT ? JSON_COMPACT : JSON_INDENT(2);

	if (json_dumpf(v, stdout, flags | JSON_ENSURE_ASCII | JSON_SORT_KEYS) < 0 ||
	    fputc('\n', stdout) == EOF)
		return log_error_errno(EIO, "Failed to write JSON output: %m");
	return 0;
}

static int verb_help(int argc, char *argv[])
{
	printf("%s [OPTIONS...] COMMAND ...\n\n"
	       "List, show and decode the kernel crashes that pstored archived.\n\n"
	       "Commands:\n",
	       program_invocation_short_name);
	verbs_print_help(verbs, ARRAY_SIZE(verbs), stdout);
	printf("\nOptions:\n"
	       "  -h --help              Show this help\n"
	       "     --version           Show package version\n"
	       "     --store-dir=DIR     Read the crash store in DIR (default: %s)\n"
	       "     --json=pretty|short Print JSON (default for --json: pretty)\n"
	       "     --no-legend         Do not print the column headers\n"
	       "     --no-pager          Do not pipe output into a pager\n"
	       "     --log-level=LEVEL   Log up to LEVEL: emerg..debug or 0..7 (default: info)\n"
	       "\nSources of list, show, dmesg and export (default: the store):\n"
	       "  -D --directory=DIR     The crashes in the journal files in DIR\n"
	       "     --file=GLOB         The crashes in the journal files matching GLOB\n"
	       "     --journal           The crashes in this machine's journal\n"
	       "     --documents=DIR     The crash documents in DIR (http-json target)\n"
	       "\nMatches of list, show, dmesg and export (without an ID: the newest match):\n"
	       "  -S --since=TIME        Only crashes at or after TIME (\"yesterday\", \"-2h\", "
	       "...)\n"
	       "  -U --until=TIME        Only crashes at or before TIME\n"
	       "     --reason=REASON     Only crashes with this reason (panic, oops, ...)\n"
	       "     --kind=KIND         Only crashes of this kind\n"
	       "     --signature=SIG     Only crashes with this signature\n"
	       "     --host=HOST         Only crashes of this host name\n"
	       "     --machine=ID        Only crashes of this machine id\n"
	       "     --function=GLOB     Only crashes in a function matching GLOB\n"
	       "     --module=GLOB       Only crashes in a module matching GLOB\n"
	       "     --comm=GLOB         Only crashes of a process matching GLOB\n"
	       "     --kernel=GLOB       Only crashes of a kernel version matching GLOB\n"
	       "\nOptions of list:\n"
	       "  -n --lines=N           Only the N newest crashes\n"
	       "  -1                     Only the newest crash\n"
	       "  -r --reverse           Newest first\n"
	       "     --group             One line per signature: crashes, machines, first and "
	       "last\n"
	       "                         time, kernels\n"
	       "\nOptions of dmesg:\n"
	       "     --raw               The log as stored, control characters included (not to "
	       "a terminal)\n"
	       "\nOptions of export:\n"
	       "  -o --output=FILE       Write the document to FILE instead of stdout\n"
	       "\nOptions of vacuum:\n"
	       "     --config=FILE       Read the retention limits from FILE only\n"
	       "     --redacted          Redact it as an upload target would (see upload)\n"
	       "\nOptions of upload [ID...]:\n"
	       "     --target=NAME       Only the collector of [Target.NAME]\n"
	       "     --force             Also resend sent and failed crashes, ignore the limits\n"
	       "     --config=FILE       Read only FILE (default: %s/pstored.conf)\n"
	       "     --dmi-dir=DIR       DMI serial numbers to redact (default: "
	       "/sys/class/dmi/id)\n"
	       "\nOptions of status:\n"
	       "     --pstore-dir=DIR    The pstore file system (default: /sys/fs/pstore)\n"
	       "     --sysfs-dir=DIR     Read kernel parameters below DIR (default: /sys)\n"
	       "\nSee the pstorectl(1) man page for details.\n",
	       PSTORED_LOCALSTATEDIR "/lib/pstored", PSTORED_SYSCONFDIR);
	return 0;
}

/* Returns 1 if the option was a global one and taken, 0 to exit, <0 on error. */
static int parse_global_option(int c, const char *arg)
{
	int r;

	switch (c) {
	case 'h':
		(void)verb_help(0, NULL);
		return 0;
	case ARG_STORE_DIR:
		arg_store_dir = arg;
		return 1;
	case ARG_JSON:
		if (!arg || streq(arg, "pretty"))
			arg_json = JSON_PRETTY;
		else if (streq(arg, "short"))
			arg_json = JSON_SHORT;
		else
			return log_error_errno(EINVAL,
					       "Unknown JSON format '%s': use --json=pretty or "
					       "--json=short.",
					       arg);
		return 1;
	case ARG_NO_LEGEND:
		arg_legend = false;
		return 1;
	case ARG_NO_PAGER:
		arg_pager = false;
		return 1;
	case '?':
		return -EINVAL;
	default:
		r = parse_common_option(c, arg);
		return r == -ENOENT ? source_parse_option(c, arg) : r;
	}
}

/* The number of entries of an option table, up to its all-zero end. */
static size_t options_count(const struct option *options)
{
	size_t n = 0;

	while (options[n].name)
		n++;
	return n;
}

/*
 * The verb's options and the global ones in one table, and their short
 * options; with v NULL, the options of every verb.
 */
static int options_merge(const Verb *v, struct option **ret, char **ret_shortopts)
{
	size_t n_global = ARRAY_SIZE(global_options) - 1, n = n_global;
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ char *shortopts = strdup("h" SOURCE_SHORTOPTS);

	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (!v || v == &verbs[i])
			n += options_count(verbs[i].options->options);
	options = calloc(n + 1, sizeof(struct option));
	if (!options || !shortopts)
		return log_oom();
	memcpy(options, global_options, n_global * sizeof(struct option));
	n = n_global;
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		const VerbOptions *vo = verbs[i].options;
		size_t k = options_count(vo->options);
		char *s;

		if (v && v != &verbs[i])
			continue;
		memcpy(options + n, vo->options, k * sizeof(struct option));
		n += k;
		if (asprintf(&s, "%s%s", shortopts, vo->shortopts ?: "") < 0)
			return log_oom();
		free(shortopts);
		shortopts = s;
	}
	*ret = TAKE_PTR(options);
	*ret_shortopts = TAKE_PTR(shortopts);
	return 0;
}

/*
 * The verb: the first argument that is neither an option nor an option's
 * value. Options before it may be any verb's ("pstorectl -n 2 list", as
 * coredumpctl takes them), so they are told apart with every verb's at once;
 * what is wrong with them is left to parse_argv() to say. *ret gets the verb,
 * NULL for the default one.
 */
static int find_verb(int argc, char *argv[], const char **ret)
{
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ char *shortopts = NULL, *stop_at_verb = NULL;
	int r;

	r = options_merge(NULL, &options, &shortopts);
	if (r < 0)
		return r;
	/* "+": stop at the verb; ":": no messages, nor for an option of no verb. */
	if (asprintf(&stop_at_verb, "+:%s", shortopts) < 0)
		return log_oom();
	/*
	 * Only whether an option takes a value matters here: with one id for all, two
	 * verbs' options of the same name (--config=) are not ambiguous when abbreviated.
	 */
	for (struct option *o = options; o->name; o++) {
		o->flag = NULL;
		o->val = 0;
	}
	opterr = 0;
	optind = 0;
	while (getopt_long(argc, argv, stop_at_verb, options, NULL) >= 0)
		;
	opterr = 1;
	*ret = optind < argc ? argv[optind] : NULL;
	return 0;
}

/*
 * Parses the options of the whole command line, the global ones and the
 * verb's own, before the verb and after it, and leaves the verb and its
 * arguments at argv[optind...]. Returns 0 to exit successfully, >0 to go on,
 * or <0 on error.
 */
static int parse_argv(const Verb *v, int argc, char *argv[])
{
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ char *shortopts = NULL;
	int c, r;

	r = options_merge(v, &options, &shortopts);
	if (r < 0)
		return r;
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, options, NULL)) >= 0) {
		r = parse_global_option(c, optarg);
		if (r == -ENOENT) {
			/* Not a global option, so one of the verb's own. */
			r = v->options->handle(c, optarg);
			if (r < 0)
				return r;
			continue;
		}
		if (r <= 0)
			return r;
	}
	return 1;
}

static int run(int argc, char *argv[])
{
	const char *name = NULL;
	const Verb *v;
	int r;

	/* getopt_long() names the program in its messages as argv[0] has it. */
	argv[0] = program_invocation_short_name;
	r = find_verb(argc, argv, &name);
	if (r < 0)
		return r;
	/* Without a name, v is the default verb, "list". */
	v = verb_find(verbs, ARRAY_SIZE(verbs), name);
	if (!v)
		return log_error_errno(EINVAL, "Unknown command '%s': see '%s --help'.", name,
				       program_invocation_short_name);

	r = parse_argv(v, argc, argv);
	if (r <= 0)
		return r;
	argc -= optind;
	argv += optind;

	r = verb_check_args(v, argc);
	if (r == -EINVAL)
		return log_error_errno(EINVAL, "Too few arguments for '%s': see '%s --help'.",
				       v->name, program_invocation_short_name);
	if (r < 0)
		return log_error_errno(EINVAL, "Too many arguments for '%s': see '%s --help'.",
				       v->name, program_invocation_short_name);
	r = source_check_verb(v->name);
	if (r < 0)
		return r;

	return dispatch_verb(v, argc, argv);
}

int main(int argc, char *argv[])
{
	int r;

	/* Table widths and ellipses follow the terminal's character set. */
	(void)setlocale(LC_CTYPE, "");

	log_parse_environment();
	r = run(argc, argv);
	pager_close();
	return r < 0 ? EXIT_FAILURE : r;
}
