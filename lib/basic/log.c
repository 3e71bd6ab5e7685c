/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "utf8-util.h"

static int max_level = LOG_INFO;

void log_set_max_level(int level)
{
	max_level = level;
}

int log_get_max_level(void)
{
	return max_level;
}

int log_internal(int level, int error, char **ret_message, const char *format, ...)
{
	char buf[2048], out[UTF8_ESCAPE_MAX * sizeof(buf) + 1];
	va_list ap;
	int saved = errno;

	if (error < 0)
		error = -error;

	if (level > max_level && !ret_message) {
		errno = saved;
		return -error;
	}

	/* %m prints the error we were handed, not whatever errno holds. */
	errno = error;
	va_start(ap, format);
	vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);

	/*
	 * Messages name records and quote what they hold: escaped, so that a
	 * record name can neither drive the terminal nor start a line of its own
	 * in the journal (which takes each line of stderr as an entry).
	 */
	out[utf8_escape_to(out, buf, strlen(buf), 0)] = '\0';

	if (ret_message) {
		free(*ret_message);
		*ret_message = strdup(out);
	}
	if (level <= max_level)
		fprintf(stderr, "%s: %s\n", program_invocation_short_name, out);

	errno = saved;
	return -error;
}
