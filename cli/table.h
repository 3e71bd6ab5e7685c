/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Tables as systemd's list commands print them: a header line of column
 * names (left out with --no-legend), columns as wide as their widest cell,
 * two spaces between columns, no padding after the last. Given a width (the
 * terminal's), the table fits into it as systemctl's do: the last column, the
 * one to read, keeps a minimum width, columns are cut down or left out in an
 * order of the caller's to leave it that, and cells that are cut end in an
 * ellipsis ("…", "..." when the locale's character set is not UTF-8). Widths
 * count one column per code point.
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

/* Lets the column be cut down to width columns when the row is too wide. */
void table_set_min_width(Table *t, size_t column, size_t width);

/*
 * The columns to leave out, first to last, while the row is too wide for the
 * last column to get table_set_last_min() columns. The last column is never
 * left out.
 */
void table_set_drop_order(Table *t, const size_t *columns, size_t n);

/* The columns the last column keeps, if it needs that many, before any is left out. */
void table_set_last_min(Table *t, size_t width);

/* Makes room for rows rows besides the headers, so that adding them moves nothing. */
int table_reserve(Table *t, size_t rows);

/* Appends a row of n_columns cells (NULL shows as "-"), escaped as utf8_escape() does. */
int table_add_row(Table *t, const char *const *cells);

/* Colours a cell of the last row added (color an ANSI sequence of terminal.h). */
void table_set_color(Table *t, size_t column, const char *color);

size_t table_rows(const Table *t);

/* Prints the table; width 0: no limit. */
int table_print(const Table *t, FILE *f, bool legend, size_t width);
