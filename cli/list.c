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

static bool field_matches(json_t *summary, const char *key, const char *want)
{
	const char *v;

	if (!want)
		return true;
	v = crash_string(summary, key);
	return v && strcasecmp(v, want) == 0;
}

static bool crash_matches(json_t *summary)
{
	usec_t t = crash_time_usec(summary, "time");

	return t >= arg_since && t <= arg_until && field_matches(summary, "reason", arg_reason) &&
	       field_matches(summary, "kind", arg_kind) &&
	       field_matches(summary, "signature", arg_signature);
}

/* What a crash says about itself in one line: the panic/oops message, else the function. */
static const char *crash_headline(json_t *summary)
{
	return crash_string(summary, "message") ?: crash_string(summary, "function");
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The shortest prefix length that tells every listed id apart (ids arrive sorted by time). */
static size_t short_id_length(json_t *summaries)
{
	size_t n = json_array_size(summaries), len = SHORT_ID_MIN;
	_cleanup_free_ const char **ids = calloc(n ?: 1, sizeof(char *));

	if (!ids)
		return STORE_CRASH_ID_LEN;
	for (size_t i = 0; i < n; i++)
		ids[i] = crash_string(json_array_get(summaries, i), "id") ?: "";
	qsort(ids, n, sizeof(char *), compare_strings);
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;

		while (ids[i][k] && ids[i][k] == ids[i - 1][k])
			k++;
		len = MAX(len, k + 1);
	}
	return MIN(len, STORE_CRASH_ID_LEN);
}

static int print_crash_table(json_t *summaries)
{
	static const char *const headers[] = {"TIME",	"ID",	  "KIND",   "REASON",
					      "KERNEL", "UPLOAD", "MESSAGE"};
	_cleanup_table_ Table *t = table_new(ARRAY_SIZE(headers), headers);
	size_t idlen = short_id_length(summaries), i;
	json_t *c;
	int r;

	if (!t)
		return log_oom();

	json_array_foreach(summaries, i, c) {
		char tbuf[FORMAT_TIMESTAMP_MAX], id[STORE_CRASH_ID_LEN + 1];
		const char *cells[ARRAY_SIZE(headers)];

		snprintf(id, sizeof(id), "%.*s", (int)idlen, crash_string(c, "id") ?: "-");
		cells[0] = format_timestamp(tbuf, crash_time_usec(c, "time"), false);
		cells[1] = id;
		cells[2] = crash_string(c, "kind");
		cells[3] = crash_string(c, "reason");
		cells[4] = crash_string(c, "kernel_version");
		cells[5] = upload_state_summary(json_object_get(c, "upload"));
		cells[6] = crash_headline(c);
		if (table_add_row(t, cells) < 0)
			return log_oom();
	}

	r = table_print(t, stdout, arg_legend, terminal_width());
	if (r < 0)
		return log_error_errno(r, "Failed to write the list: %m");
	if (arg_legend)
		printf("\n%zu crash%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "es");
	return 0;
}

static int group_key(json_t *summary, char **ret)
{
	const char *sig = crash_string(summary, "signature");

	/* A crash without a signature stays alone: its key is its id. */
	return asprintf(ret, "%s%s", sig ? "s:" : "i:", sig ?: crash_string(summary, "id") ?: "") < 0
		       ? -ENOMEM
		       : 0;
}

static int compare_group_last(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "last"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "last"));

	return x < y ? -1 : x > y;
}

/*
 * Folds crashes by signature into {"signature", "count", "first", "last",
 * "kind", "reason", "message", "ids"} (kind, reason and message of the
 * newest), ordered by their last crash, newest last.
 */
static int group_by_signature(json_t *summaries, json_t **ret)
{
	json_auto_t *by_key = json_object(), *groups = json_array();
	_cleanup_free_ json_t **v = NULL;
	const char *key;
	size_t i, n = 0;
	json_t *c, *g;

	if (!by_key || !groups)
		return -ENOMEM;

	/* Summaries come oldest first, so each crash is the newest of its group so far. */
	json_array_foreach(summaries, i, c) {
		_cleanup_free_ char *k = NULL;
		json_int_t time = json_integer_value(json_object_get(c, "time"));
		const char *headline = crash_headline(c);

		if (group_key(c, &k) < 0)
			return -ENOMEM;
		g = json_object_get(by_key, k);
		if (!g) {
			g = json_pack("{s:O, s:I, s:I, s:[]}", "signature",
				      json_object_get(c, "signature") ?: json_null(), "count",
				      (json_int_t)0, "first", time, "ids");
			if (!g || json_object_set_new(by_key, k, g) < 0)
				return -ENOMEM;
		}
		if (json_object_set_new(
			    g, "count",
			    json_integer(json_integer_value(json_object_get(g, "count")) + 1)) <
			    0 ||
		    json_object_set_new(g, "last", json_integer(time)) < 0 ||
		    json_object_set(g, "kind", json_object_get(c, "kind") ?: json_null()) < 0 ||
		    json_object_set(g, "reason", json_object_get(c, "reason") ?: json_null()) < 0 ||
		    json_object_set_new(g, "message",
					headline ? json_string(headline) : json_null()) < 0 ||
		    json_array_append(json_object_get(g, "ids"), json_object_get(c, "id")) < 0)
			return -ENOMEM;
	}

	v = calloc(json_object_size(by_key) ?: 1, sizeof(json_t *));
	if (!v)
		return -ENOMEM;
	json_object_foreach(by_key, key, g)
		v[n++] = g;
	qsort(v, n, sizeof(json_t *), compare_group_last);
	for (i = 0; i < n; i++)
		if (json_array_append(groups, v[i]) < 0)
			return -ENOMEM;

	*ret = TAKE_PTR(groups);
	return 0;
}

static int print_group_table(json_t *groups)
{
	static const char *const headers[] = {"COUNT",	"FIRST",     "LAST",
					      "REASON", "SIGNATURE", "MESSAGE"};
	_cleanup_table_ Table *t = table_new(ARRAY_SIZE(headers), headers);
	json_t *g;
	size_t i;
	int r;

	if (!t)
		return log_oom();
	table_set_align_right(t, 0, true);

	json_array_foreach(groups, i, g) {
		char first[FORMAT_TIMESTAMP_MAX], last[FORMAT_TIMESTAMP_MAX], count[32];
		const char *cells[ARRAY_SIZE(headers)];

		snprintf(count, sizeof(count), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(g, "count")));
		cells[0] = count;
		cells[1] = format_timestamp(first, crash_time_usec(g, "first"), false);
		cells[2] = format_timestamp(last, crash_time_usec(g, "last"), false);
		cells[3] = crash_string(g, "reason");
		cells[4] = crash_string(g, "signature");
		cells[5] = crash_string(g, "message");
		if (table_add_row(t, cells) < 0)
			return log_oom();
	}

	r = table_print(t, stdout, arg_legend, terminal_width());
	if (r < 0)
		return log_error_errno(r, "Failed to write the list: %m");
	if (arg_legend)
		printf("\n%zu signature%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
	return 0;
}

/* The last n entries of a. */
static int newest(json_t *a, size_t n, json_t **ret)
{
	size_t size = json_array_size(a);
	json_t *v = json_array();

	if (!v)
		return -ENOMEM;
	for (size_t i = size > n ? size - n : 0; i < size; i++)
		if (json_array_append(v, json_array_get(a, i)) < 0) {
			json_decref(v);
			return -ENOMEM;
		}
	*ret = v;
	return 0;
}

int verb_list(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *all = NULL, *selected = json_array(), *groups = NULL, *shown = NULL;
	json_t *c;
	size_t i;
	int r;

	if (!selected)
		return log_oom();
	if (arg_since > arg_until)
		return log_error_errno(EINVAL, "--since= is after --until=: nothing can match.");

	r = open_store(false, &s);
	if (r < 0)
		return r;
	r = store_list(s, &all);
	if (r < 0)
		return log_store_error(r, arg_store_dir);

	json_array_foreach(all, i, c)
		if (crash_matches(c) && json_array_append(selected, c) < 0)
			return log_oom();

	if (arg_group && group_by_signature(selected, &groups) < 0)
		return log_oom();
	if (newest(arg_group ? groups : selected, arg_lines, &shown) < 0)
		return log_oom();

	if (arg_json != JSON_OFF)
		return print_json(shown);

	if (json_array_size(shown) == 0) {
		if (arg_legend)
			log_info("No crashes found.");
		return 0;
	}
	pager_open();
	return arg_group ? print_group_table(shown) : print_crash_table(shown);
}
