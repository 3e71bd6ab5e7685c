// SPDX-License-Identifier: GPL-2.0-or-later
/* The crash store: transactions, listing, the index and its repair, retention. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "sha256-util.h"
#include "store/last-archive.h"
#include "store/store.h"

static char dir[] = "/tmp/test-store-XXXXXX";
static char store_dir[sizeof(dir) + 8];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(store_dir, sizeof(store_dir), "%s/store", dir);
}

static void teardown(void)
{
	cr_assert_eq(rm_rf_at(AT_FDCWD, dir), 0);
}

TestSuite(store, .init = setup, .fini = teardown);

static void make_id(const char *content, char id[static STORE_CRASH_ID_LEN + 1])
{
	char hex[SHA256_HEX_SIZE];
	const char *digests[] = {hex};

	cr_assert_eq(sha256_hex(content, strlen(content), hex), 0);
	cr_assert_eq(store_crash_id_from_digests(digests, 1, id), 0);
}

/* Adds a crash with one record and a dmesg.txt; returns its id in id. */
static void add_crash(Store *s, const char *content, json_int_t time, const char *upload_state,
		      char id[static STORE_CRASH_ID_LEN + 1])
{
	_cleanup_(store_txn_freep) StoreTxn *t = NULL;
	_cleanup_free_ char *dmesg = NULL;
	json_auto_t *crash = NULL;

	make_id(content, id);
	cr_assert_eq(store_txn_begin(s, id, &t), 0);
	cr_assert_eq(store_txn_write_file(t, "records/dmesg-erst-1", content, strlen(content)), 0);
	cr_assert(asprintf(&dmesg, "line 1\n%s", content) > 0);
	cr_assert_eq(store_txn_write_file(t, "dmesg.txt", dmesg, strlen(dmesg)), 0);
	crash = json_pack("{s:i, s:s, s:s, s:I, s:I, s:{s:s, s:s}, s:[{s:s}]}", "schema_version",
			  STORE_SCHEMA_VERSION, "kind", "kernel-crash", "reason", "panic", "time",
			  time, "archived_at", time + 10, "analysis", "signature", "sig",
			  "function", "func", "records", "name", "dmesg-erst-1");
	cr_assert_not_null(crash);
	if (upload_state)
		cr_assert_eq(json_object_set_new(crash, "upload",
						 json_pack("{s:{s:s, s:i}}", "collector", "state",
							   upload_state, "attempts", 0)),
			     0);
	cr_assert_eq(store_txn_commit(t, crash), 0);
}

static size_t count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t n = 0;

	cr_assert_not_null(d);
	FOREACH_DIRENT(de, d, cr_assert_fail("cannot read %s: %m", path))
		n++;
	closedir(d);
	return n;
}

Test(store, open_creates_private_directory)
{
	_cleanup_(store_freep) Store *s = NULL;
	struct stat st;

	cr_assert_eq(store_open(store_dir, 0, &s), -ENOENT);
	cr_assert_null(s);
	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	cr_assert_eq(stat(store_dir, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700);
	cr_assert_str_eq(store_path(s), store_dir);
	cr_assert_eq(store_open(store_dir, STORE_CREATE | STORE_READONLY, &s), -EINVAL);
}

/* Asserts that the store's entry named by the format (relative to it) has mode and group gid. */
static void assert_mode_group(mode_t mode, gid_t gid, const char *format, ...)
{
	_cleanup_free_ char *name = NULL, *path = NULL;
	struct stat st;
	va_list ap;

	va_start(ap, format);
	cr_assert(vasprintf(&name, format, ap) >= 0);
	va_end(ap);
	cr_assert(asprintf(&path, "%s/%s", store_dir, name) > 0);
	cr_assert_eq(lstat(path, &st), 0, "%s: %m", path);
	cr_assert_eq(st.st_mode & 07777, mode, "'%s': mode %04o, not %04o", name,
		     (unsigned)(st.st_mode & 07777), (unsigned)mode);
	cr_assert_eq(st.st_gid, gid, "'%s': group %u, not %u", name, (unsigned)st.st_gid,
		     (unsigned)gid);
}

/*
 * The store directory alone decides who reads: below it directories are 0750
 * and files 0640 whatever the umask, and all take its group when it has the
 * set-group-ID bit (pstorectl(1), ACCESS FOR USERS OTHER THAN ROOT).
 */
Test(store, modes_ignore_umask_and_follow_group)
{
	/* As root a group of no one's; else our own, which chmod g+s accepts too. */
	const gid_t gid = geteuid() == 0 ? 4242 : getegid();
	const char *const files[] = {"crash.json", "dmesg.txt", "records/dmesg-erst-1"};
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *index = NULL;
	json_auto_t *crash = NULL, *run = NULL;
	char id[STORE_CRASH_ID_LEN + 1];
	mode_t old_umask = umask(0077);

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	assert_mode_group(0700, getegid(), ".");
	assert_mode_group(0640, getegid(), "index");
	/* What chgrp -R and chmod 2750 do to the new store. */
	cr_assert(asprintf(&index, "%s/index", store_dir) > 0);
	cr_assert_eq(chown(index, (uid_t)-1, gid), 0);
	cr_assert_eq(chown(store_dir, (uid_t)-1, gid), 0);
	cr_assert_eq(chmod(store_dir, 02750), 0);

	/* A umask that would take every bit: the store's modes do not depend on it. */
	umask(0777);
	add_crash(s, "Panic#1 Part1\nboom\n", 100, NULL, id);
	cr_assert_eq(store_load_crash(s, id, &crash), 0);
	cr_assert_eq(json_object_set_new(crash, "note", json_string("rewritten")), 0);
	cr_assert_eq(store_update_crash(s, id, crash), 0);
	run = json_pack("{s:s}", "result", "success");
	cr_assert_eq(store_write_last_archive(s, run), 0);
	umask(old_umask);

	assert_mode_group(02750, gid, ".");
	/* The staging directory inherited both; the rename into place kept them. */
	assert_mode_group(02750, gid, "%s", id);
	assert_mode_group(02750, gid, "%s/records", id);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		assert_mode_group(0640, gid, "%s/%s", id, files[i]);
	assert_mode_group(0640, gid, "index");
	assert_mode_group(0640, gid, STORE_LAST_ARCHIVE_FILE);
}

/*
 * Whoever else can write to the store directory could plant crashes, links
 * and FIFOs there: such a store is refused, to readers and writers alike.
 */
Test(store, unsafe_store_is_refused)
{
	static const StoreOpenFlags flags[] = {STORE_CREATE, 0, STORE_READONLY};
	_cleanup_(store_freep) Store *s = NULL;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	s = store_free(s);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		cr_assert_eq(chmod(store_dir, 0777), 0);
		cr_assert_eq(store_open(store_dir, flags[i], &s), -EPERM);
		cr_assert_eq(chmod(store_dir, 0720), 0);
		cr_assert_eq(store_open(store_dir, flags[i], &s), -EPERM);
		cr_assert_eq(chmod(store_dir, 0702), 0);
		cr_assert_eq(store_open(store_dir, flags[i], &s), -EPERM);
		cr_assert_null(s);
		/* Readable by a group (pstorectl(1)) is fine. */
		cr_assert_eq(chmod(store_dir, 02750), 0);
		cr_assert_eq(store_open(store_dir, flags[i], &s), 0);
		s = store_free(s);
		if (geteuid() != 0)
			continue;
		/* Owned by someone else than root and us. */
		cr_assert_eq(chown(store_dir, 65534, (gid_t)-1), 0);
		cr_assert_eq(store_open(store_dir, flags[i], &s), -EPERM);
		cr_assert_eq(chown(store_dir, 0, (gid_t)-1), 0);
	}
}

/* A FIFO where a store file should be is neither waited on nor read. */
Test(store, fifos_in_the_store_never_block, .timeout = 20)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *tmp = NULL, *last = NULL, *index = NULL, *crash_json = NULL;
	_cleanup_(store_listing_freep) StoreListing *l = NULL;
	json_auto_t *run = NULL, *back = NULL, *crash = NULL, *list = NULL;
	char id[STORE_CRASH_ID_LEN + 1];
	struct stat st;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "fifo", 100, NULL, id);
	cr_assert(asprintf(&tmp, "%s/%s.tmp", store_dir, STORE_LAST_ARCHIVE_FILE) > 0);
	cr_assert(asprintf(&last, "%s/%s", store_dir, STORE_LAST_ARCHIVE_FILE) > 0);
	cr_assert(asprintf(&index, "%s/index", store_dir) > 0);
	cr_assert(asprintf(&crash_json, "%s/%s/crash.json", store_dir, id) > 0);

	/* A FIFO where an earlier version put the temporary file: never opened, left alone. */
	cr_assert_eq(mkfifo(tmp, 0600), 0);
	run = json_pack("{s:s}", "result", "success");
	cr_assert_eq(store_write_last_archive(s, run), 0);
	cr_assert_eq(lstat(last, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(lstat(tmp, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode));
	cr_assert_eq(unlink(tmp), 0);

	/* A FIFO read as a file is refused. */
	cr_assert_eq(unlink(last), 0);
	cr_assert_eq(mkfifo(last, 0600), 0);
	cr_assert_eq(store_read_last_archive(s, &back), -EBADFD);
	cr_assert_eq(rename(crash_json, tmp), 0);
	cr_assert_eq(mkfifo(crash_json, 0600), 0);
	cr_assert_eq(store_load_crash(s, id, &crash), -EBADFD);
	cr_assert_eq(unlink(crash_json), 0);
	cr_assert_eq(rename(tmp, crash_json), 0);

	/* A FIFO for an index: listed from the crash directories, and a writer replaces it. */
	cr_assert_eq(unlink(index), 0);
	cr_assert_eq(mkfifo(index, 0600), 0);
	cr_assert_eq(store_list_entries(s, &l), 1);
	cr_assert_eq(store_listing_size(l), 1);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 1);
	cr_assert_eq(lstat(index, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
}

Test(store, crash_id_is_stable_and_content_based)
{
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1], c[STORE_CRASH_ID_LEN + 1];

	make_id("Panic#1 Part1\nkernel BUG\n", a);
	make_id("Panic#1 Part1\nkernel BUG\n", b);
	make_id("Panic#1 Part1\nkernel BUG!\n", c);
	cr_assert_str_eq(a, b);
	cr_assert_str_neq(a, c);
	cr_assert(store_crash_id_is_valid(a));
	cr_assert_eq(a[14], '5', "name-based SHA-1 UUIDs are version 5: %s", a);
	cr_assert_not(store_crash_id_is_valid("../../etc"));
	cr_assert_not(store_crash_id_is_valid("C55BA87F-7810-4684-BC19-51566A609BE3"));
	cr_assert_not(store_crash_id_is_valid(NULL));
	cr_assert_eq(store_crash_id_from_digests(NULL, 0, a), -EINVAL);
}

Test(store, commit_makes_whole_crash)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *path = NULL, *dmesg = NULL;
	json_auto_t *crash = NULL;
	char id[STORE_CRASH_ID_LEN + 1];
	struct stat st;
	size_t len;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "Panic#1 Part1\nboom\n", 100, NULL, id);
	cr_assert(store_has_crash(s, id));

	cr_assert_eq(store_load_crash(s, id, &crash), 0);
	cr_assert_str_eq(json_string_value(json_object_get(crash, "id")), id);
	/* 19 bytes of record, 7 + 19 of dmesg.txt */
	cr_assert_eq(json_integer_value(json_object_get(crash, "stored_bytes")), 45);

	cr_assert_eq(store_crash_path(s, id, "dmesg.txt", &path), 0);
	cr_assert_eq(read_full_file_at(AT_FDCWD, path, 1024, &dmesg, &len), 0);
	cr_assert_str_eq(dmesg, "line 1\nPanic#1 Part1\nboom\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640);
	free(path);
	cr_assert_eq(store_crash_path(s, id, NULL, &path), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0750);
	free(path);
	cr_assert_eq(store_crash_path(s, id, "records/dmesg-erst-1", &path), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_size, 19);
	cr_assert_eq(st.st_mode & 07777, 0640);
	free(path);
	path = NULL;
	cr_assert_eq(store_crash_path(s, id, "../x", &path), -EINVAL);
	cr_assert_eq(store_crash_path(s, "nope", NULL, &path), -EINVAL);
	cr_assert_null(path);
}

Test(store, uncommitted_transaction_leaves_nothing)
{
	_cleanup_(store_freep) Store *s = NULL;
	StoreTxn *t = NULL;
	char id[STORE_CRASH_ID_LEN + 1];
	json_auto_t *list = NULL;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	make_id("x", id);
	cr_assert_eq(store_txn_begin(s, id, &t), 0);
	cr_assert_eq(store_txn_write_file(t, "records/a", "abc", 3), 0);
	cr_assert_eq(store_txn_write_file(t, "records/a", "abc", 3), -EEXIST);
	cr_assert_eq(store_txn_write_file(t, "records/../a", "abc", 3), -EINVAL);
	cr_assert_eq(store_txn_write_file(t, "crash.json", "{}", 2), -EINVAL);
	cr_assert_eq(store_txn_write_file(t, "records", "{}", 2), -EINVAL);
	cr_assert_eq(store_txn_write_file(t, "../escape", "abc", 3), -EINVAL);
	cr_assert_eq(store_txn_size(t), 3);
	store_txn_free(t);

	cr_assert_not(store_has_crash(s, id));
	/* Only the index, which a new store starts with. */
	cr_assert_eq(count_entries(store_dir), 1);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 0);
}

/* Below records/ a record may have any name the kernel can give it, the store's own too. */
Test(store, records_take_any_name)
{
	static const char *const names[] = {"crash.json", "dmesg.txt",	       "index",
					    "records",	  "last-archive.json", ".tmp-x"};
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_(store_txn_freep) StoreTxn *t = NULL;
	json_auto_t *crash = NULL, *loaded = NULL;
	char id[STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	make_id("names", id);
	cr_assert_eq(store_txn_begin(s, id, &t), 0);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *name = NULL;

		cr_assert(asprintf(&name, "records/%s", names[i]) > 0);
		cr_assert_eq(store_txn_write_file(t, name, names[i], strlen(names[i])), 0, "%s",
			     name);
	}
	crash = json_pack("{s:i, s:s}", "schema_version", STORE_SCHEMA_VERSION, "kind",
			  "kernel-crash");
	cr_assert_eq(store_txn_commit(t, crash), 0);
	cr_assert_eq(store_load_crash(s, id, &loaded), 0);
	cr_assert_str_eq(json_string_value(json_object_get(loaded, "kind")), "kernel-crash");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *path = NULL, *text = NULL;

		cr_assert(asprintf(&path, "%s/%s/records/%s", store_dir, id, names[i]) > 0);
		cr_assert_eq(read_full_file_at(AT_FDCWD, path, 64, &text, NULL), 0, "%s", path);
		cr_assert_str_eq(text, names[i]);
	}
}

static bool staging_exists(const char *id)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/.tmp-%s", store_dir, id);
	return access(path, F_OK) >= 0;
}

/* Several transactions open at once, prepared one by one, committed together. */
Test(store, batch_commit_shows_crashes_only_at_commit)
{
	_cleanup_(store_freep) Store *s = NULL;
	static const char *const contents[] = {"Panic#1 Part1\none\n", "Panic#1 Part1\ntwo\n",
					       "Panic#1 Part1\nthree\n"};
	StoreTxn *txns[ARRAY_SIZE(contents)];
	char ids[ARRAY_SIZE(contents)][STORE_CRASH_ID_LEN + 1], dropped[STORE_CRASH_ID_LEN + 1];
	StoreTxn *drop = NULL;
	json_auto_t *list = NULL;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	for (size_t i = 0; i < ARRAY_SIZE(contents); i++) {
		json_auto_t *crash = json_pack("{s:i, s:s, s:s, s:I}", "schema_version",
					       STORE_SCHEMA_VERSION, "kind", "kernel-crash",
					       "reason", "panic", "time", (json_int_t)i + 1);

		make_id(contents[i], ids[i]);
		cr_assert_eq(store_txn_begin(s, ids[i], &txns[i]), 0);
		cr_assert_eq(store_txn_write_file(txns[i], "records/dmesg-erst-1", contents[i],
						  strlen(contents[i])),
			     0);
		cr_assert_eq(store_txn_write_file(txns[i], "dmesg.txt", contents[i],
						  strlen(contents[i])),
			     0);
		cr_assert_eq(store_txn_prepare(txns[i], crash), 0);
		cr_assert_eq(store_txn_prepare(txns[i], crash), -EINVAL, "prepared twice");
	}
	/* A transaction of the batch that is freed unprepared leaves nothing behind. */
	make_id("dropped", dropped);
	cr_assert_eq(store_txn_begin(s, dropped, &drop), 0);
	cr_assert_eq(store_txns_commit(&drop, 1), -EINVAL, "not prepared");
	store_txn_free(drop);

	/* Prepared is neither visible nor listed: only staging directories exist. */
	for (size_t i = 0; i < ARRAY_SIZE(contents); i++) {
		cr_assert_not(store_has_crash(s, ids[i]));
		cr_assert(staging_exists(ids[i]));
	}
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 0);
	json_decref(TAKE_PTR(list));

	cr_assert_eq(store_txns_commit(txns, ARRAY_SIZE(txns)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(contents); i++) {
		json_auto_t *crash = NULL;

		store_txn_free(txns[i]);
		cr_assert(store_has_crash(s, ids[i]));
		cr_assert_eq(store_load_crash(s, ids[i], &crash), 0);
		cr_assert_eq(json_integer_value(json_object_get(crash, "stored_bytes")),
			     2 * strlen(contents[i]));
	}
	cr_assert_not(store_has_crash(s, dropped));
	cr_assert_not(staging_exists(dropped));
	for (size_t i = 0; i < ARRAY_SIZE(contents); i++)
		cr_assert_not(staging_exists(ids[i]));
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), ARRAY_SIZE(contents));
}

/* Stages n crashes "<tag> <i>" in txns (the store's write-back thread starts at 32). */
static void stage_batch(Store *s, const char *tag, StoreTxn **txns,
			char (*ids)[STORE_CRASH_ID_LEN + 1], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_auto_t *crash = json_pack("{s:i, s:s, s:s, s:I}", "schema_version",
					       STORE_SCHEMA_VERSION, "kind", "kernel-crash",
					       "reason", "panic", "time", (json_int_t)i + 1);
		char content[32];

		snprintf(content, sizeof(content), "%s %zu", tag, i);
		make_id(content, ids[i]);
		cr_assert_eq(store_txn_begin(s, ids[i], &txns[i]), 0);
		cr_assert_eq(store_txn_write_file(txns[i], "records/dmesg-erst-1", content,
						  strlen(content)),
			     0);
		cr_assert_eq(store_txn_prepare(txns[i], crash), 0);
	}
}

Test(store, large_batch_commits_with_writeback_ahead)
{
	_cleanup_(store_freep) Store *s = NULL;
	StoreTxn *txns[70];
	char ids[ARRAY_SIZE(txns)][STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	stage_batch(s, "first", txns, ids, ARRAY_SIZE(txns));
	cr_assert_eq(store_txns_commit(txns, ARRAY_SIZE(txns)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(txns); i++) {
		store_txn_free(txns[i]);
		cr_assert(store_has_crash(s, ids[i]));
	}
	/* The thread ended with the commit; a second batch starts another. */
	stage_batch(s, "second", txns, ids, 40);
	for (size_t i = 0; i < 40; i++)
		cr_assert_eq(store_txn_free(txns[i]), NULL);
}

Test(store, free_ends_writeback_thread)
{
	Store *s = NULL;
	StoreTxn *txns[40];
	char ids[ARRAY_SIZE(txns)][STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	stage_batch(s, "batch", txns, ids, ARRAY_SIZE(txns));
	for (size_t i = 0; i < ARRAY_SIZE(txns); i++)
		store_txn_free(txns[i]);
	cr_assert_null(store_free(s));
	for (size_t i = 0; i < ARRAY_SIZE(txns); i++)
		cr_assert_not(staging_exists(ids[i]));
}

Test(store, begin_refuses_existing_crash)
{
	_cleanup_(store_freep) Store *s = NULL;
	StoreTxn *t = NULL;
	char id[STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "one", 1, NULL, id);
	cr_assert_eq(store_txn_begin(s, id, &t), -EEXIST);
	cr_assert_null(t);
}

Test(store, leftovers_of_killed_writer_are_removed)
{
	_cleanup_(store_freep) Store *s = NULL;
	char path[PATH_MAX];

	cr_assert_eq(mkdir(store_dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/.tmp-c55ba87f-7810-4684-bc19-51566a609be3", store_dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.tmp-c55ba87f-7810-4684-bc19-51566a609be3/dmesg.txt",
		 store_dir);
	cr_assert_eq(write_file_at(AT_FDCWD, path, 0, 0640, "half", 4), 0);
	cr_assert_eq(store_open(store_dir, STORE_READONLY, &s), 0);
	cr_assert_eq(count_entries(store_dir), 1, "a reader never writes");
	s = store_free(s);
	cr_assert_eq(store_open(store_dir, 0, &s), 0);
	cr_assert_eq(count_entries(store_dir), 0);
}

Test(store, list_is_oldest_first_from_index)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *list = NULL;
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1], c[STORE_CRASH_ID_LEN + 1];
	json_t *first;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "b", 200, NULL, b);
	add_crash(s, "a", 100, NULL, a);
	add_crash(s, "c", 300, "pending", c);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 3);
	first = json_array_get(list, 0);
	cr_assert_str_eq(json_string_value(json_object_get(first, "id")), a);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 1), "id")), b);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 2), "id")), c);
	cr_assert_str_eq(json_string_value(json_object_get(first, "signature")), "sig");
	cr_assert_str_eq(json_string_value(json_object_get(first, "function")), "func");
	cr_assert_str_eq(json_string_value(json_object_get(first, "kind")), "kernel-crash");
	cr_assert_eq(json_integer_value(json_object_get(first, "records")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_array_get(list, 2), "upload"), "collector")),
			 "pending");
}

Test(store, resolve_prefix)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *found = NULL;
	json_auto_t *matches = NULL;
	char ids[40][STORE_CRASH_ID_LEN + 1];
	char content[16], prefix[2] = {0};
	size_t i;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	/* 40 crashes: some first hex digit must be shared by two of them. */
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		snprintf(content, sizeof(content), "crash %zu", i);
		add_crash(s, content, (json_int_t)i, NULL, ids[i]);
	}
	prefix[0] = ids[0][0];
	for (i = 1; i < ARRAY_SIZE(ids) && ids[i][0] != ids[0][0]; i++)
		;
	cr_assert_lt(i, ARRAY_SIZE(ids));
	cr_assert_eq(store_resolve_id(s, prefix, &found, &matches), -ENOTUNIQ);
	cr_assert_null(found);
	cr_assert_geq(json_array_size(matches), 2);

	cr_assert_eq(store_resolve_id(s, ids[3], &found, NULL), 0);
	cr_assert_str_eq(found, ids[3]);
	free(found);
	found = NULL;
	char upper[STORE_CRASH_ID_LEN + 1];
	for (i = 0; i <= STORE_CRASH_ID_LEN; i++)
		upper[i] = (char)toupper((unsigned char)ids[5][i]);
	cr_assert_eq(store_resolve_id(s, upper, &found, NULL), 0);
	cr_assert_str_eq(found, ids[5]);

	cr_assert_eq(store_resolve_id(s, "", NULL, NULL), -EINVAL);
	cr_assert_eq(store_resolve_id(s, "../", NULL, NULL), -EINVAL);
	cr_assert_eq(store_resolve_id(s, "00000000-0000-0000-0000-000000000000", NULL, NULL),
		     -ENOENT);
}

Test(store, update_rewrites_crash_and_index)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *crash = NULL, *again = NULL, *list = NULL;
	char id[STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "u", 5, "pending", id);
	cr_assert_eq(store_load_crash(s, id, &crash), 0);
	cr_assert_eq(
		json_object_set_new(json_object_get(json_object_get(crash, "upload"), "collector"),
				    "state", json_string("sent")),
		0);
	cr_assert_eq(store_update_crash(s, id, crash), 0);
	cr_assert_eq(store_load_crash(s, id, &again), 0);
	cr_assert(json_equal(crash, again));
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_array_get(list, 0), "upload"), "collector")),
			 "sent");

	/* The id inside must match; the crash must exist. */
	cr_assert_eq(store_update_crash(s, "c55ba87f-7810-4684-bc19-51566a609be3", crash), -EINVAL);
	json_object_set_new(crash, "id", json_string("c55ba87f-7810-4684-bc19-51566a609be3"));
	cr_assert_eq(store_update_crash(s, "c55ba87f-7810-4684-bc19-51566a609be3", crash), -ENOENT);
}

/* Sets crash["upload"]["collector"]["state"]. */
static void set_collector_state(json_t *crash, const char *state)
{
	cr_assert_eq(
		json_object_set_new(json_object_get(json_object_get(crash, "upload"), "collector"),
				    "state", json_string(state)),
		0);
}

Test(store, update_many_at_once_skips_removed_crashes)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *a = NULL, *b = NULL, *c = NULL, *list = NULL;
	char ids[3][STORE_CRASH_ID_LEN + 1];
	size_t i;
	json_t *summary;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "m1", 5, "pending", ids[0]);
	add_crash(s, "m2", 6, "pending", ids[1]);
	add_crash(s, "m3", 7, "pending", ids[2]);
	cr_assert_eq(store_load_crash(s, ids[0], &a), 0);
	cr_assert_eq(store_load_crash(s, ids[1], &b), 0);
	cr_assert_eq(store_load_crash(s, ids[2], &c), 0);
	set_collector_state(a, "sent");
	set_collector_state(b, "sent");
	set_collector_state(c, "failed");
	/* Removed since it was loaded: skipped, the others updated. */
	cr_assert_eq(store_delete_crash(s, ids[1]), 0);

	json_t *const crashes[] = {a, b, c};
	cr_assert_eq(store_update_crashes(s, crashes, 3), 2);
	cr_assert(!store_has_crash(s, ids[1]));
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 2);
	json_array_foreach(list, i, summary)
		cr_assert_str_eq(json_string_value(json_object_get(
					 json_object_get(summary, "upload"), "collector")),
				 i == 0 ? "sent" : "failed");
	/* What the index says is what crash.json says, once it is rebuilt from them. */
	json_decref(list);
	cr_assert_eq(store_rebuild_index(s), 0);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 2);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_array_get(list, 1), "upload"), "collector")),
			 "failed");

	/* No temporary file is left in the crash directories. */
	for (size_t k = 0; k < 3; k += 2) {
		_cleanup_free_ char *crash_dir = NULL;
		DIR *d;
		struct dirent *de;

		cr_assert_eq(store_crash_path(s, ids[k], NULL, &crash_dir), 0);
		d = opendir(crash_dir);
		cr_assert_not_null(d);
		while ((de = readdir(d)))
			cr_assert(strncmp(de->d_name, ".#", 2) != 0, "%s left in %s", de->d_name,
				  crash_dir);
		closedir(d);
	}

	/* Nothing to do; an object without a valid id is refused before anything is written. */
	cr_assert_eq(store_update_crashes(s, crashes, 0), 0);
	json_object_set_new(c, "id", json_string("not-an-id"));
	cr_assert_eq(store_update_crashes(s, crashes, 3), -EINVAL);
}

Test(store, readonly_store_refuses_writes)
{
	_cleanup_(store_freep) Store *s = NULL, *ro = NULL;
	json_auto_t *crash = NULL, *list = NULL;
	char id[STORE_CRASH_ID_LEN + 1];
	StoreTxn *t = NULL;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "r", 5, NULL, id);
	cr_assert_eq(store_open(store_dir, STORE_READONLY, &ro), 0);
	cr_assert_eq(store_load_crash(ro, id, &crash), 0);
	cr_assert_eq(store_update_crash(ro, id, crash), -EROFS);
	cr_assert_eq(store_delete_crash(ro, id), -EROFS);
	cr_assert_eq(store_rebuild_index(ro), -EROFS);
	cr_assert_eq(store_txn_begin(ro, "c55ba87f-7810-4684-bc19-51566a609be3", &t), -EROFS);
	cr_assert_eq(store_list(ro, &list), 0);
	cr_assert_eq(json_array_size(list), 1);
}

Test(store, delete_removes_crash)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *list = NULL, *crash = NULL;
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "a", 1, NULL, a);
	add_crash(s, "b", 2, NULL, b);
	cr_assert_eq(store_delete_crash(s, a), 0);
	cr_assert_eq(store_delete_crash(s, a), -ENOENT);
	cr_assert_not(store_has_crash(s, a));
	cr_assert_eq(store_load_crash(s, a, &crash), -ENOENT);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "id")), b);
	/* b and index */
	cr_assert_eq(count_entries(store_dir), 2);
}

/* The index's lines, but for stamps ("#..."). */
static size_t index_lines(void)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	size_t len, n = 0;

	snprintf(path, sizeof(path), "%s/index", store_dir);
	cr_assert_eq(read_full_file_at(AT_FDCWD, path, 1 << 20, &buf, &len), 0);
	for (const char *p = buf, *eol; p < buf + len; p = eol + 1) {
		eol = memchr(p, '\n', buf + len - p);
		if (!eol)
			break;
		n += *p != '#';
	}
	return n;
}

Test(store, index_repairs_itself)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *list = NULL;
	char a[STORE_CRASH_ID_LEN + 1], b[STORE_CRASH_ID_LEN + 1], path[PATH_MAX];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "a", 1, NULL, a);
	add_crash(s, "b", 2, NULL, b);

	/* Missing index: rebuilt from the crash directories. */
	snprintf(path, sizeof(path), "%s/index", store_dir);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 2);
	cr_assert_eq(index_lines(), 2);
	json_decref(list);

	/* Corrupt lines and a torn last line: rebuilt. */
	static const char corrupt[] = "garbage\n{\"id\":\"x\"}\n{\"id\"";
	cr_assert_eq(write_file_at(AT_FDCWD, path, O_APPEND, 0640, corrupt, sizeof(corrupt) - 1),
		     0);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 2);
	cr_assert_eq(index_lines(), 2);
	json_decref(list);

	/* A crash directory the index does not know (writer killed before the index line). */
	cr_assert_eq(write_file_at(AT_FDCWD, path, O_TRUNC, 0640, "", 0), 0);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 2);
	json_decref(list);

	/* An index line whose directory is gone, and a stray directory: ignored. */
	snprintf(path, sizeof(path), "%s/%s", store_dir, a);
	cr_assert_eq(rm_rf_at(AT_FDCWD, path), 0);
	snprintf(path, sizeof(path), "%s/c55ba87f-7810-4684-bc19-51566a609be3", store_dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "id")), b);

	cr_assert_eq(store_rebuild_index(s), 0);
	cr_assert_eq(index_lines(), 1);
}

Test(store, index_is_compacted)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *crash = NULL, *list = NULL;
	char id[STORE_CRASH_ID_LEN + 1];

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "a", 1, NULL, id);
	cr_assert_eq(store_load_crash(s, id, &crash), 0);
	for (int i = 0; i < 100; i++)
		cr_assert_eq(store_update_crash(s, id, crash), 0);
	cr_assert_eq(index_lines(), 101);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(index_lines(), 1);
}

Test(store, vacuum_oldest_first_keeps_unsent)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *removed = NULL, *list = NULL;
	char ids[6][STORE_CRASH_ID_LEN + 1];
	StoreVacuumLimits limits = {.max_crashes = 3, .keep_unsent = true};

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	add_crash(s, "0", 100, "pending", ids[0]);
	add_crash(s, "1", 200, "sent", ids[1]);
	add_crash(s, "2", 300, "failed", ids[2]);
	add_crash(s, "3", 400, NULL, ids[3]);
	add_crash(s, "4", 500, NULL, ids[4]);
	add_crash(s, "5", 600, NULL, ids[5]);

	cr_assert_eq(store_vacuum(s, &limits, 1000, &removed), 3);
	cr_assert_str_eq(json_string_value(json_array_get(removed, 0)), ids[1]);
	cr_assert_str_eq(json_string_value(json_array_get(removed, 1)), ids[3]);
	cr_assert_str_eq(json_string_value(json_array_get(removed, 2)), ids[4]);
	cr_assert_eq(store_list(s, &list), 0);
	cr_assert_eq(json_array_size(list), 3);
	json_decref(removed);
	removed = NULL;

	/* Without KeepUnsent the limit wins. */
	limits = (StoreVacuumLimits){.max_crashes = 1};
	cr_assert_eq(store_vacuum(s, &limits, 1000, &removed), 2);
	cr_assert(store_has_crash(s, ids[5]));
}

Test(store, vacuum_by_age_and_size)
{
	_cleanup_(store_freep) Store *s = NULL;
	char ids[3][STORE_CRASH_ID_LEN + 1];
	StoreVacuumLimits limits = {.max_age = 150};

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	/* archived_at = time + 10; each crash stores 7 + 2 * 5 = 17 bytes */
	add_crash(s, "aaaaa", 100, NULL, ids[0]);
	add_crash(s, "bbbbb", 200, NULL, ids[1]);
	add_crash(s, "ccccc", 300, NULL, ids[2]);

	cr_assert_eq(store_vacuum(s, &limits, 300, NULL), 1);
	cr_assert_not(store_has_crash(s, ids[0]));
	limits = (StoreVacuumLimits){.max_use = 20};
	cr_assert_eq(store_vacuum(s, &limits, 300, NULL), 1);
	cr_assert_not(store_has_crash(s, ids[1]));
	cr_assert(store_has_crash(s, ids[2]));
	cr_assert_eq(store_vacuum(s, &limits, 300, NULL), 0);
}
