// SPDX-License-Identifier: GPL-2.0-or-later

#include <errno.h>
#include <langinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "memory-util.h"
#include "table.h"
#include "terminal.h"
#include "utf8-util.h"

/*
 * The cells' text lives in a few large chunks, each cell found by a pointer
 * into one: a listing of 10,000 crashes is 70,000 cells, and one allocation
 * each would cost more than printing them. Chunks are never moved, so that
 * text is written (and its pages touched) once. A cell's length and width
 * are counted once, as it is copied in, escaped (utf8_escape()). The chunks and the cells, a megabyte
 * each for those 10,000 crashes, are mapped whole (mmap_populated()), not
 * one page fault at a time.
 */
#define TABLE_CHUNK_SIZE (256 * 1024)

typedef struct Chunk {
	char *text;
	size_t size;
} Chunk;

typedef struct Cell {
	const char *text;
	const char *color;   /* an ANSI sequence, or NULL */
	uint32_t len, width; /* a cell is a line of a crash's summary, not gigabytes */
} Cell;

struct Table {
	size_t n_columns;
	Cell *cells; /* n_allocated * n_columns, row after row; row 0: headers */
	size_t n_rows, n_allocated;
	Chunk *chunks;
	size_t n_chunks;
	char *free_text; /* the unused end of the last chunk */
	size_t free_size;
	bool *align_right;
	size_t *min_width;  /* how narrow each column may be cut; SIZE_MAX: not at all */
	size_t *drop_order; /* the columns left out first when the width is short */
	size_t n_drop_order;
	size_t last_min; /* what the last column gets before any other is cut */
};

static Cell *cell(const Table *t, size_t row, size_t column)
{
	return &t->cells[row * t->n_columns + column];
}

static bool utf8_is_continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

int table_reserve(Table *t, size_t rows)
{
	Cell *c;

	if (rows > SIZE_MAX / t->n_columns - 1)
		return -ENOMEM;
	rows++; /* the headers */
	if (rows <= t->n_allocated)
		return 0;
	if (rows > SIZE_MAX / sizeof(Cell) / t->n_columns)
		return -ENOMEM;
	c = mmap_populated(rows * t->n_columns * sizeof(Cell));
	if (!c)
		return -ENOMEM;
	if (t->cells) {
		memcpy(c, t->cells, t->n_rows * t->n_columns * sizeof(Cell));
		munmap(t->cells, t->n_allocated * t->n_columns * sizeof(Cell));
	}
	t->cells = c;
	t->n_allocated = rows;
	return 0;
}

static int table_append(Table *t, const char *const *cells)
{
	size_t n = t->n_columns, need = 0;
	Cell *row;
	int r;

	if (t->n_rows == t->n_allocated) {
		r = table_reserve(t, MAX(t->n_allocated * 2, (size_t)64));
		if (r < 0)
			return r;
	}
	row = &t->cells[t->n_rows * n];
	/* The text's length for now; escaped, it takes up to UTF8_ESCAPE_MAX times as much. */
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(cells[i] ?: "-");

		if (len > (UINT32_MAX - 1) / UTF8_ESCAPE_MAX) /* never, but not to be cut short */
			return -ENOMEM;
		row[i].len = (uint32_t)len;
		need += UTF8_ESCAPE_MAX * len + 1;
	}
	if (need > t->free_size) {
		/* 16 KiB, twice that for each chunk after, up to TABLE_CHUNK_SIZE: a small table
		 * maps little. */
		size_t size = MAX(need, MIN((size_t)16384 << MIN(t->n_chunks, (size_t)4),
					    (size_t)TABLE_CHUNK_SIZE));
		Chunk *c = reallocarray(t->chunks, t->n_chunks + 1, sizeof(Chunk));

		if (!c)
			return -ENOMEM;
		t->chunks = c;
		c[t->n_chunks].text = mmap_populated(size);
		if (!c[t->n_chunks].text)
			return -ENOMEM;
		c[t->n_chunks].size = size;
		t->free_text = c[t->n_chunks++].text;
		t->free_size = size;
	}

	/* Copied escaped, then the width counted: one column per code point. */
	for (size_t i = 0; i < n; i++) {
		char *w = t->free_text;
		uint32_t width = 0;

		row[i].len = (uint32_t)utf8_escape_to(w, cells[i] ?: "-", row[i].len, 0);
		for (uint32_t k = 0; k < row[i].len; k++)
			width += !utf8_is_continuation(w[k]);
		w[row[i].len] = '\0';
		row[i].text = w;
		row[i].color = NULL;
		row[i].width = width;
		t->free_text += row[i].len + 1;
		t->free_size -= row[i].len + 1;
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
	t->min_width = malloc(n_columns * sizeof(size_t));
	t->drop_order = calloc(n_columns, sizeof(size_t));
	if (!t->align_right || !t->min_width || !t->drop_order || table_append(t, headers) < 0)
		return table_free(t);
	for (size_t c = 0; c < n_columns; c++)
		t->min_width[c] = SIZE_MAX;
	return t;
}

Table *table_free(Table *t)
{
	if (!t)
		return NULL;
	if (t->cells)
		munmap(t->cells, t->n_allocated * t->n_columns * sizeof(Cell));
	for (size_t i = 0; i < t->n_chunks; i++)
		munmap(t->chunks[i].text, t->chunks[i].size);
	free(t->chunks);
	free(t->align_right);
	free(t->min_width);
	free(t->drop_order);
	free(t);
	return NULL;
}

void table_set_align_right(Table *t, size_t column, bool right)
{
	if (column < t->n_columns)
		t->align_right[column] = right;
}

void table_set_min_width(Table *t, size_t column, size_t width)
{
	if (column < t->n_columns)
		t->min_width[column] = width;
}

void table_set_drop_order(Table *t, const size_t *columns, size_t n)
{
	t->n_drop_order = 0;
	for (size_t i = 0; i < n && i < t->n_columns; i++)
		if (columns[i] + 1 < t->n_columns)
			t->drop_order[t->n_drop_order++] = columns[i];
}

void table_set_last_min(Table *t, size_t width)
{
	t->last_min = width;
}

int table_add_row(Table *t, const char *const *cells)
{
	return table_append(t, cells);
}

void table_set_color(Table *t, size_t column, const char *color)
{
	if (t->n_rows > 1 && column < t->n_columns)
		cell(t, t->n_rows - 1, column)->color = color;
}

size_t table_rows(const Table *t)
{
	return t->n_rows - 1;
}

/*
 * Appends c to p in at most max columns, ending in an ellipsis if it had to
 * cut; returns the new end. Writes at most c->len + 3 bytes.
 */
static char *put_cut(char *p, const Cell *c, size_t max)
{
	bool utf8;
	const char *ellipsis, *q;
	size_t ew, k = 0;

	if (c->width <= max)
		return mempcpy(p, c->text, c->len);
	utf8 = streq(nl_langinfo(CODESET), "UTF-8");
	ellipsis = utf8 ? "…" : "...";
	ew = utf8 ? 1 : 3;
	if (max <= ew)
		return mempcpy(p, "...", MIN(max, (size_t)3));
	for (q = c->text; *q; q++)
		if (!utf8_is_continuation(*q) && k++ == max - ew)
			break;
	p = mempcpy(p, c->text, q - c->text);
	return stpcpy(p, ellipsis);
}

static char *put_spaces(char *p, size_t n)
{
	memset(p, ' ', n);
	return p + n;
}

/* The width of the shown columns, two spaces between each two. */
static size_t row_width(const size_t *widths, const bool *shown, size_t n)
{
	size_t total = 0, k = 0;

	for (size_t c = 0; c < n; c++)
		if (shown[c]) {
			total += widths[c];
			k++;
		}
	return total + (k > 0 ? 2 * (k - 1) : 0);
}

/*
 * Fits the columns into width. The last column is the one to read (a
 * message): to leave it last_min columns (or all it needs, if fewer), the
 * columns with a minimum width are cut down towards it, then those of the
 * drop order are left out, one at a time, until the row fits. The last column
 * then takes what is left, but never less than its header.
 */
static void table_fit(const Table *t, size_t width, size_t *widths, bool *shown)
{
	size_t n = t->n_columns, last = n - 1, natural = widths[last], avail, others;

	widths[last] = MIN(natural, t->last_min);
	for (size_t c = 0; c < last && row_width(widths, shown, n) > width; c++)
		if (t->min_width[c] < widths[c])
			widths[c] -= MIN(row_width(widths, shown, n) - width,
					 widths[c] - t->min_width[c]);
	for (size_t i = 0; i < t->n_drop_order && row_width(widths, shown, n) > width; i++)
		shown[t->drop_order[i]] = false;

	others = row_width(widths, shown, n) - widths[last];
	avail = width > others ? width - others : 0;
	widths[last] = MIN(natural, MAX(avail, cell(t, 0, last)->width));
}

/* Each row is put together in one buffer and written with one call: 70,000 cells, 10,000 writes. */
int table_print(const Table *t, FILE *f, bool legend, size_t width)
{
	size_t n = t->n_columns, line_max = 1, last = n - 1;
	_cleanup_free_ size_t *widths = calloc(n, sizeof(size_t));
	_cleanup_free_ bool *shown = malloc(n * sizeof(bool));
	_cleanup_free_ char *line = NULL;

	if (!widths || !shown)
		return -ENOMEM;

	for (size_t c = 0; c < n; c++)
		shown[c] = true;
	for (size_t r = legend ? 0 : 1; r < t->n_rows; r++)
		for (size_t c = 0; c < n; c++)
			widths[c] = MAX(widths[c], cell(t, r, c)->width);
	if (width > 0 && row_width(widths, shown, n) > width)
		table_fit(t, width, widths, shown);

	/*
	 * A row takes at most each cell's bytes, an ellipsis, its padding, a
	 * separator and its colour on and off.
	 */
	for (size_t c = 0; c < n; c++) {
		size_t longest = 0;

		for (size_t r = legend ? 0 : 1; r < t->n_rows; r++)
			longest = MAX(longest,
				      cell(t, r, c)->len + strlen(cell(t, r, c)->color ?: ""));
		line_max += longest + 3 + widths[c] + 2 + sizeof(ANSI_NORMAL) - 1;
	}
	line = malloc(line_max);
	if (!line)
		return -ENOMEM;

	for (size_t r = legend ? 0 : 1; r < t->n_rows; r++) {
		char *p = line;
		bool first = true;

		for (size_t c = 0; c < n; c++) {
			const Cell *x = cell(t, r, c);
			size_t pad = widths[c] > x->width ? widths[c] - x->width : 0;

			if (!shown[c])
				continue;
			if (!first)
				p = put_spaces(p, 2);
			first = false;
			if (t->align_right[c])
				p = put_spaces(p, pad);
			if (x->color)
				p = stpcpy(p, x->color);
			p = put_cut(p, x, widths[c]);
			if (x->color)
				p = stpcpy(p, ANSI_NORMAL);
			/* No padding after the last column. */
			if (!t->align_right[c] && c < last)
				p = put_spaces(p, pad);
		}
		*p++ = '\n';
		if (fwrite(line, 1, p - line, f) != (size_t)(p - line))
			return -EIO;
	}
	return ferror(f) ? -EIO : 0;
}
