// SPDX-License-Identifier: GPL-2.0-or-later
/* The store as a source of crashes (source.h): its index, and crash.json. */

#include <errno.h>
#include <stdlib.h>

#include "crash-util.h"
#include "log.h"
#include "match.h"
#include "pstorectl.h"
#include "source.h"

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

/*
 * The summary of a crash from an index written before summaries held the
 * process ("comm"), made again from its crash.json for --comm= to see it. The
 * text lives in l->crashes; a crash.json that cannot be read leaves the entry
 * as the index has it.
 */
static int summary_add_comm(CrashListing *l, Store *s, CrashEntry *e)
{
	json_auto_t *summary = json_loadb(e->crash.summary, e->crash.summary_len, 0, NULL);
	json_auto_t *crash = NULL, *fresh = NULL, *holder = NULL;
	_cleanup_free_ char *text = NULL;
	json_t *t;

	if (!summary)
		return -ENOMEM;
	if (json_object_get(summary, "comm") || store_load_crash(s, e->crash.id, &crash) < 0 ||
	    !json_object_get(json_object_get(crash, "analysis"), "comm"))
		return 0;
	if (store_crash_summary(crash, &fresh) < 0 ||
	    !(text = json_dumps(fresh, JSON_COMPACT | JSON_SORT_KEYS)) ||
	    !(holder = json_pack("{s:s}", "text", text)) ||
	    json_array_append(l->crashes, holder) < 0)
		return -ENOMEM;
	t = json_object_get(holder, "text");
	e->crash.summary = json_string_value(t);
	e->crash.summary_len = json_string_length(t);
	return 0;
}

int store_source_list(CrashListing *l)
{
	_cleanup_(store_freep) Store *s = NULL;
	size_t n;
	int r;

	r = open_store(arg_store_dir, false, &s);
	if (r < 0)
		return r;
	r = store_list_entries(s, &l->store);
	if (r < 0)
		return log_store_error(r, arg_store_dir);
	if (r > 0)
		warn_corrupt_index();

	n = store_listing_size(l->store);
	l->entries = calloc(n ?: 1, sizeof(CrashEntry));
	if (!l->entries)
		return log_oom();
	l->allocated = n;
	for (size_t i = 0; i < n; i++)
		l->entries[l->n++] = (CrashEntry){
			.crash = *store_listing_entry(l->store, i),
			.machine_id = "",
			.hostname = "",
			.location = "",
		};
	for (size_t i = 0; match_needs_comm() && i < l->n; i++)
		if (summary_add_comm(l, s, &l->entries[i]) < 0)
			return log_oom();
	return 0;
}

int store_source_open_crash(const char *prefix, SourceCrash *c)
{
	int r;

	r = open_crash(arg_store_dir, prefix, &c->store, &c->id);
	if (r < 0)
		return r;
	r = store_load_crash(c->store, c->id, &c->crash);
	if (r < 0)
		return log_store_error(r, c->id);
	r = store_crash_path(c->store, c->id, NULL, &c->location);
	if (r < 0)
		return log_oom();
	return 0;
}
