// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl vacuum: applies the retention limits of pstored.conf now, as
 * pstored does before each archive run stores its first crash.
 */

#include <errno.h>
#include <stdlib.h>

#include "config/config.h"
#include "crash-util.h"
#include "log.h"
#include "pstorectl.h"
#include "store/retention.h"

static const char *arg_config;

enum {
	ARG_CONFIG = ARG_VERB_BASE,
};

static int handle_vacuum_option(int c, const char *arg)
{
	if (c != ARG_CONFIG)
		return -EINVAL;
	arg_config = arg;
	return 0;
}

static const OptionSpec vacuum_option_table[] = {
	{"config", required_argument, ARG_CONFIG, "FILE",
	 "Read the retention limits from FILE only"},
	{}};

const VerbOptions vacuum_options = {vacuum_option_table, NULL, handle_vacuum_option};

int verb_vacuum(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *removed = NULL;
	PstoredConfig *config = NULL;
	StoreVacuumLimits limits;
	json_t *id;
	size_t i;
	int r;

	r = pstored_config_load_and_log(arg_config, &config, NULL);
	if (r < 0)
		return r;
	limits = store_vacuum_limits_from_config(config);
	pstored_config_free(config);

	r = open_store(arg_store_dir, true, &s);
	if (r < 0)
		return r;
	r = store_vacuum(s, &limits, now_usec(), &removed);
	if (r < 0)
		return log_store_error(r, arg_store_dir);

	if (arg_json != JSON_OFF) {
		json_auto_t *out = json_pack("{s:O}", "removed", removed);

		if (!out)
			return log_oom();
		return print_json(out);
	}
	/* The ids alone, one a line, for scripts; what happened goes to stderr. */
	json_array_foreach(removed, i, id)
		if (puts(json_string_value(id)) == EOF)
			return log_error_errno(EIO, "Failed to write the removed ids: %m");
	if (json_array_size(removed) > 0)
		log_info("Removed %zu crash%s from %s.", json_array_size(removed),
			 json_array_size(removed) == 1 ? "" : "es", arg_store_dir);
	else
		log_info("Nothing to remove: %s is within the retention limits.", arg_store_dir);
	return 0;
}
