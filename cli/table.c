// SPDX-License-Identifier: GPL-2.0-or-later

#include <errno.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "macro.h"
#include "table.h"

/*
 * The cells' text lives in a few large chunks, each cell found by a pointer
 * into one: a listing of 10,000 crashes is 70,000 cells, and one allocation
 * each would cost more than printing them. Chunks are never moved, so that
 * text is written (and its pages touched) once.
 */
#define TABLE_CHUNK_SIZE (256 * 1024)

struct Table {
	size_t n_columns;
	const char **cells; /* n_rows * n_columns, row after row; row 0: headers */
	size_t n_rows, n_allocated;
	char **chunks;
	size_t n_chunks;
	char *free_text; /* the unused end of the last chunk */
	size_t free_size;
	bool *align_right;
};

static const char *cell(const Table *t, size_t row, size_t column)
{
	return t->cells[row * t->n_columns + column];
}

size_t utf8_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

size_t terminal_width(void)
{
	const char *e = getenv("COLUMNS");
	struct winsize ws = {};

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (e) {
		char *end;
		unsigned long v = strtoul(e, &end, 10);

		if (*e && !*end && v > 0 && v < 100000)
			return v;
	}
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0)
		return 80;
	return ws.ws_col;
}

static int table_append(Table *t, const char *const *cells)
{
	size_t n = t->n_columns, need = 0;

	if (t->n_rows == t->n_allocated) {
		size_t a = t->n_allocated ? t->n_allocated * 2 : 64;
		const char **c = reallocarray(t->cells, a * n, sizeof(char *));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->n_allocated = a;
	}
	for (size_t i = 0; i < n; i++)
		need += strlen(cells[i] ?: "-") + 1;
	if (need > t->free_size) {
		size_t size = MAX(need, (size_t)TABLE_CHUNK_SIZE);
		char **c = reallocarray(t->chunks, t->n_chunks + 1, sizeof(char *));

		if (!c)
			return -ENOMEM;
		t->chunks = c;
		c[t->n_chunks] = malloc(size);
		if (!c[t->n_chunks])
			return -ENOMEM;
		t->free_text = c[t->n_chunks++];
		t->free_size = size;
	}

	for (size_t i = 0; i < n; i++) {
		const char *s = cells[i] ?: "-";
		char *w = t->free_text;

		t->cells[t->n_rows * n + i] = w;
		for (; *s; s++)
			*w++ = (unsigned char)*s < ' ' || *s == 0x7f ? ' ' : *s;
		*w++ = '\0';
		t->free_size -= w - t->free_text;
		t->free_text = w;
	}
	t->n_rows++;
	return 0;
}

Table *table_new(size_t n_columns, const char *const *headers)
{
	Table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->n_columns = n_columns;
	t->align_right = calloc(n_columns, sizeof(bool));
	if (!t->align_right || table_append(t, headers) < 0)
		return table_free(t);
	return t;
}

Table *table_free(Table *t)
{
	if (!t)
		return NULL;
	free(t->cells);
	for (size_t i = 0; i < t->n_chunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->align_right);
	free(t);
	return NULL;
}

void table_set_align_right(Table *t, size_t column, bool right)
{
	if (column < t->n_columns)
		t->align_right[column] = right;
}

int table_add_row(Table *t, const char *const *cells)
{
	return table_append(t, cells);
}

size_t table_rows(const Table *t)
{
	return t->n_rows - 1;
}

static void print_spaces(FILE *f, size_t n)
{
	static const char spaces[] =
		"                                                                ";

	for (; n > 0; n -= MIN(n, sizeof(spaces) - 1))
		fwrite(spaces, 1, MIN(n, sizeof(spaces) - 1), f);
}

/* Prints s, width w, in at most max columns, ending in an ellipsis if it had to cut. */
static void print_cut(FILE *f, const char *s, size_t w, size_t max)
{
	bool utf8;
	const char *ellipsis, *p;
	size_t ew, k = 0;

	if (w <= max) {
		fputs(s, f);
		return;
	}
	utf8 = streq(nl_langinfo(CODESET), "UTF-8");
	ellipsis = utf8 ? "…" : "...";
	ew = utf8 ? 1 : 3;
	if (max <= ew) {
		fprintf(f, "%.*s", (int)max, "...");
		return;
	}
	for (p = s; *p; p++)
		if (((unsigned char)*p & 0xc0) != 0x80 && k++ == max - ew)
			break;
	fwrite(s, 1, p - s, f);
	fputs(ellipsis, f);
}

int table_print(const Table *t, FILE *f, bool legend, size_t width)
{
	size_t n = t->n_columns, total = 0;
	_cleanup_free_ size_t *widths = calloc(n, sizeof(size_t));

	if (!widths)
		return -ENOMEM;

	for (size_t r = legend ? 0 : 1; r < t->n_rows; r++)
		for (size_t c = 0; c < n; c++)
			widths[c] = MAX(widths[c], utf8_width(cell(t, r, c)));
	for (size_t c = 0; c < n; c++)
		total += widths[c] + (c + 1 < n ? 2 : 0);

	/* Only the last column gives way, and never below its header's width. */
	if (width > 0 && total > width) {
		size_t others = total - widths[n - 1], min = utf8_width(cell(t, 0, n - 1));

		widths[n - 1] = others < width ? MAX(width - others, min) : min;
	}

	for (size_t r = legend ? 0 : 1; r < t->n_rows; r++) {
		for (size_t c = 0; c < n; c++) {
			const char *s = cell(t, r, c);
			size_t w = utf8_width(s), pad = widths[c] > w ? widths[c] - w : 0;

			if (c + 1 == n && !t->align_right[c]) {
				print_cut(f, s, w, widths[c]);
				break;
			}
			if (t->align_right[c])
				print_spaces(f, pad);
			print_cut(f, s, w, widths[c]);
			if (!t->align_right[c])
				print_spaces(f, pad);
			if (c + 1 < n)
				fputs("  ", f);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
