// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "log.h"
#include "macro.h"

static void redirect_stderr(void)
{
	cr_redirect_stderr();
}

Test(log, returns_negative_errno, .init = redirect_stderr)
{
	cr_assert_eq(log_error_errno(ENOENT, "Failed to open %s: %m", "x"), -ENOENT);
	cr_assert_eq(log_error_errno(-EIO, "Failed: %m"), -EIO);
	fflush(stderr);

	/* Criterion runs each test in a worker process with its own name. */
	char expected[256];
	snprintf(expected, sizeof(expected),
		 "%1$s: Failed to open x: No such file or directory\n"
		 "%1$s: Failed: Input/output error\n",
		 program_invocation_short_name);
	cr_assert_stderr_eq_str(expected);
}

Test(log, level_filter_keeps_errno, .init = redirect_stderr)
{
	log_set_max_level(LOG_WARNING);
	errno = EPERM;
	cr_assert_eq(log_debug_errno(EAGAIN, "hidden"), -EAGAIN);
	cr_assert_eq(errno, EPERM);
	fflush(stderr);
	cr_assert_stderr_eq_str("");
}

/* systemd's names and the numbers 0 to 7, nothing else. */
Test(log, level_from_string)
{
	cr_assert_eq(log_level_from_string("emerg"), LOG_EMERG);
	cr_assert_eq(log_level_from_string("err"), LOG_ERR);
	cr_assert_eq(log_level_from_string("warning"), LOG_WARNING);
	cr_assert_eq(log_level_from_string("debug"), LOG_DEBUG);
	cr_assert_eq(log_level_from_string("0"), LOG_EMERG);
	cr_assert_eq(log_level_from_string("7"), LOG_DEBUG);
	cr_assert_eq(log_level_from_string("8"), -EINVAL);
	cr_assert_eq(log_level_from_string("-1"), -EINVAL);
	cr_assert_eq(log_level_from_string("error"), -EINVAL);
	cr_assert_eq(log_level_from_string("DEBUG"), -EINVAL);
	cr_assert_eq(log_level_from_string(""), -EINVAL);
}

/* A record name with a terminal escape, a line of its own and CSI stays on one escaped line. */
Test(log, messages_are_escaped, .init = redirect_stderr)
{
	_cleanup_free_ char *saved = NULL;
	char expected[256];

	log_error("%s: cannot read record", "dmesg-\x1b[2J\npstored: forged\xc2\x9b?25l-1");
	log_error_errno_save(EIO, &saved, "%s: %m", "\xff\r");
	fflush(stderr);

	snprintf(expected, sizeof(expected),
		 "%1$s: dmesg-\\x1b[2J\\npstored: forged\\u009b?25l-1: cannot read record\n"
		 "%1$s: \\xff\\r: Input/output error\n",
		 program_invocation_short_name);
	cr_assert_stderr_eq_str(expected);
	cr_assert_str_eq(saved, "\\xff\\r: Input/output error");
}

_printf_(3, 4) static void library_logs(int level, int error, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	log_library_message(NULL, level, error, format, ap);
	va_end(ap);
}

/* What a library hands to the program's log function is logged as the program's own messages. */
Test(log, library_messages, .init = redirect_stderr)
{
	char expected[256];

	log_set_max_level(LOG_INFO);
	errno = EPERM;
	library_logs(LOG_ERR, ENOENT, "[Target.%s] Cannot read TokenFile=%s: %m.", "t", "/a\nb");
	library_logs(LOG_DEBUG, 0, "hidden");
	cr_assert_eq(errno, EPERM);
	fflush(stderr);

	snprintf(expected, sizeof(expected),
		 "%s: [Target.t] Cannot read TokenFile=/a\\nb: No such file or directory.\n",
		 program_invocation_short_name);
	cr_assert_stderr_eq_str(expected);
}

Test(macro, take_ptr_and_fd)
{
	_cleanup_free_ char *p = strdup("x");
	char *q = TAKE_PTR(p);

	cr_assert_null(p);
	cr_assert_str_eq(q, "x");
	free(q);

	int fd = 7;
	cr_assert_eq(TAKE_FD(fd), 7);
	cr_assert_eq(fd, -1);
}

Test(macro, array_size)
{
	static const int a[5];

	cr_assert_eq(ARRAY_SIZE(a), 5);
}
