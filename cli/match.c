// SPDX-License-Identifier: GPL-2.0-or-later
/* The crashes that list, show, dmesg and export work on (match.h). */

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <jansson.h>
#include <strings.h>

#include "log.h"
#include "match.h"
#include "pstorectl.h"
#include "time-util.h"

static usec_t arg_since, arg_until = USEC_INFINITY;
/* Compared whole, case does not matter. */
static const char *arg_reason, *arg_kind, *arg_signature, *arg_host, *arg_machine;
/* Shell globs (fnmatch(3)) on the analysis of the kernel log, as journalctl's matches are exact. */
static const char *arg_function, *arg_module, *arg_kernel, *arg_comm;

static int parse_time_option(const char *name, const char *arg, usec_t *ret)
{
	int r = parse_timestamp(arg, now_usec(), ret);

	if (r < 0)
		return log_error_errno(r,
				       "Invalid %s time '%s': %m (use e.g. \"2026-12-01 10:00\", "
				       "\"yesterday\", \"-2h\" or \"1 hour ago\", see "
				       "systemd.time(7)).",
				       name, arg);
	return 0;
}

const OptionSpec match_options[] = {
	{"since", required_argument, 'S', "TIME",
	 "Only crashes at or after TIME (\"yesterday\", \"-2h\", ...)"},
	{"until", required_argument, 'U', "TIME", "Only crashes at or before TIME"},
	{"reason", required_argument, ARG_MATCH_REASON, "REASON",
	 "Only crashes with this reason (panic, oops, ...)"},
	{"kind", required_argument, ARG_MATCH_KIND, "KIND", "Only crashes of this kind"},
	{"signature", required_argument, ARG_MATCH_SIGNATURE, "SIG",
	 "Only crashes with this signature"},
	{"host", required_argument, ARG_MATCH_HOST, "HOST", "Only crashes of this host name"},
	{"machine", required_argument, ARG_MATCH_MACHINE, "ID", "Only crashes of this machine id"},
	{"function", required_argument, ARG_MATCH_FUNCTION, "GLOB",
	 "Only crashes in a function matching GLOB"},
	{"module", required_argument, ARG_MATCH_MODULE, "GLOB",
	 "Only crashes in a module matching GLOB"},
	{"comm", required_argument, ARG_MATCH_COMM, "GLOB",
	 "Only crashes of a process matching GLOB"},
	{"kernel", required_argument, ARG_MATCH_KERNEL, "GLOB",
	 "Only crashes of a kernel version matching GLOB"},
	{}};

int match_parse_option(int c, const char *arg)
{
	int r;

	switch (c) {
	case 'S':
		r = parse_time_option("--since", arg, &arg_since);
		break;
	case 'U':
		r = parse_time_option("--until", arg, &arg_until);
		break;
	case ARG_MATCH_REASON:
		arg_reason = arg;
		return 0;
	case ARG_MATCH_KIND:
		arg_kind = arg;
		return 0;
	case ARG_MATCH_SIGNATURE:
		arg_signature = arg;
		return 0;
	case ARG_MATCH_HOST:
		arg_host = arg;
		return 0;
	case ARG_MATCH_MACHINE:
		arg_machine = arg;
		return 0;
	case ARG_MATCH_FUNCTION:
		arg_function = arg;
		return 0;
	case ARG_MATCH_MODULE:
		arg_module = arg;
		return 0;
	case ARG_MATCH_KERNEL:
		arg_kernel = arg;
		return 0;
	case ARG_MATCH_COMM:
		arg_comm = arg;
		return 0;
	default:
		return -ENOENT;
	}
	if (r < 0)
		return r;
	if (arg_since > arg_until)
		return log_error_errno(EINVAL, "--since= is after --until=: nothing can match.");
	return 0;
}

bool match_needs_summary(void)
{
	return arg_function || arg_module || arg_comm;
}

bool match_needs_comm(void)
{
	return arg_comm;
}

bool match_given(void)
{
	return arg_since > 0 || arg_until != USEC_INFINITY || arg_reason || arg_kind ||
	       arg_signature || arg_host || arg_machine || arg_kernel || match_needs_summary();
}

int match_check_source(void)
{
	if (arg_source == SOURCE_STORE && (arg_host || arg_machine))
		return log_error_errno(
			EINVAL, "--host= and --machine= choose among the machines of journal "
				"files or documents (-D, --file, --journal, --documents): the "
				"store holds this machine's crashes only.");
	return 0;
}

static bool field_is(const char *value, const char *want)
{
	return !want || strcasecmp(value, want) == 0;
}

static bool field_fits(const char *value, const char *pattern)
{
	return !pattern || (value && fnmatch(pattern, value, 0) == 0);
}

/* The function, module and process of the analysis, from the summary of the crash. */
static bool summary_matches(const CrashEntry *e)
{
	json_auto_t *s = NULL;

	if (!match_needs_summary())
		return true;
	s = json_loadb(e->crash.summary, e->crash.summary_len, 0, NULL);
	return field_fits(json_string_value(json_object_get(s, "function")), arg_function) &&
	       field_fits(json_string_value(json_object_get(s, "module")), arg_module) &&
	       field_fits(json_string_value(json_object_get(s, "comm")), arg_comm);
}

bool crash_matches(const CrashEntry *e)
{
	return e->crash.time >= arg_since && e->crash.time <= arg_until &&
	       field_is(e->crash.reason, arg_reason) && field_is(e->crash.kind, arg_kind) &&
	       field_is(e->crash.signature, arg_signature) && field_is(e->hostname, arg_host) &&
	       field_is(e->machine_id, arg_machine) &&
	       field_fits(e->crash.kernel_version, arg_kernel) && summary_matches(e);
}

int log_no_crashes(void)
{
	return log_notice_errno(ESRCH, "No crashes found.");
}
