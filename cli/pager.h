/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Pipes stdout (and stderr, if it is the same terminal) into a pager, as
 * systemd's tools do: $PSTORECTL_PAGER or $PAGER ("" or "cat" turn it off),
 * else pager, less (with $LESS defaulting to "FRXMK", as systemd sets it), more. Nothing happens
 * when stdout is not a terminal, TERM is "dumb" or --no-pager was given.
 */

/* Starts the pager; a failure is logged and output goes to stdout directly. */
void pager_open(void);

/* Flushes the output, ends the pager's input and waits for it to exit. */
void pager_close(void);
