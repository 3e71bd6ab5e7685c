// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl list: one line per crash, oldest first, read from the store's
 * index alone (no crash.json is opened), so that it stays fast with
 * thousands of crashes.
 */

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "crash-util.h"
#include "log.h"
#include "match.h"
#include "pager.h"
#include "parse-util.h"
#include "pstorectl.h"
#include "source.h"
#include "table.h"
#include "terminal.h"

/* Short ids are at least this long, and longer where two listed ids share a longer prefix. */
#define SHORT_ID_MIN 8

/* On a terminal, the message keeps this many columns (or all it needs) before any other column. */
#define MESSAGE_MIN 30

/* stdout's buffer, until the exit flushes it (glibc's setvbuf() takes no size without one). */
static char stdout_buffer[64 * 1024];

static size_t arg_lines = SIZE_MAX;
static bool arg_reverse, arg_group;

enum {
	ARG_GROUP = ARG_VERB_BASE,
};

static int handle_list_option(int c, const char *arg)
{
	uint64_t n;

	switch (c) {
	case 'n':
		if (parse_uint64(arg, &n) < 0 || n > SIZE_MAX)
			return log_error_errno(
				EINVAL,
				"Invalid number of crashes '%s' for -n/--lines: give a "
				"number, e.g. -n 10.",
				arg);
		arg_lines = n;
		return 0;
	case '1':
		arg_lines = 1;
		return 0;
	case 'r':
		arg_reverse = true;
		return 0;
	case ARG_GROUP:
		arg_group = true;
		return 0;
	default:
		return match_parse_option(c, arg);
	}
}

static const OptionSpec list_option_table[] = {
	{"lines", required_argument, 'n', "N", "Only the N newest crashes"},
	{NULL, no_argument, '1', NULL, "Only the newest crash"},
	{"reverse", no_argument, 'r', NULL, "Newest first"},
	{"group", no_argument, ARG_GROUP, NULL,
	 "One line per signature: crashes, machines, first and last\ntime, kernels"},
	{}};

const VerbOptions list_options = {list_option_table, match_options, handle_list_option};

static const char *or_dash(const char *s)
{
	return s && *s ? s : NULL;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The shortest prefix length that tells every listed id apart, at least SHORT_ID_MIN. */
static size_t short_id_length(const CrashEntry *const *v, size_t n)
{
	_cleanup_free_ const char **ids = calloc(n ?: 1, sizeof(char *));
	size_t len = SHORT_ID_MIN;

	if (!ids)
		return STORE_CRASH_ID_LEN;
	for (size_t i = 0; i < n; i++)
		ids[i] = v[i]->crash.id;
	qsort(ids, n, sizeof(char *), compare_strings);
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;

		while (ids[i][k] && ids[i][k] == ids[i - 1][k])
			k++;
		len = MAX(len, k + 1);
	}
	return MIN(len, STORE_CRASH_ID_LEN);
}

/* Prints the table and, with the legend, how many crashes or signatures it lists. */
static int print_listing(const Table *t, const char *noun, const char *nouns)
{
	size_t n = table_rows(t);
	int r;

	r = table_print(t, stdout, arg_legend, terminal_width());
	if (r < 0)
		return log_error_errno(r, "Failed to write the list: %m");
	if (arg_legend)
		printf("\n%zu %s listed.\n", n, n == 1 ? noun : nouns);
	return 0;
}

/* The machine of a crash: its machine id, else its host name. */
static const char *machine_key(const CrashEntry *e)
{
	return *e->machine_id ? e->machine_id : e->hostname;
}

/* The number of distinct strings in v[0 ... n), which it sorts. */
static size_t count_distinct(const char **v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(char *), compare_strings);
	for (size_t i = 0; i < n; i++)
		k += i == 0 || !streq(v[i], v[i - 1]);
	return k;
}

/* How many machines the crashes come from; 0 on OOM. */
static size_t count_machines(const CrashEntry *const *v, size_t n)
{
	_cleanup_free_ const char **keys = calloc(n ?: 1, sizeof(char *));

	if (!keys)
		return 0;
	for (size_t i = 0; i < n; i++)
		keys[i] = machine_key(v[i]);
	return count_distinct(keys, n);
}

enum {
	COLUMN_TIME,
	COLUMN_ID,
	COLUMN_HOST,
	COLUMN_KIND,
	COLUMN_REASON,
	COLUMN_KERNEL,
	COLUMN_UPLOAD,
	COLUMN_MESSAGE,
	_COLUMN_MAX,
};

/*
 * The colour of a crash's severity (severity_color()). Only the summary of a
 * hardware error says its severity, and only those are parsed.
 */
static const char *crash_color(const CrashEntry *e)
{
	json_auto_t *summary = NULL;

	if (streq(e->crash.kind, "hardware-error") && e->crash.summary_len > 0)
		summary = json_loadb(e->crash.summary, e->crash.summary_len, 0, NULL);
	return severity_color(e->crash.reason,
			      json_string_value(json_object_get(summary, "severity")));
}

/*
 * HOST when the crashes come from several machines, UPLOAD for the store's own.
 * On a terminal too narrow for all, UPLOAD, KERNEL, KIND and HOST give way to
 * the message, in that order.
 */
static int print_crash_table(const CrashEntry *const *v, size_t n)
{
	static const size_t drop_order[] = {COLUMN_UPLOAD, COLUMN_KERNEL, COLUMN_KIND, COLUMN_HOST};
	static const char *const all_headers[_COLUMN_MAX] = {
		"TIME", "ID", "HOST", "KIND", "REASON", "KERNEL", "UPLOAD", "MESSAGE"};
	bool shown[_COLUMN_MAX] = {[COLUMN_TIME] = true,
				   [COLUMN_ID] = true,
				   [COLUMN_HOST] = count_machines(v, n) > 1,
				   [COLUMN_KIND... COLUMN_KERNEL] = true,
				   [COLUMN_UPLOAD] = arg_source == SOURCE_STORE,
				   [COLUMN_MESSAGE] = true};
	const char *headers[_COLUMN_MAX];
	size_t idlen = short_id_length(v, n), n_columns = 0, index[_COLUMN_MAX], drop[_COLUMN_MAX],
	       n_drop = 0;
	bool color = colors_enabled();
	_cleanup_table_ Table *t = NULL;

	for (size_t c = 0; c < _COLUMN_MAX; c++)
		if (shown[c]) {
			index[c] = n_columns;
			headers[n_columns++] = all_headers[c];
		}
	for (size_t i = 0; i < ARRAY_SIZE(drop_order); i++)
		if (shown[drop_order[i]])
			drop[n_drop++] = index[drop_order[i]];
	t = table_new(n_columns, headers);
	if (!t || table_reserve(t, n) < 0)
		return log_oom();
	table_set_drop_order(t, drop, n_drop);
	table_set_last_min(t, MESSAGE_MIN);

	for (size_t i = 0; i < n; i++) {
		char tbuf[FORMAT_TIMESTAMP_MAX], id[STORE_CRASH_ID_LEN + 1];
		const char *all_cells[_COLUMN_MAX] =
			{
				format_timestamp(tbuf, v[i]->crash.time, false),
				id,
				or_dash(crash_entry_host(v[i])),
				or_dash(v[i]->crash.kind),
				or_dash(v[i]->crash.reason),
				or_dash(v[i]->crash.kernel_version),
				or_dash(v[i]->crash.upload),
				or_dash(v[i]->crash.headline),
			},
			   *cells[_COLUMN_MAX];

		for (size_t c = 0, k = 0; c < _COLUMN_MAX; c++)
			if (shown[c])
				cells[k++] = all_cells[c];
		memcpy(id, v[i]->crash.id, idlen);
		id[idlen] = '\0';
		if (table_add_row(t, cells) < 0)
			return log_oom();
		if (color) {
			const char *c = crash_color(v[i]);

			table_set_color(t, index[COLUMN_REASON], c);
			table_set_color(t, index[COLUMN_MESSAGE], c);
		}
	}

	return print_listing(t, "crash", "crashes");
}

/*
 * Crashes with the same signature; a crash without one is a group of its own. What a listing
 * shows of it is counted here from its members, or by the source (SourceGroup).
 */
typedef struct Group {
	const CrashEntry *last; /* the newest member */
	size_t start;		/* members: by_key[start ... start + count), when counted here */
	SourceGroup counts;
} Group;

static void groups_free(Group *groups, size_t n)
{
	for (size_t i = 0; groups && i < n; i++)
		json_decref(groups[i].counts.kernels);
	free(groups);
}

static const char *group_key(const CrashEntry *e)
{
	return *e->crash.signature ? e->crash.signature : e->crash.id;
}

static int compare_by_key(const void *a, const void *b)
{
	const CrashEntry *x = *(const CrashEntry *const *)a;
	const CrashEntry *y = *(const CrashEntry *const *)b;
	int c = (*x->crash.signature != 0) - (*y->crash.signature != 0);

	if (c == 0)
		c = strcmp(group_key(x), group_key(y));
	if (c == 0)
		c = x->crash.time < y->crash.time ? -1 : x->crash.time > y->crash.time;
	return c != 0 ? c : strcmp(x->crash.id, y->crash.id);
}

/* The kernel versions of the crashes of v, distinct and sorted; NULL on OOM. */
static json_t *distinct_kernels(const CrashEntry *const *v, size_t n)
{
	_cleanup_free_ const char **k = calloc(n ?: 1, sizeof(char *));
	json_auto_t *kernels = json_array();

	if (!k || !kernels)
		return NULL;
	for (size_t i = 0; i < n; i++)
		k[i] = v[i]->crash.kernel_version;
	qsort(k, n, sizeof(char *), compare_strings);
	for (size_t i = 0; i < n; i++)
		if (*k[i] && (i == 0 || !streq(k[i], k[i - 1])) &&
		    json_array_append_new(kernels, json_string(k[i])) < 0)
			return NULL;
	return TAKE_PTR(kernels);
}

static int compare_groups(const void *a, const void *b)
{
	const Group *x = a, *y = b;

	if (x->last->crash.time != y->last->crash.time)
		return x->last->crash.time < y->last->crash.time ? -1 : 1;
	return strcmp(x->last->crash.id, y->last->crash.id);
}

/* Groups the crashes of v (sorted in place by key), ordered by their newest crash. */
static int group_by_signature(const CrashEntry **v, size_t n, Group **ret, size_t *ret_n)
{
	Group *groups = calloc(n ?: 1, sizeof(Group));
	size_t k = 0;

	if (!groups)
		return -ENOMEM;
	qsort(v, n, sizeof(*v), compare_by_key);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 &&
		    (*v[i]->crash.signature != 0) == (*groups[k - 1].last->crash.signature != 0) &&
		    streq(group_key(v[i]), group_key(groups[k - 1].last))) {
			groups[k - 1].last = v[i];
			groups[k - 1].counts.count++;
			continue;
		}
		groups[k++] = (Group){.last = v[i],
				      .start = i,
				      .counts = {.count = 1, .first = v[i]->crash.time}};
	}
	for (size_t i = 0; i < k; i++) {
		Group *g = &groups[i];

		g->counts.machines = count_machines(v + g->start, g->counts.count);
		g->counts.kernels = distinct_kernels(v + g->start, g->counts.count);
		if (!g->counts.kernels) {
			groups_free(groups, k);
			return -ENOMEM;
		}
	}
	qsort(groups, k, sizeof(Group), compare_groups);
	*ret = groups;
	*ret_n = k;
	return 0;
}

static json_t *string_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* "6.1.0-17-amd64, 6.1.0-18-amd64", or NULL for none (and on OOM). */
static char *join_kernels(json_t *kernels)
{
	char *s = NULL;
	size_t size = 0, i;
	FILE *f;
	json_t *k;

	if (json_array_size(kernels) == 0 || !(f = open_memstream(&s, &size)))
		return NULL;
	json_array_foreach(kernels, i, k)
		fprintf(f, "%s%s", i > 0 ? ", " : "", json_string_value(k));
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

enum {
	GROUP_COUNT,
	GROUP_MACHINES,
	GROUP_FIRST,
	GROUP_LAST,
	GROUP_KERNELS,
	GROUP_REASON,
	GROUP_SIGNATURE,
	GROUP_MESSAGE,
	_GROUP_MAX,
};

/*
 * On a terminal too narrow for all, the signature is cut to its first
 * SHORT_SIGNATURE characters (enough to tell signatures apart, as short ids
 * are) and the kernels to one version's width, then KERNELS, FIRST and
 * MACHINES give way to the message, in that order: 120 columns show COUNT,
 * MACHINES, LAST, REASON, SIGNATURE and the message.
 */
#define SHORT_SIGNATURE 12
#define KERNEL_VERSION_WIDTH 14

static int print_group_table(const Group *groups, size_t n)
{
	static const char *const headers[_GROUP_MAX] = {
		"COUNT", "MACHINES", "FIRST", "LAST", "KERNELS", "REASON", "SIGNATURE", "MESSAGE"};
	static const size_t drop_order[] = {GROUP_KERNELS, GROUP_FIRST, GROUP_MACHINES};
	_cleanup_table_ Table *t = table_new(_GROUP_MAX, headers);

	if (!t || table_reserve(t, n) < 0)
		return log_oom();
	table_set_align_right(t, GROUP_COUNT, true);
	table_set_align_right(t, GROUP_MACHINES, true);
	table_set_min_width(t, GROUP_SIGNATURE, SHORT_SIGNATURE);
	table_set_min_width(t, GROUP_KERNELS, KERNEL_VERSION_WIDTH);
	table_set_drop_order(t, drop_order, ARRAY_SIZE(drop_order));
	table_set_last_min(t, MESSAGE_MIN);

	for (size_t i = 0; i < n; i++) {
		char first[FORMAT_TIMESTAMP_MAX], last[FORMAT_TIMESTAMP_MAX], count[32],
			machines[32];
		const Group *g = &groups[i];
		_cleanup_free_ char *kernel_list = join_kernels(g->counts.kernels);
		const char *cells[_GROUP_MAX] = {
			count,
			machines,
			format_timestamp(first, g->counts.first, false),
			format_timestamp(last, g->last->crash.time, false),
			kernel_list,
			or_dash(g->last->crash.reason),
			or_dash(g->last->crash.signature),
			or_dash(g->last->crash.headline),
		};

		if (!kernel_list && json_array_size(g->counts.kernels) > 0)
			return log_oom();
		snprintf(count, sizeof(count), "%zu", g->counts.count);
		snprintf(machines, sizeof(machines), "%zu", g->counts.machines);
		if (table_add_row(t, cells) < 0)
			return log_oom();
		if (colors_enabled()) {
			const char *c = crash_color(g->last);

			table_set_color(t, GROUP_REASON, c);
			table_set_color(t, GROUP_MESSAGE, c);
		}
	}

	return print_listing(t, "signature", "signatures");
}

/* The ids of a group's crashes, oldest first; NULL on OOM. */
static json_t *group_ids(const Group *g, const CrashEntry *const *by_key)
{
	json_auto_t *ids = json_array();

	if (!ids)
		return NULL;
	for (size_t k = 0; k < g->counts.count; k++)
		if (json_array_append_new(ids, json_string(by_key[g->start + k]->crash.id)) < 0)
			return NULL;
	return TAKE_PTR(ids);
}

/*
 * --group --json: [{"signature", "count", "machines", "first", "last",
 * "kernels", "kind", "reason", "message", "ids"}], kind, reason and message
 * those of the newest crash.
 */
static int print_groups_json(const Group *groups, size_t n, const CrashEntry *const *by_key)
{
	json_auto_t *out = json_array();

	if (!out)
		return log_oom();
	for (size_t i = 0; i < n; i++) {
		const Group *g = &groups[i];
		json_t *ids = group_ids(g, by_key), *o;

		o = json_pack("{s:o, s:I, s:I, s:I, s:I, s:O, s:o, s:o, s:o, s:o*}", "signature",
			      string_or_null(g->last->crash.signature), "count",
			      (json_int_t)g->counts.count, "machines",
			      (json_int_t)g->counts.machines, "first", (json_int_t)g->counts.first,
			      "last", (json_int_t)g->last->crash.time, "kernels", g->counts.kernels,
			      "kind", string_or_null(g->last->crash.kind), "reason",
			      string_or_null(g->last->crash.reason), "message",
			      string_or_null(g->last->crash.headline), "ids", ids);
		if (!o || !ids || json_array_append_new(out, o) < 0)
			return log_oom();
	}
	return print_json(out);
}

static bool is_ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

/*
 * --json=short of the summaries: the index holds each as compact JSON with
 * sorted keys, which is what print_json() makes of it, but for the escaping of
 * non-ASCII characters: so only those summaries are parsed and printed again.
 * Parsing them all would take five times as long as the rest of the listing.
 */
static int print_summaries_short(const CrashEntry *const *v, size_t n)
{
	putchar('[');
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			putchar(',');
		if (is_ascii(v[i]->crash.summary, v[i]->crash.summary_len)) {
			fwrite(v[i]->crash.summary, 1, v[i]->crash.summary_len, stdout);
			continue;
		}
		json_auto_t *c = json_loadb(v[i]->crash.summary, v[i]->crash.summary_len, 0, NULL);

		if (!c)
			return log_oom();
		if (json_dumpf(c, stdout, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_SORT_KEYS) < 0)
			return log_error_errno(EIO, "Failed to write JSON output: %m");
	}
	if (fputs("]\n", stdout) == EOF || fflush(stdout) == EOF)
		return log_error_errno(EIO, "Failed to write JSON output: %m");
	return 0;
}

/* --json: the full index summaries of the selected crashes, in their order. */
static int print_summaries_json(const CrashEntry *const *v, size_t n)
{
	json_auto_t *out = NULL;

	if (arg_json == JSON_SHORT)
		return print_summaries_short(v, n);
	out = json_array();
	if (!out)
		return log_oom();
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_loadb(v[i]->crash.summary, v[i]->crash.summary_len, 0, NULL);

		/* The index line was checked when it was read: only memory can run out. */
		if (!c || json_array_append_new(out, c) < 0)
			return log_oom();
	}
	return print_json(out);
}

/*
 * Prints the newest N groups of groups[0 ... n) (ordered by their newest crash), oldest first
 * unless -r, and frees them. by_key holds their members; NULL when the source counted them
 * (not for --json, which lists every member).
 */
static int print_groups(Group *groups, size_t n, const CrashEntry *const *by_key)
{
	size_t skip = n > arg_lines ? n - arg_lines : 0, shown = n - skip;
	Group *g = groups + skip;
	int r = 0;

	if (arg_reverse)
		for (size_t i = 0; i < shown / 2; i++)
			SWAP_TWO(g[i], g[shown - 1 - i]);
	if (arg_json != JSON_OFF)
		r = print_groups_json(g, shown, by_key);
	else if (shown > 0) {
		pager_open();
		r = print_group_table(g, shown);
	}
	groups_free(groups, n);
	return r < 0 ? r : shown == 0 ? log_no_crashes() : 0;
}

/* --group: the groups of the crashes of v, which it sorts. */
static int list_groups(const CrashEntry **v, size_t n)
{
	Group *groups = NULL;
	size_t n_groups = 0;

	if (group_by_signature(v, n, &groups, &n_groups) < 0)
		return log_oom();
	return print_groups(groups, n_groups, v);
}

/*
 * --group from ClickHouse, which counts a million crashes faster than it sends them: a row a
 * group. With a match, or --json (which lists the ids of every crash), the crashes are listed
 * and grouped here, as for the other sources.
 */
static bool source_counts_groups(void)
{
	return arg_source == SOURCE_CLICKHOUSE && arg_json == JSON_OFF && !match_given();
}

static int list_source_groups(void)
{
	_cleanup_(crash_listing_freep) CrashListing *newest = NULL;
	SourceGroup *counts = NULL;
	Group *groups;
	size_t n = 0;
	int r;

	r = clickhouse_source_groups(&newest, &counts, &n);
	if (r < 0)
		return r;
	groups = calloc(n ?: 1, sizeof(Group));
	if (!groups) {
		source_groups_free(counts, n);
		return log_oom();
	}
	for (size_t i = 0; i < n; i++)
		groups[i] = (Group){.last = crash_listing_entry(newest, i), .counts = counts[i]};
	/* The kernels are the groups' now. */
	free(counts);
	qsort(groups, n, sizeof(Group), compare_groups);
	return print_groups(groups, n, NULL);
}

int verb_list(int argc, char *argv[])
{
	_cleanup_(crash_listing_freep) CrashListing *l = NULL;
	_cleanup_free_ const CrashEntry **v = NULL;
	size_t n = 0;
	int r;

	r = match_check_source();
	if (r < 0)
		return r;
	/* A listing of 10,000 crashes is a megabyte: write it in a few calls, not 300. */
	(void)setvbuf(stdout, stdout_buffer, _IOFBF, sizeof(stdout_buffer));

	if (arg_group && source_counts_groups())
		return list_source_groups();

	r = source_list(&l);
	if (r < 0)
		return r;

	v = calloc(crash_listing_size(l) ?: 1, sizeof(*v));
	if (!v)
		return log_oom();
	for (size_t i = 0; i < crash_listing_size(l); i++)
		if (crash_matches(crash_listing_entry(l, i)))
			v[n++] = crash_listing_entry(l, i);

	if (arg_group)
		return list_groups(v, n);

	/* The newest N crashes, still oldest first unless -r. */
	const CrashEntry **shown = v + (n > arg_lines ? n - arg_lines : 0);
	n = MIN(n, arg_lines);
	if (arg_reverse)
		for (size_t i = 0; i < n / 2; i++)
			SWAP_TWO(shown[i], shown[n - 1 - i]);

	/* As coredumpctl: no crash is an error (with --json, after an empty array). */
	if (arg_json != JSON_OFF)
		r = print_summaries_json(shown, n);
	else if (n > 0) {
		pager_open();
		r = print_crash_table(shown, n);
	}
	return r < 0 ? r : n == 0 ? log_no_crashes() : 0;
}
