// SPDX-License-Identifier: GPL-2.0-or-later

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "macro.h"
#include "parse-util.h"
#include "terminal.h"

static bool on_tty(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = isatty(STDOUT_FILENO);
	return cached;
}

size_t terminal_width(void)
{
	static size_t cached = SIZE_MAX;
	struct winsize ws = {};
	const char *e;

	if (cached != SIZE_MAX)
		return cached;
	cached = 0;
	if (!on_tty())
		return cached;
	e = getenv("COLUMNS");
	if (e) {
		char *end;
		unsigned long v = strtoul(e, &end, 10);

		if (*e && !*end && v > 0 && v < 100000)
			return cached = v;
	}
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0)
		return cached = 80;
	return cached = ws.ws_col;
}

const char *severity_color(const char *reason, const char *severity)
{
	if ((reason && streq(reason, "panic")) || (severity && streq(severity, "fatal")))
		return ANSI_HIGHLIGHT_RED;
	if (severity && streq(severity, "recoverable"))
		return ANSI_HIGHLIGHT_YELLOW;
	if (severity && streq(severity, "corrected"))
		return ANSI_GREY;
	return NULL;
}

bool colors_enabled(void)
{
	static int cached = -1;
	const char *e, *term;
	bool b;

	if (cached >= 0)
		return cached;
	e = getenv("SYSTEMD_COLORS");
	term = getenv("TERM");
	if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
		cached = false;
	else if (e && parse_boolean(e, &b) >= 0)
		cached = b;
	else if (e && (streq(e, "16") || streq(e, "256") || streq(e, "24bit")))
		cached = true;
	else
		cached = on_tty() && !(term && streq(term, "dumb"));
	return cached;
}
