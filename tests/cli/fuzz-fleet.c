// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for what pstorectl reads from other machines
 * (store/journal-fields.h, upload/export-parse.h, upload/clickhouse.h). An
 * input whose first byte is 'j' is a journal entry of pstored: its fields
 * "NAME=value", one a line, become a crash as pstorectl -D reads one. An
 * input whose first byte is 'c' is what ClickHouse answers, as pstorectl
 * --clickhouse reads it: lines, each a row of a listing, of the groups that
 * list --group reads, and of one crash, within the bounds of their sizes and
 * memory. Any other input, past its first byte,
 * is a collected document, as pstorectl --documents reads it, whose parse and
 * crash must stay within the memory bound of export-parse.h (else abort()).
 * Of all, the summary a listing entry is made of (store_crash_summary()) and
 * the JSON show and export print. Built with ./configure --enable-fuzzing CC=clang;
 * seeds: tests/lib/fuzz-seeds.
 */

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "store/journal-fields.h"
#include "store/store.h"
#include "upload/export-parse.h"
#include "upload/clickhouse.h"

/* What pstorectl prints of a crash: its summary and the whole JSON. */
static void print_crash(json_t *crash)
{
	json_auto_t *summary = NULL;

	if (store_crash_summary(crash, &summary) == 0)
		free(json_dumps(summary, JSON_COMPACT | JSON_SORT_KEYS));
	free(json_dumps(crash, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII));
}

static void read_entry(const char *p, const char *end)
{
	json_auto_t *crash = json_pack("{s:[], s:I}", "records", "time", (json_int_t)0);
	json_auto_t *analysis = json_object();

	if (!crash || !analysis)
		abort();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)) ?: end;

		if (journal_crash_add_field(crash, analysis, p, (size_t)(nl - p), true) < 0)
			abort();
		p = nl + 1;
	}
	if (!json_is_string(json_object_get(crash, "id")))
		return;
	if (json_object_set(crash, "analysis", analysis) < 0)
		abort();
	print_crash(crash);
}

/*
 * The memory jansson holds, counted as export-parse.c counts it: to check that a document and
 * its crash stay within the bound of export-parse.h (pstorectl(1)), whatever the input.
 */
static size_t jansson_used, jansson_peak;

static void *counting_malloc(size_t size)
{
	void *m = malloc(size);

	if (m) {
		jansson_used += malloc_usable_size(m);
		jansson_peak = MAX(jansson_peak, jansson_used);
	}
	return m;
}

static void counting_free(void *m)
{
	if (m)
		jansson_used -= malloc_usable_size(m);
	free(m);
}

static void read_document(const char *buf, size_t len)
{
	json_auto_t *doc = NULL;
	json_error_t error;
	size_t before;

	json_set_alloc_funcs(counting_malloc, counting_free);
	before = jansson_peak = jansson_used;
	if (upload_export_parse_buffer(buf, len, &error, &doc) < 0)
		return;
	if (jansson_peak - before >
	    MIN(UPLOAD_EXPORT_MEMORY_FACTOR * len + UPLOAD_EXPORT_MEMORY_BASE,
		UPLOAD_EXPORT_MEMORY_MAX))
		abort();
	print_crash(doc);
	upload_export_strip(doc);
	print_crash(doc);
}

/* Small, for the fuzzer to go past it. */
#define ROWS_LINE_MAX 4096

static void read_rows(const char *buf, size_t len)
{
	FILE *f = fmemopen((void *)buf, len, "r");
	char *line = NULL;
	size_t allocated = 0, n;
	int r;

	if (!f)
		return;
	while ((r = upload_clickhouse_read_line(f, ROWS_LINE_MAX, &line, &allocated, &n)) != 0) {
		json_auto_t *crash = NULL, *doc = NULL, *newest = NULL;
		UploadClickhouseGroup g;

		if (r == -E2BIG)
			continue;
		if (r < 0)
			abort();
		/* Past the bound, a line is skipped whole, never kept. */
		if (n > ROWS_LINE_MAX || allocated > ROWS_LINE_MAX + 1)
			abort();
		if (upload_clickhouse_row_to_crash(line, n, &crash) == 0)
			print_crash(crash);
		if (upload_clickhouse_group_row(line, n, &newest, &g) == 0) {
			print_crash(newest);
			free(json_dumps(g.kernels, JSON_COMPACT));
			json_decref(g.kernels);
		}
		if (upload_clickhouse_row_to_document(line, n, &doc) == 0) {
			print_crash(doc);
			upload_export_strip(doc);
			print_crash(doc);
		}
	}
	free(line);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] == 'j')
		read_entry((const char *)data + 1, (const char *)data + size);
	else if (data[0] == 'c')
		read_rows((const char *)data + 1, size - 1);
	else
		read_document((const char *)data + 1, size - 1);
	return 0;
}
