/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Logging for the programs. Library code never logs: it returns -errno and
 * the program logs once, with the log_*_errno() helpers that return the
 * error they were handed, as in systemd:
 *
 *	return log_error_errno(r, "Failed to open %s: %m", path);
 *
 * Messages go to stderr prefixed with the program name (which systemd
 * hands to the journal for the services), escaped by utf8_escape(): one
 * line each, whatever the record names and texts in them hold.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <syslog.h>

#include "macro.h"

void log_set_max_level(int level);
int log_get_max_level(void);

/*
 * A syslog level by systemd's name ("emerg", "alert", "crit", "err", "warning", "notice",
 * "info", "debug") or number (0 to 7); -EINVAL for anything else.
 */
int log_level_from_string(const char *s);
/* Sets the level from --log-level=s; logs and returns -EINVAL for an unknown level. */
int log_set_max_level_from_option(const char *s);
/* Sets the level from $PSTORED_LOG_LEVEL if set; an unknown level is ignored with a warning. */
void log_parse_environment(void);

/*
 * Logs at the given syslog level and returns -abs(error) (or 0 if error is 0).
 * With ret_message, the message (NULL if out of memory) also replaces
 * *ret_message, for a program that reports it elsewhere too (pstored's
 * last-archive.json), even when the level is not logged.
 */
int log_internal(int level, int error, char **ret_message, const char *format, ...) _printf_(4, 5);

/*
 * The log function a program hands to a library, in kmod_set_log_fn()'s shape (upload.h's
 * UploadLogFn): logs the library's message, its format and arguments, as
 * log_full_errno(level, error, ...) does. userdata is unused.
 */
void log_library_message(void *userdata, int level, int error, const char *format, va_list ap)
	_printf_(4, 0);

#define log_full_errno(level, error, ...) log_internal((level), (error), NULL, __VA_ARGS__)
#define log_full(level, ...) ((void)log_full_errno((level), 0, __VA_ARGS__))

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(error, ...) log_full_errno(LOG_DEBUG, (error), __VA_ARGS__)
#define log_info_errno(error, ...) log_full_errno(LOG_INFO, (error), __VA_ARGS__)
#define log_notice_errno(error, ...) log_full_errno(LOG_NOTICE, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, (error), __VA_ARGS__)

/* For allocation failures: logs and returns -ENOMEM. */
#define log_oom() log_error_errno(ENOMEM, "Out of memory.")

/* log_error_errno() that keeps the message in *ret_message (freed first). */
#define log_error_errno_save(error, ret_message, ...)                                              \
	log_internal(LOG_ERR, (error), (ret_message), __VA_ARGS__)
