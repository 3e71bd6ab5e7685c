/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How the programs report a configuration that does not load. Its own file:
 * the rest of this library does not log, and a program that does not call
 * this does not link the logging (and libsystemd) for it.
 */

#include <string.h>

#include "config.h"
#include "log.h"

int pstored_config_load_and_log(const char *path, PstoredConfig **ret, char **error_message)
{
	_cleanup_free_ char *error = NULL;
	PstoredConfig *c = NULL;
	int r;

	/* error names the file and what is wrong there; it is NULL when out of memory. */
	r = pstored_config_load(path, NULL, &c, &error);
	if (r < 0)
		return log_error_errno_save(
			r, error_message,
			"Failed to load the configuration: %s (see pstored.conf(5))",
			error ?: strerror(-r));
	for (size_t i = 0; i < c->n_warnings; i++)
		log_warning("%s", c->warnings[i]);
	*ret = c;
	return 0;
}
