// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * store_list_entries(): the listing read from the index's columns, checked
 * against what store_list() says, and through the index's repairs.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "sha256-util.h"
#include "store/store.h"

static char dir[] = "/tmp/test-store-listing-XXXXXX";
static char store_dir[sizeof(dir) + 8], index_path[sizeof(dir) + 16];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(store_dir, sizeof(store_dir), "%s/store", dir);
	snprintf(index_path, sizeof(index_path), "%s/index", store_dir);
}

static void teardown(void)
{
	cr_assert_eq(rm_rf_at(AT_FDCWD, dir), 0);
}

TestSuite(listing, .init = setup, .fini = teardown);

/* Adds a crash; message may hold tabs and newlines, which the listing shows as spaces. */
static void add_crash(Store *s, const char *content, json_int_t time, const char *message,
		      const char *upload_state, char id[static STORE_CRASH_ID_LEN + 1])
{
	_cleanup_(store_txn_freep) StoreTxn *t = NULL;
	json_auto_t *crash = NULL;
	char hex[SHA256_HEX_SIZE];
	const char *digests[] = {hex};

	cr_assert_eq(sha256_hex(content, strlen(content), hex), 0);
	cr_assert_eq(store_crash_id_from_digests(digests, 1, id), 0);
	cr_assert_eq(store_txn_begin(s, id, &t), 0);
	cr_assert_eq(store_txn_write_file(t, "records/dmesg-erst-1", content, strlen(content)), 0);
	crash = json_pack("{s:i, s:s, s:s, s:I, s:{s:s, s:s, s:s}, s:[{s:s}]}", "schema_version",
			  STORE_SCHEMA_VERSION, "kind", "kernel-crash", "reason", "oops", "time",
			  time, "analysis", "signature", "sig-1", "function", "do_crash",
			  "kernel_version", "6.1.0-test", "records", "name", "dmesg-erst-1");
	cr_assert_not_null(crash);
	if (message)
		cr_assert_eq(json_object_set_new(json_object_get(crash, "analysis"), "message",
						 json_string(message)),
			     0);
	if (upload_state)
		cr_assert_eq(json_object_set_new(
				     crash, "upload",
				     json_pack("{s:{s:s}}", "collector", "state", upload_state)),
			     0);
	cr_assert_eq(store_txn_commit(t, crash), 0);
}

static StoreListing *listing(Store *s)
{
	StoreListing *l = NULL;

	cr_assert_eq(store_list_entries(s, &l), 0);
	return l;
}

Test(listing, empty_store)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_(store_listing_freep) StoreListing *l = NULL;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	l = listing(s);
	cr_assert_eq(store_listing_size(l), 0);
	cr_assert_null(store_listing_entry(l, 0));
}

Test(listing, columns_match_the_summaries)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_(store_listing_freep) StoreListing *l = NULL;
	json_auto_t *summaries = NULL;
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1], c[STORE_CRASH_ID_LEN + 1];
	const StoreListEntry *e;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "b", 2000, "BUG:\tbad\nthing", "pending", b);
	add_crash(s, "a", 1000, NULL, NULL, a);
	add_crash(s, "c", 3000, "fine", "sent", c);

	l = listing(s);
	cr_assert_eq(store_list(s, &summaries), 0);
	cr_assert_eq(store_listing_size(l), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *sum = json_array_get(summaries, i);

		e = store_listing_entry(l, i);
		cr_assert_str_eq(e->id, json_string_value(json_object_get(sum, "id")));
		cr_assert_eq((json_int_t)e->time, json_integer_value(json_object_get(sum, "time")));
		cr_assert_str_eq(e->kind, "kernel-crash");
		cr_assert_str_eq(e->reason, "oops");
		cr_assert_str_eq(e->kernel_version, "6.1.0-test");
		cr_assert_str_eq(e->signature, "sig-1");
		cr_assert_str_eq(e->upload, store_upload_state(json_object_get(sum, "upload")));
		json_auto_t *text = json_loadb(e->summary, e->summary_len, 0, NULL);
		cr_assert(json_equal(text, sum), "summary %.*s", (int)e->summary_len, e->summary);
	}
	/* Oldest first; the headline is the message, else the function; no tab or newline. */
	cr_assert_str_eq(store_listing_entry(l, 0)->id, a);
	cr_assert_str_eq(store_listing_entry(l, 0)->headline, "do_crash");
	cr_assert_str_eq(store_listing_entry(l, 0)->upload, "-");
	cr_assert_str_eq(store_listing_entry(l, 1)->headline, "BUG: bad thing");
	cr_assert_str_eq(store_listing_entry(l, 1)->upload, "pending");
	cr_assert_str_eq(store_listing_entry(l, 2)->upload, "sent");
	/* The JSON side keeps the message as it was. */
	cr_assert_str_eq(
		json_string_value(json_object_get(json_array_get(summaries, 1), "message")),
		"BUG:\tbad\nthing");
}

Test(listing, later_lines_and_tombstones_win)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_(store_listing_freep) StoreListing *l = NULL;
	json_auto_t *crash = NULL;
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "a", 1000, NULL, "pending", a);
	add_crash(s, "b", 2000, NULL, NULL, b);

	cr_assert_eq(store_load_crash(s, a, &crash), 0);
	cr_assert_eq(json_object_set_new(crash, "upload",
					 json_pack("{s:{s:s}}", "collector", "state", "failed")),
		     0);
	cr_assert_eq(store_update_crash(s, a, crash), 0);
	cr_assert_eq(store_delete_crash(s, b), 0);

	l = listing(s);
	cr_assert_eq(store_listing_size(l), 1);
	cr_assert_str_eq(store_listing_entry(l, 0)->id, a);
	cr_assert_str_eq(store_listing_entry(l, 0)->upload, "failed");
}

Test(listing, index_repairs)
{
	_cleanup_(store_freep) Store *s = NULL, *ro = NULL;
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1], path[PATH_MAX];
	StoreListing *l;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "a", 1000, NULL, NULL, a);
	add_crash(s, "b", 2000, NULL, NULL, b);
	cr_assert_eq(store_open(store_dir, STORE_READONLY, &ro), 0);

	/* A torn last line never happened. */
	cr_assert_eq(write_file_at(AT_FDCWD, index_path, O_APPEND, 0640, a, 20), 0);
	l = listing(ro);
	cr_assert_eq(store_listing_size(l), 2);
	store_listing_free(l);

	/* A corrupt line: listed from the crash directories. */
	cr_assert_eq(write_file_at(AT_FDCWD, index_path, O_APPEND, 0640, "\ngarbage\n", 9), 0);
	cr_assert_eq(store_list_entries(ro, &l), 1);
	cr_assert_eq(store_listing_size(l), 2);
	cr_assert_str_eq(store_listing_entry(l, 1)->id, b);
	cr_assert_str_eq(store_listing_entry(l, 1)->headline, "do_crash");
	store_listing_free(l);

	/* No index at all (read-only: nobody rebuilds it). */
	cr_assert_eq(unlink(index_path), 0);
	l = listing(ro);
	cr_assert_eq(store_listing_size(l), 2);
	store_listing_free(l);

	/* Listed in the index, directory gone; and a stray directory. */
	cr_assert_eq(store_rebuild_index(s), 0);
	snprintf(path, sizeof(path), "%s/%s", store_dir, a);
	cr_assert_eq(rm_rf_at(AT_FDCWD, path), 0);
	snprintf(path, sizeof(path), "%s/c55ba87f-7810-4684-bc19-51566a609be3", store_dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	l = listing(ro);
	cr_assert_eq(store_listing_size(l), 1);
	cr_assert_str_eq(store_listing_entry(l, 0)->id, b);
	store_listing_free(l);
}

/* Replaces the first occurrence of from in the index with to. */
static void edit_index(const char *from, const char *to)
{
	_cleanup_free_ char *text = NULL, *edited = NULL;
	char *at;

	cr_assert_eq(read_full_file_at(AT_FDCWD, index_path, 1 << 20, &text, NULL), 0);
	at = strstr(text, from);
	cr_assert_not_null(at, "no %s in the index: %s", from, text);
	cr_assert(asprintf(&edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) > 0);
	cr_assert_eq(write_file_at(AT_FDCWD, index_path, O_TRUNC, 0640, edited, strlen(edited)), 0);
}

/* Lists s and checks the listing against crash.json of a and b. */
static void assert_listing_is_whole(Store *s, int want, const char *a, const char *b)
{
	_cleanup_(store_listing_freep) StoreListing *l = NULL;

	cr_assert_eq(store_list_entries(s, &l), want);
	cr_assert_eq(store_listing_size(l), 2);
	for (size_t i = 0; i < 2; i++) {
		const StoreListEntry *e = store_listing_entry(l, i);
		json_auto_t *summary = json_loadb(e->summary, e->summary_len, 0, NULL);

		cr_assert_str_eq(e->id, i == 0 ? a : b);
		cr_assert_str_eq(e->reason, "oops");
		cr_assert_not_null(summary, "not JSON: %.*s", (int)e->summary_len, e->summary);
		cr_assert_str_eq(json_string_value(json_object_get(summary, "reason")), "oops");
	}
}

/*
 * An index line edited by hand, so that its JSON is invalid or its columns
 * disagree with its JSON, is caught by its CRC: the listing comes from the
 * crash directories, and store_rebuild_index() repairs the index.
 */
Test(listing, edited_lines_are_corrupt)
{
	_cleanup_(store_freep) Store *s = NULL, *ro = NULL;
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "a", 1000, NULL, NULL, a);
	add_crash(s, "b", 2000, NULL, NULL, b);
	cr_assert_eq(store_open(store_dir, STORE_READONLY, &ro), 0);
	assert_listing_is_whole(ro, 0, a, b);

	/* The summary no longer JSON. */
	edit_index("\"reason\":\"oops\"", "\"reason\":\"oops");
	assert_listing_is_whole(ro, 1, a, b);
	cr_assert_eq(store_rebuild_index(s), 0);
	assert_listing_is_whole(ro, 0, a, b);

	/* A column that says something else than the JSON. */
	edit_index("\toops\t", "\tpanic\t");
	assert_listing_is_whole(ro, 1, a, b);
	cr_assert_eq(store_rebuild_index(s), 0);
	assert_listing_is_whole(ro, 0, a, b);

	/* A summary that says something else than the columns. */
	edit_index("\"reason\":\"oops\"", "\"reason\":\"bug\"");
	assert_listing_is_whole(ro, 1, a, b);
}

/*
 * The index ends in a stamp of the store directory, which spares listing the
 * directory while it still matches. A crash moved in by hand changes the
 * directory; a writer that then commits another crash must not stamp the
 * index as if it held both.
 */
Test(listing, stamp_only_after_a_checked_index)
{
	_cleanup_(store_freep) Store *s = NULL, *other = NULL;
	char a[STORE_CRASH_ID_LEN + 1], c[STORE_CRASH_ID_LEN + 1], d[STORE_CRASH_ID_LEN + 1];
	char from[PATH_MAX], to[PATH_MAX], other_dir[sizeof(dir) + 8];
	StoreListing *l;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "a", 1000, NULL, NULL, a);
	snprintf(other_dir, sizeof(other_dir), "%s/other", dir);
	cr_assert_eq(store_open(other_dir, STORE_CREATE, &other), 0);
	add_crash(other, "c", 2000, NULL, NULL, c);

	snprintf(from, sizeof(from), "%s/%s", other_dir, c);
	snprintf(to, sizeof(to), "%s/%s", store_dir, c);
	cr_assert_eq(rename(from, to), 0);
	add_crash(s, "d", 3000, NULL, NULL, d);

	l = listing(s);
	cr_assert_eq(store_listing_size(l), 3);
	cr_assert_str_eq(store_listing_entry(l, 0)->id, a);
	cr_assert_str_eq(store_listing_entry(l, 1)->id, c);
	cr_assert_str_eq(store_listing_entry(l, 2)->id, d);
	store_listing_free(l);

	/* Taken out by hand again: gone from the listing, though the index names it. */
	cr_assert_eq(rename(to, from), 0);
	l = listing(s);
	cr_assert_eq(store_listing_size(l), 2);
	cr_assert_str_eq(store_listing_entry(l, 1)->id, d);
	store_listing_free(l);
}

Test(listing, ids_are_checked)
{
	cr_assert(store_crash_id_is_valid("c55ba87f-7810-4684-bc19-51566a609be3"));
	cr_assert_not(store_crash_id_is_valid("C55BA87F-7810-4684-BC19-51566A609BE3"));
	cr_assert_not(store_crash_id_is_valid("c55ba87f-7810-4684-bc19-51566a609be"));
	cr_assert_not(store_crash_id_is_valid("c55ba87f-7810-4684-bc19-51566a609be3a"));
	cr_assert_not(store_crash_id_is_valid("c55ba87f07810-4684-bc19-51566a609be3"));
	cr_assert_not(store_crash_id_is_valid("g55ba87f-7810-4684-bc19-51566a609be3"));
	cr_assert_not(store_crash_id_is_valid("../ba87f-7810-4684-bc19-51566a609be3"));
	cr_assert_not(store_crash_id_is_valid(""));
	cr_assert_not(store_crash_id_is_valid(NULL));
}
