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
#include "pager.h"
#include "parse-util.h"
#include "pstorectl.h"
#include "table.h"

/* Short ids are at least this long, and longer where two listed ids share a longer prefix. */
#define SHORT_ID_MIN 8

/* stdout's buffer, until the exit flushes it (glibc's setvbuf() takes no size without one). */
static char stdout_buffer[64 * 1024];

static usec_t arg_since, arg_until = USEC_INFINITY;
static const char *arg_reason, *arg_kind, *arg_signature;
static size_t arg_lines = SIZE_MAX;
static bool arg_group;

enum {
	ARG_REASON = ARG_VERB_BASE,
	ARG_KIND,
	ARG_SIGNATURE,
	ARG_GROUP,
};

static int parse_time_option(const char *name, const char *arg, usec_t *ret)
{
	int r = parse_timestamp(arg, now_usec(), ret);

	if (r < 0)
		return log_error_errno(r,
				       "Invalid %s time '%s': %m (use e.g. \"2026-12-01 10:00\", "
				       "\"yesterday\", \"-2h\" or \"1 hour ago\", see "
				       "systemd.time(7)).",
				       name, arg);
	return 0;
}

static int handle_list_option(int c, const char *arg)
{
	uint64_t n;

	switch (c) {
	case 'S':
		return parse_time_option("--since", arg, &arg_since);
	case 'U':
		return parse_time_option("--until", arg, &arg_until);
	case ARG_REASON:
		arg_reason = arg;
		return 0;
	case ARG_KIND:
		arg_kind = arg;
		return 0;
	case ARG_SIGNATURE:
		arg_signature = arg;
		return 0;
	case 'n':
		if (parse_uint64(arg, &n) < 0 || n > SIZE_MAX)
			return log_error_errno(
				EINVAL,
				"Invalid number of crashes '%s' for -n/--lines: give a "
				"number, e.g. -n 10.",
				arg);
		arg_lines = n;
		return 0;
	case ARG_GROUP:
		arg_group = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static const struct option list_option_table[] = {
	{"since", required_argument, NULL, 'S'},
	{"until", required_argument, NULL, 'U'},
	{"reason", required_argument, NULL, ARG_REASON},
	{"kind", required_argument, NULL, ARG_KIND},
	{"signature", required_argument, NULL, ARG_SIGNATURE},
	{"lines", required_argument, NULL, 'n'},
	{"group", no_argument, NULL, ARG_GROUP},
	{}};

const VerbOptions list_options = {list_option_table, "S:U:n:", handle_list_option};

static bool field_matches(const char *value, const char *want)
{
	return !want || strcasecmp(value, want) == 0;
}

static bool crash_matches(const StoreListEntry *e)
{
	return e->time >= arg_since && e->time <= arg_until &&
	       field_matches(e->reason, arg_reason) && field_matches(e->kind, arg_kind) &&
	       field_matches(e->signature, arg_signature);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : NULL;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The shortest prefix length that tells every listed id apart, at least SHORT_ID_MIN. */
static size_t short_id_length(const StoreListEntry *const *v, size_t n)
{
	_cleanup_free_ const char **ids = calloc(n ?: 1, sizeof(char *));
	size_t len = SHORT_ID_MIN;

	if (!ids)
		return STORE_CRASH_ID_LEN;
	for (size_t i = 0; i < n; i++)
		ids[i] = v[i]->id;
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

static int print_crash_table(const StoreListEntry *const *v, size_t n)
{
	static const char *const headers[] = {"TIME",	"ID",	  "KIND",   "REASON",
					      "KERNEL", "UPLOAD", "MESSAGE"};
	_cleanup_table_ Table *t = table_new(ARRAY_SIZE(headers), headers);
	size_t idlen = short_id_length(v, n);

	if (!t || table_reserve(t, n) < 0)
		return log_oom();

	for (size_t i = 0; i < n; i++) {
		char tbuf[FORMAT_TIMESTAMP_MAX], id[STORE_CRASH_ID_LEN + 1];
		const char *cells[ARRAY_SIZE(headers)] = {
			format_timestamp(tbuf, v[i]->time, false),
			id,
			or_dash(v[i]->kind),
			or_dash(v[i]->reason),
			or_dash(v[i]->kernel_version),
			or_dash(v[i]->upload),
			or_dash(v[i]->headline),
		};

		memcpy(id, v[i]->id, idlen);
		id[idlen] = '\0';
		if (table_add_row(t, cells) < 0)
			return log_oom();
	}

	return print_listing(t, "crash", "crashes");
}

/* Crashes with the same signature; a crash without one is a group of its own. */
typedef struct Group {
	const StoreListEntry *first, *last; /* the oldest and the newest member */
	size_t start, count;		    /* members: by_key[start ... start + count) */
} Group;

static const char *group_key(const StoreListEntry *e)
{
	return *e->signature ? e->signature : e->id;
}

static int compare_by_key(const void *a, const void *b)
{
	const StoreListEntry *x = *(const StoreListEntry *const *)a;
	const StoreListEntry *y = *(const StoreListEntry *const *)b;
	int c = (*x->signature != 0) - (*y->signature != 0);

	if (c == 0)
		c = strcmp(group_key(x), group_key(y));
	if (c == 0)
		c = x->time < y->time ? -1 : x->time > y->time;
	return c != 0 ? c : strcmp(x->id, y->id);
}

static int compare_groups(const void *a, const void *b)
{
	const Group *x = a, *y = b;

	if (x->last->time != y->last->time)
		return x->last->time < y->last->time ? -1 : 1;
	return strcmp(x->last->id, y->last->id);
}

/* Groups the crashes of v (sorted in place by key), ordered by their newest crash. */
static int group_by_signature(const StoreListEntry **v, size_t n, Group **ret, size_t *ret_n)
{
	_cleanup_free_ Group *groups = calloc(n ?: 1, sizeof(Group));
	size_t k = 0;

	if (!groups)
		return -ENOMEM;
	qsort(v, n, sizeof(*v), compare_by_key);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && (*v[i]->signature != 0) == (*groups[k - 1].last->signature != 0) &&
		    streq(group_key(v[i]), group_key(groups[k - 1].last))) {
			groups[k - 1].last = v[i];
			groups[k - 1].count++;
			continue;
		}
		groups[k++] = (Group){.first = v[i], .last = v[i], .start = i, .count = 1};
	}
	qsort(groups, k, sizeof(Group), compare_groups);
	*ret = TAKE_PTR(groups);
	*ret_n = k;
	return 0;
}

static int print_group_table(const Group *groups, size_t n)
{
	static const char *const headers[] = {"COUNT",	"FIRST",     "LAST",
					      "REASON", "SIGNATURE", "MESSAGE"};
	_cleanup_table_ Table *t = table_new(ARRAY_SIZE(headers), headers);

	if (!t || table_reserve(t, n) < 0)
		return log_oom();
	table_set_align_right(t, 0, true);

	for (size_t i = 0; i < n; i++) {
		char first[FORMAT_TIMESTAMP_MAX], last[FORMAT_TIMESTAMP_MAX], count[32];
		const Group *g = &groups[i];
		const char *cells[ARRAY_SIZE(headers)] = {
			count,
			format_timestamp(first, g->first->time, false),
			format_timestamp(last, g->last->time, false),
			or_dash(g->last->reason),
			or_dash(g->last->signature),
			or_dash(g->last->headline),
		};

		snprintf(count, sizeof(count), "%zu", g->count);
		if (table_add_row(t, cells) < 0)
			return log_oom();
	}

	return print_listing(t, "signature", "signatures");
}

static json_t *string_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/*
 * --group --json: [{"signature", "count", "first", "last", "kind", "reason",
 * "message", "ids"}], kind, reason and message those of the newest crash.
 */
static int print_groups_json(const Group *groups, size_t n, const StoreListEntry *const *by_key)
{
	json_auto_t *out = json_array();

	if (!out)
		return log_oom();
	for (size_t i = 0; i < n; i++) {
		const Group *g = &groups[i];
		json_t *ids = json_array(), *o;

		for (size_t k = 0; ids && k < g->count; k++)
			if (json_array_append_new(ids, json_string(by_key[g->start + k]->id)) < 0) {
				json_decref(ids);
				ids = NULL;
			}
		o = json_pack("{s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:o*}", "signature",
			      string_or_null(g->last->signature), "count", (json_int_t)g->count,
			      "first", (json_int_t)g->first->time, "last",
			      (json_int_t)g->last->time, "kind", string_or_null(g->last->kind),
			      "reason", string_or_null(g->last->reason), "message",
			      string_or_null(g->last->headline), "ids", ids);
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
static int print_summaries_short(const StoreListEntry *const *v, size_t n)
{
	putchar('[');
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			putchar(',');
		if (is_ascii(v[i]->summary, v[i]->summary_len)) {
			fwrite(v[i]->summary, 1, v[i]->summary_len, stdout);
			continue;
		}
		json_auto_t *c = json_loadb(v[i]->summary, v[i]->summary_len, 0, NULL);

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
static int print_summaries_json(const StoreListEntry *const *v, size_t n)
{
	json_auto_t *out = NULL;

	if (arg_json == JSON_SHORT)
		return print_summaries_short(v, n);
	out = json_array();
	if (!out)
		return log_oom();
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_loadb(v[i]->summary, v[i]->summary_len, 0, NULL);

		/* The index line was checked when it was read: only memory can run out. */
		if (!c || json_array_append_new(out, c) < 0)
			return log_oom();
	}
	return print_json(out);
}

/*
 * The listing came from the crash directories, as the index is corrupt: rebuilt
 * here when the store is writable to us, else by the next writer.
 */
static void warn_corrupt_index(void)
{
	_cleanup_(store_freep) Store *s = NULL;
	int r;

	r = store_open(arg_store_dir, 0, &s);
	if (r >= 0)
		r = store_rebuild_index(s);
	if (r < 0)
		log_warning_errno(r,
				  "%s/index is corrupt: listed from the crash directories instead; "
				  "cannot rebuild it (%m): run 'pstorectl list' as root to do so.",
				  arg_store_dir);
	else
		log_warning("%s/index was corrupt: listed from the crash directories, and "
			    "rebuilt from them.",
			    arg_store_dir);
}

int verb_list(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_(store_listing_freep) StoreListing *l = NULL;
	_cleanup_free_ const StoreListEntry **v = NULL;
	_cleanup_free_ Group *groups = NULL;
	size_t n = 0, n_groups = 0;
	int r;

	if (arg_since > arg_until)
		return log_error_errno(EINVAL, "--since= is after --until=: nothing can match.");
	/* A listing of 10,000 crashes is a megabyte: write it in a few calls, not 300. */
	(void)setvbuf(stdout, stdout_buffer, _IOFBF, sizeof(stdout_buffer));

	r = open_store(arg_store_dir, false, &s);
	if (r < 0)
		return r;
	r = store_list_entries(s, &l);
	if (r < 0)
		return log_store_error(r, arg_store_dir);
	if (r > 0)
		warn_corrupt_index();

	v = calloc(store_listing_size(l) ?: 1, sizeof(*v));
	if (!v)
		return log_oom();
	for (size_t i = 0; i < store_listing_size(l); i++)
		if (crash_matches(store_listing_entry(l, i)))
			v[n++] = store_listing_entry(l, i);

	if (arg_group) {
		if (group_by_signature(v, n, &groups, &n_groups) < 0)
			return log_oom();
		/* The newest N groups. */
		if (n_groups > arg_lines) {
			memmove(groups, groups + n_groups - arg_lines, arg_lines * sizeof(Group));
			n_groups = arg_lines;
		}
		if (arg_json != JSON_OFF)
			return print_groups_json(groups, n_groups, v);
		if (n_groups == 0)
			goto none;
		pager_open();
		return print_group_table(groups, n_groups);
	}

	/* The newest N crashes, still oldest first. */
	const StoreListEntry *const *shown = v + (n > arg_lines ? n - arg_lines : 0);
	n = MIN(n, arg_lines);

	if (arg_json != JSON_OFF)
		return print_summaries_json(shown, n);
	if (n == 0)
		goto none;
	pager_open();
	return print_crash_table(shown, n);

none:
	if (arg_legend)
		log_info("No crashes found.");
	return 0;
}
