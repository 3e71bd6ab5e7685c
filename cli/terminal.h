/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * What pstorectl makes of the terminal on stdout, as systemd's tools do:
 * asked once and remembered, so that the answers stay those of the terminal
 * after pager_open() has pointed stdout into the pager, which calls both
 * before it does.
 */

#include <stdbool.h>
#include <stddef.h>

#define ANSI_HIGHLIGHT_RED "\x1B[0;1;31m"
#define ANSI_HIGHLIGHT_YELLOW "\x1B[0;1;33m"
#define ANSI_GREY "\x1B[0;38;5;245m"
#define ANSI_NORMAL "\x1B[0m"

/*
 * The width to fit the output to: $COLUMNS, else the terminal's; 0 (no
 * limit) when stdout is not a terminal, so that a pipe gets every character.
 */
size_t terminal_width(void);

/*
 * Whether to colour the output, as journalctl decides: not with $NO_COLOR set,
 * SYSTEMD_COLORS=0 or TERM=dumb; always with SYSTEMD_COLORS=1; else only on a
 * terminal.
 */
bool colors_enabled(void);

/*
 * The colour of a crash's severity, as journalctl colours priorities: a panic
 * (reason) or a fatal hardware error (severity) red, a recoverable one yellow,
 * a corrected one grey; NULL for the others. Either may be NULL.
 */
const char *severity_color(const char *reason, const char *severity);
