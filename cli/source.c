// SPDX-License-Identifier: GPL-2.0-or-later
/* The source of the crashes (source.h): its options, the listing, one crash. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crash-util.h"
#include "fs-util.h"
#include "log.h"
#include "match.h"
#include "pstorectl.h"
#include "source.h"
#include "upload/export-parse.h"

SourceType arg_source = SOURCE_STORE;
const char *arg_journal_directory;
const char *arg_journal_files;
bool arg_journal_local;
const char *arg_documents_directory;
const char *arg_clickhouse_url;

const OptionSpec source_options[] = {
	{"directory", required_argument, 'D', "DIR", "The crashes in the journal files in DIR"},
	{"file", required_argument, ARG_SOURCE_FILE, "GLOB",
	 "The crashes in the journal files matching GLOB"},
	{"journal", no_argument, ARG_SOURCE_JOURNAL, NULL, "The crashes in this machine's journal"},
	{"documents", required_argument, ARG_SOURCE_DOCUMENTS, "DIR",
	 "The crash documents in DIR (http-json target)"},
	{"clickhouse", required_argument, ARG_SOURCE_CLICKHOUSE, "URL",
	 "The crashes in ClickHouse at URL (clickhouse target)"},
	{}};

int source_parse_option(int c, const char *arg)
{
	switch (c) {
	case 'D':
		arg_journal_directory = arg;
		arg_source = SOURCE_JOURNAL;
		break;
	case ARG_SOURCE_FILE:
		arg_journal_files = arg;
		arg_source = SOURCE_JOURNAL;
		break;
	case ARG_SOURCE_JOURNAL:
		arg_journal_local = true;
		arg_source = SOURCE_JOURNAL;
		break;
	case ARG_SOURCE_DOCUMENTS:
		arg_documents_directory = arg;
		arg_source = SOURCE_DOCUMENTS;
		break;
	case ARG_SOURCE_CLICKHOUSE:
		arg_clickhouse_url = arg;
		arg_source = SOURCE_CLICKHOUSE;
		break;
	default:
		return -ENOENT;
	}
	if (!!arg_journal_directory + !!arg_journal_files + arg_journal_local +
		    !!arg_documents_directory + !!arg_clickhouse_url >
	    1)
		return log_error_errno(EINVAL, "Give one source of crashes: -D/--directory=DIR, "
					       "--file=GLOB, --journal, --documents=DIR or "
					       "--clickhouse=URL.");
	return 1;
}

bool source_verb_reads(const char *verb)
{
	static const char *const readers[] = {"list", "show", "dmesg", "export"};

	for (size_t i = 0; i < ARRAY_SIZE(readers); i++)
		if (streq(verb, readers[i]))
			return true;
	return false;
}

int source_check_verb(const char *verb)
{
	if (arg_source == SOURCE_STORE || source_verb_reads(verb) || streq(verb, "help"))
		return 0;
	return log_error_errno(EINVAL,
			       "'%s' works on the store only; -D, --file, --journal, "
			       "--documents and --clickhouse are for list, show, dmesg and "
			       "export.",
			       verb);
}

size_t crash_listing_size(const CrashListing *l)
{
	return l->n;
}

const CrashEntry *crash_listing_entry(const CrashListing *l, size_t i)
{
	return &l->entries[i];
}

CrashListing *crash_listing_free(CrashListing *l)
{
	if (!l)
		return NULL;
	free(l->entries);
	store_listing_free(l->store);
	json_decref(l->crashes);
	free(l);
	return NULL;
}

int crash_listing_append(CrashListing *l, const CrashEntry *e)
{
	if (l->n == l->allocated) {
		size_t n = MAX(l->allocated * 2, 64);
		CrashEntry *v = reallocarray(l->entries, n, sizeof(CrashEntry));

		if (!v)
			return -ENOMEM;
		l->entries = v;
		l->allocated = n;
	}
	l->entries[l->n++] = *e;
	return 0;
}

static const char *string_or_empty(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

int crash_listing_add(CrashListing *l, json_t *crash, const char *location)
{
	json_auto_t *summary = NULL, *holder = NULL;
	_cleanup_free_ char *text = NULL;
	json_t *s;
	int r;

	r = store_crash_summary(crash, &summary);
	if (r < 0)
		return r;
	/* Where from: the fields the journal-remote target sends as _MACHINE_ID and _HOSTNAME. */
	if (json_object_set(summary, "machine_id",
			    json_object_get(crash, "machine_id") ?: json_null()) < 0 ||
	    (json_object_get(crash, "hostname") &&
	     json_object_set(summary, "hostname", json_object_get(crash, "hostname")) < 0))
		return -ENOMEM;
	/*
	 * Only list --json prints it, and the matches on the analysis read it: making it is a
	 * third of the time of a listing.
	 */
	if (arg_json != JSON_OFF || match_needs_summary()) {
		text = json_dumps(summary, JSON_COMPACT | JSON_SORT_KEYS);
		if (!text)
			return -ENOMEM;
	}
	holder = json_pack("{s:O, s:s, s:s}", "summary", summary, "text", text ?: "", "location",
			   location ?: "");
	if (!holder || json_array_append(l->crashes, holder) < 0)
		return -ENOMEM;

	s = json_object_get(holder, "summary");
	return crash_listing_append(
		l,
		&(CrashEntry){
			.crash =
				{
					.id = string_or_empty(s, "id"),
					.time = crash_time_usec(s, "time"),
					.kind = string_or_empty(s, "kind"),
					.reason = string_or_empty(s, "reason"),
					.kernel_version = string_or_empty(s, "kernel_version"),
					.signature = string_or_empty(s, "signature"),
					.upload = "",
					.headline = crash_string(s, "message")
							    ?: string_or_empty(s, "function"),
					.summary =
						json_string_value(json_object_get(holder, "text")),
					.summary_len =
						json_string_length(json_object_get(holder, "text")),
				},
			.machine_id = string_or_empty(s, "machine_id"),
			.hostname = string_or_empty(s, "hostname"),
			.location = string_or_empty(holder, "location"),
		});
}

/* By id, machine and document: 0 for the same crash sent twice to the journal. */
static int compare_crashes(const CrashEntry *x, const CrashEntry *y)
{
	int c = strcmp(x->crash.id, y->crash.id);

	if (c == 0)
		c = strcmp(x->machine_id, y->machine_id);
	return c != 0 ? c : strcmp(x->location, y->location);
}

static int compare_entries(const void *a, const void *b)
{
	const CrashEntry *x = a, *y = b;

	if (x->crash.time != y->crash.time)
		return x->crash.time < y->crash.time ? -1 : 1;
	return compare_crashes(x, y);
}

/*
 * Oldest first. A crash sent twice to the journal (pstorectl upload --force) is one
 * crash: the same id from the same machine is listed once. Two documents are two crashes.
 */
static void crash_listing_sort(CrashListing *l)
{
	size_t k = 0;

	qsort(l->entries, l->n, sizeof(CrashEntry), compare_entries);
	for (size_t i = 0; i < l->n; i++) {
		if (k > 0 && compare_entries(&l->entries[k - 1], &l->entries[i]) == 0)
			k--;
		l->entries[k++] = l->entries[i];
	}
	l->n = k;
}

int source_list(CrashListing **ret)
{
	_cleanup_(crash_listing_freep) CrashListing *l = calloc(1, sizeof(CrashListing));
	int r;

	if (!l || !(l->crashes = json_array()))
		return log_oom();
	switch (arg_source) {
	case SOURCE_STORE:
		r = store_source_list(l);
		break;
	case SOURCE_JOURNAL:
		r = journal_source_list(l);
		break;
	case SOURCE_CLICKHOUSE:
		r = clickhouse_source_list(l);
		break;
	default:
		r = documents_source_list(l);
	}
	if (r < 0)
		return r;
	if (arg_source != SOURCE_STORE)
		crash_listing_sort(l);
	*ret = TAKE_PTR(l);
	return 0;
}

const char *crash_entry_host(const CrashEntry *e)
{
	return *e->hostname ? e->hostname : e->machine_id;
}

static bool crash_id_matches(const CrashEntry *e, const char *prefix)
{
	return strncasecmp(e->crash.id, prefix, strlen(prefix)) == 0;
}

/*
 * The one crash of the listing whose id starts with prefix; logs why not. An id is the
 * sender's claim: the same one from two machines, or in two documents, is two crashes,
 * one of which may be forged, so that neither is picked.
 */
static int find_crash(const CrashListing *l, const char *prefix, const CrashEntry **ret)
{
	const CrashEntry *found = NULL;
	bool ambiguous = false;

	for (size_t i = 0; i < l->n; i++) {
		if (!crash_id_matches(&l->entries[i], prefix))
			continue;
		if (found && compare_crashes(found, &l->entries[i]) != 0)
			ambiguous = true;
		found = found ?: &l->entries[i];
	}
	if (!found)
		return log_error_errno(ENOENT,
				       "No crash with id '%s' in this source: see 'pstorectl list' "
				       "with the same source for the ids.",
				       prefix);
	if (ambiguous) {
		log_error("Crash id '%s' is ambiguous; give more of it, or read only the files "
			  "of one machine (-D, --file=, --documents=):",
			  prefix);
		for (size_t i = 0; i < l->n; i++)
			if (crash_id_matches(&l->entries[i], prefix))
				log_error("  %s  %s%s%s", l->entries[i].crash.id,
					  crash_entry_host(&l->entries[i]),
					  *l->entries[i].location ? "  " : "",
					  l->entries[i].location);
		return -ENOTUNIQ;
	}
	*ret = found;
	return 0;
}

/* The newest crash of the listing that the matches (match.h) select; logs why none. */
static int find_newest_crash(const CrashListing *l, const CrashEntry **ret)
{
	for (size_t i = l->n; i > 0; i--)
		if (crash_matches(&l->entries[i - 1])) {
			*ret = &l->entries[i - 1];
			return 0;
		}
	return log_no_crashes();
}

int source_open_crash(const char *prefix, SourceCrash **ret)
{
	_cleanup_(source_crash_freep) SourceCrash *c = calloc(1, sizeof(SourceCrash));
	_cleanup_(crash_listing_freep) CrashListing *l = NULL;
	const CrashEntry *e = NULL;
	int r;

	if (!c)
		return log_oom();
	if (prefix && match_given())
		return log_error_errno(EINVAL, "Give a crash id or matches (--since=, --reason=, "
					       "...), not both: the matches choose the crash.");
	r = match_check_source();
	if (r < 0)
		return r;
	if (arg_source == SOURCE_STORE && prefix)
		r = store_source_open_crash(prefix, c);
	else {
		r = source_list(&l);
		if (r < 0)
			return r;
		r = prefix ? find_crash(l, prefix, &e) : find_newest_crash(l, &e);
		if (r < 0)
			return r;
		switch (arg_source) {
		case SOURCE_STORE:
			r = store_source_open_crash(e->crash.id, c);
			break;
		case SOURCE_JOURNAL:
			r = journal_source_open_crash(e, c);
			break;
		case SOURCE_CLICKHOUSE:
			r = clickhouse_source_open_crash(e, c);
			break;
		default:
			r = documents_source_open_crash(e, c);
		}
	}
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

SourceCrash *source_crash_free(SourceCrash *c)
{
	if (!c)
		return NULL;
	free(c->id);
	json_decref(c->crash);
	free(c->location);
	store_free(c->store);
	json_decref(c->document);
	free(c);
	return NULL;
}

json_t *source_crash_json(SourceCrash *c)
{
	if (!c->crash) {
		upload_export_strip(c->document);
		c->crash = TAKE_PTR(c->document);
	}
	return c->crash;
}

int source_crash_dmesg(SourceCrash *c, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *path = NULL;
	json_t *dmesg;
	char *copy;
	int r;

	if (c->store) {
		r = store_crash_path(c->store, c->id, "dmesg.txt", &path);
		if (r < 0)
			return r;
		return read_full_file_at(AT_FDCWD, path, max, ret, ret_len);
	}
	dmesg = json_object_get(c->document, "dmesg");
	if (!json_is_string(dmesg))
		return -ENOENT;
	if (json_string_length(dmesg) > max)
		return -EFBIG;
	/* The log may hold NUL bytes, which JSON keeps as \u0000. */
	copy = malloc(json_string_length(dmesg) + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, json_string_value(dmesg), json_string_length(dmesg) + 1);
	*ret = copy;
	*ret_len = json_string_length(dmesg);
	return 0;
}

int source_crash_export(SourceCrash *c, json_t **ret)
{
	if (c->store)
		return upload_export_json(c->store, c->id, ret);
	*ret = json_incref(c->document);
	return 0;
}
