// SPDX-License-Identifier: GPL-2.0-or-later

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "pager.h"
#include "pstorectl.h"
#include "terminal.h"

static pid_t pager_pid;
static int saved_stdout = -1, saved_stderr = -1;

/* Copies stdin to stdout: the pager of last resort, when none can be run. */
_noreturn_ static void pager_fallback(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, n) != n)
			_exit(EXIT_FAILURE);
	_exit(n < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
}

_noreturn_ static void pager_exec(const char *pager, pid_t parent)
{
	static const char *const fallbacks[] = {"pager", "less", "more"};

	/* Die with pstorectl rather than linger on the terminal. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(EXIT_FAILURE);

	/*
	 * As systemd sets it: quit at once if the output fits one screen (F), pass
	 * colours through (R), leave the screen as it is on exit (X, which F needs),
	 * a long prompt (M) and quit on ^C (K). The user's $LESS wins.
	 */
	if (setenv("LESS", "FRXMK", 0) < 0)
		_exit(EXIT_FAILURE);
	if (streq(nl_langinfo(CODESET), "UTF-8") && setenv("LESSCHARSET", "utf-8", 0) < 0)
		_exit(EXIT_FAILURE);
	/* Run as root through sudo: keep less from being a way to a root shell. */
	if (getenv("SUDO_UID") && setenv("LESSSECURE", "1", 1) < 0)
		_exit(EXIT_FAILURE);

	if (pager && !getenv("SUDO_UID")) {
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		log_warning_errno(errno, "Failed to run pager '%s', trying less: %m", pager);
	}
	for (size_t i = 0; i < ARRAY_SIZE(fallbacks); i++) {
		if (getenv("SUDO_UID") && !streq(fallbacks[i], "less"))
			continue;
		execlp(fallbacks[i], fallbacks[i], (char *)NULL);
	}
	pager_fallback();
}

void pager_open(void)
{
	const char *pager, *term;
	int fd[2];
	pid_t parent = getpid();

	if (!arg_pager || pager_pid > 0 || !isatty(STDOUT_FILENO))
		return;
	term = getenv("TERM");
	if (term && streq(term, "dumb"))
		return;

	pager = getenv("PSTORECTL_PAGER") ?: getenv("PAGER");
	if (pager && (pager[strspn(pager, " \t")] == '\0' || streq(pager, "cat")))
		return;

	if (pipe2(fd, O_CLOEXEC) < 0) {
		log_warning_errno(errno, "Failed to create the pager pipe, not paging: %m");
		return;
	}

	/* Ask now, while stdout is still the terminal: the output fits it through the pager too. */
	(void)terminal_width();
	(void)colors_enabled();

	fflush(stdout);
	pager_pid = fork();
	if (pager_pid < 0) {
		log_warning_errno(errno, "Failed to fork the pager, not paging: %m");
		pager_pid = 0;
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pager_pid == 0) {
		if (dup2(fd[0], STDIN_FILENO) < 0)
			_exit(EXIT_FAILURE);
		pager_exec(pager, parent);
	}

	saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (dup2(fd[1], STDOUT_FILENO) < 0)
		log_warning_errno(errno, "Failed to redirect output into the pager: %m");
	/* Errors go into the pager too, so that they are not scribbled over its screen. */
	if (isatty(STDERR_FILENO)) {
		saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		if (dup2(fd[1], STDERR_FILENO) < 0)
			log_warning_errno(errno, "Failed to redirect errors into the pager: %m");
	}
	close(fd[0]);
	close(fd[1]);
}

static void restore_fd(int *saved, int target)
{
	if (*saved >= 0) {
		(void)dup2(*saved, target);
		close(*saved);
		*saved = -1;
	} else
		(void)close(target);
}

void pager_close(void)
{
	if (pager_pid <= 0)
		return;

	fflush(stdout);
	fflush(stderr);
	/* The pager sees end of input only once both our ends are gone. */
	restore_fd(&saved_stdout, STDOUT_FILENO);
	if (saved_stderr >= 0)
		restore_fd(&saved_stderr, STDERR_FILENO);

	(void)kill(pager_pid, SIGCONT);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = 0;
}
