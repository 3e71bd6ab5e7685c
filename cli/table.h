/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Tables as systemd's list commands print them: a header line of column
 * names (left out with --no-legend), columns as wide as their widest cell,
 * two spaces between columns, no padding after the last. On a terminal the
 * last column is cut to the terminal width with an ellipsis. Widths count
 * one column per code point.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macro.h"

typedef struct Table Table;

/* headers: n_columns column names. Returns NULL when out of memory. */
Table *table_new(size_t n_columns, const char *const *headers);
Table *table_free(Table *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Table *, table_free);
#define _cleanup_table_ _cleanup_(table_freep)

/* Aligns column to the right (for counts). */
void table_set_align_right(Table *t, size_t column, bool right);

/* Makes room for rows rows besides the headers, so that adding them moves nothing. */
int table_reserve(Table *t, size_t rows);

/* Appends a row of n_columns cells (NULL shows as "-"), escaped as utf8_escape() does. */
int table_add_row(Table *t, const char *const *cells);

size_t table_rows(const Table *t);

/* Prints the table; width 0: no limit. */
int table_print(const Table *t, FILE *f, bool legend, size_t width);

/* Width of the terminal on stdout ($COLUMNS first), or 0 if stdout is not a terminal. */
size_t terminal_width(void);
