/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "log.h"

static int max_level = LOG_INFO;
static bool to_journal;

void log_set_max_level(int level)
{
	max_level = level;
}

int log_get_max_level(void)
{
	return max_level;
}

void log_open_journal(void)
{
	to_journal = true;
}

int log_internal(int level, int error, char **ret_message, const char *file, int line,
		 const char *func, const char *format, ...)
{
	char buf[2048];
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

	if (ret_message) {
		free(*ret_message);
		*ret_message = strdup(buf);
	}
	if (level <= max_level && to_journal)
		sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%i", level, "CODE_FILE=%s", file,
				"CODE_LINE=%i", line, "CODE_FUNC=%s", func, NULL);
	else if (level <= max_level)
		fprintf(stderr, "%s: %s\n", program_invocation_short_name, buf);

	errno = saved;
	return -error;
}
