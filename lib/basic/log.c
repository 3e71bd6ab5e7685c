/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parse-util.h"
#include "utf8-util.h"

#define LOG_LEVELS_HINT "emerg, alert, crit, err, warning, notice, info, debug or 0 to 7"

static int max_level = LOG_INFO;

void log_set_max_level(int level)
{
	max_level = level;
}

int log_get_max_level(void)
{
	return max_level;
}

static const char *const log_level_names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",	  [LOG_CRIT] = "crit",
	[LOG_ERR] = "err",     [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",   [LOG_DEBUG] = "debug",
};

int log_level_from_string(const char *s)
{
	uint64_t n;

	for (size_t i = 0; i < ARRAY_SIZE(log_level_names); i++)
		if (streq(s, log_level_names[i]))
			return (int)i;
	if (parse_uint64(s, &n) < 0 || n >= ARRAY_SIZE(log_level_names))
		return -EINVAL;
	return (int)n;
}

int log_set_max_level_from_option(const char *s)
{
	int level = log_level_from_string(s);

	if (level < 0)
		return log_error_errno(level, "Unknown log level '%s': use " LOG_LEVELS_HINT ".",
				       s);
	log_set_max_level(level);
	return 0;
}

void log_parse_environment(void)
{
	const char *e = secure_getenv("PSTORED_LOG_LEVEL");
	int level;

	if (!e)
		return;
	level = log_level_from_string(e);
	if (level < 0)
		log_warning("Ignoring $PSTORED_LOG_LEVEL='%s': use " LOG_LEVELS_HINT ".", e);
	else
		log_set_max_level(level);
}

_printf_(4, 0) static int log_internalv(int level, int error, char **ret_message,
					const char *format, va_list ap)
{
	char buf[2048], out[UTF8_ESCAPE_MAX * sizeof(buf) + 1];
	int saved = errno;

	if (error < 0)
		error = -error;

	if (level > max_level && !ret_message) {
		errno = saved;
		return -error;
	}

	/* %m prints the error we were handed, not whatever errno holds. */
	errno = error;
	vsnprintf(buf, sizeof(buf), format, ap);

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

int log_internal(int level, int error, char **ret_message, const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = log_internalv(level, error, ret_message, format, ap);
	va_end(ap);
	return r;
}

void log_library_message(void *userdata, int level, int error, const char *format, va_list ap)
{
	(void)log_internalv(level, error, NULL, format, ap);
}
