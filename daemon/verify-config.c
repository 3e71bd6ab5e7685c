// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstored verify-config: loads the configuration as "pstored archive" and
 * "pstored upload" do, which log each problem as a warning and go on without
 * the line (or the target) at fault, and fails if there was one: for an
 * administrator after an edit, and for the tests.
 */

#include <errno.h>

#include "config/config.h"
#include "log.h"
#include "pstored.h"

int verb_verify_config(int argc, char *argv[])
{
	_cleanup_(pstored_config_freep) PstoredConfig *config = NULL;
	int r;

	r = pstored_config_load_and_log(arg_config, &config, NULL);
	if (r < 0)
		return r;
	if (config->n_warnings > 0)
		return log_error_errno(EINVAL,
				       "%zu problem%s in the configuration: fix %s (see "
				       "pstored.conf(5)).",
				       config->n_warnings, config->n_warnings == 1 ? "" : "s",
				       config->n_warnings == 1 ? "it" : "them");
	return 0;
}
