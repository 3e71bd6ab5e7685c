/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The crash store: see store.h for the layout and pstored-store(5) for the
 * user-facing description of every file. This file opens and locks the
 * store and reads and changes its crash directories.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "fs-util.h"
#include "time-util.h"
#include "store-internal.h"

#define DELETED_PREFIX ".deleted-"
#define CRASH_JSON_MAX (16U * 1024 * 1024)

/* The pstored namespace for name-based crash ids (RFC 4122 section 4.3). */
static const uuid_t crash_id_namespace = {0xd0, 0x00, 0x67, 0x9e, 0x6e, 0xa1, 0x45, 0x7f,
					  0x91, 0x45, 0xa2, 0x7f, 0x8e, 0x7d, 0xe2, 0x92};

bool store_crash_id_is_valid(const char *id)
{
	/* The canonical lower-case UUID text form, 8-4-4-4-12 hex digits; checked by hand
	 * rather than with uuid_parse() because listing checks every directory name. */
	if (!id || strlen(id) != STORE_CRASH_ID_LEN)
		return false;
	for (size_t i = 0; i < STORE_CRASH_ID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? id[i] != '-'
			 : !((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	}
	return true;
}

bool store_machine_id_is_valid(const char *id)
{
	if (!id || strlen(id) != STORE_MACHINE_ID_LEN)
		return false;
	for (size_t i = 0; i < STORE_MACHINE_ID_LEN; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

int store_crash_id_from_digests(const char *const *sha256_hex, size_t n,
				char ret[static STORE_CRASH_ID_LEN + 1])
{
	_cleanup_free_ char *name = NULL;
	size_t len = 0;
	uuid_t u;

	if (n == 0)
		return -EINVAL;
	name = malloc(n * 65);
	if (!name)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (strlen(sha256_hex[i]) != 64)
			return -EINVAL;
		memcpy(name + len, sha256_hex[i], 64);
		name[len + 64] = '\n';
		len += 65;
	}
	uuid_generate_sha1(u, crash_id_namespace, name, len);
	uuid_unparse_lower(u, ret);
	return 0;
}

/* Takes the store's write lock: an flock(2) of a new open file description of the directory. */
int store_lock(Store *s, bool wait)
{
	_cleanup_close_ int fd = -1;

	if (s->flags & STORE_READONLY)
		return -EROFS;
	fd = openat(s->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return TAKE_FD(fd);
}

int store_lock_archive(Store *s, usec_t timeout)
{
	/* How often a waiting run tries again: flock(2) itself has no timeout. */
	const struct timespec pause = {.tv_nsec = 50 * 1000 * 1000};
	usec_t deadline = now_monotonic_usec() + timeout;
	_cleanup_close_ int fd = -1;

	if (s->flags & STORE_READONLY)
		return -EROFS;
	fd = open_create_at(s->dir_fd, STORE_ARCHIVE_LOCK_FILE, 0, 0600);
	if (fd < 0)
		return fd;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -errno;
		if (now_monotonic_usec() >= deadline)
			return -EWOULDBLOCK;
		(void)nanosleep(&pause, NULL);
	}
	return TAKE_FD(fd);
}

/* Removes staging and half-deleted directories left by an interrupted writer. Lock held. */
static int store_remove_leftovers(Store *s)
{
	DIR *d;
	struct dirent *de;
	int r = 0;

	r = opendir_at(s->dir_fd, ".", 0, &d);
	if (r < 0)
		return r;
	FOREACH_DIRENT(de, d, if (r == 0) r = -errno) {
		if (strneq(de->d_name, STAGING_PREFIX, strlen(STAGING_PREFIX)) ||
		    strneq(de->d_name, DELETED_PREFIX, strlen(DELETED_PREFIX))) {
			int k = rm_rf_at(s->dir_fd, de->d_name);
			if (k < 0 && r == 0)
				r = k;
		}
	}
	closedir(d);
	return r;
}

int store_open(const char *dir, StoreOpenFlags flags, Store **ret)
{
	_cleanup_(store_freep) Store *s = NULL;
	bool created = false;
	struct stat st;

	if (!dir || !*dir || ((flags & STORE_CREATE) && (flags & STORE_READONLY)))
		return -EINVAL;

	if ((flags & STORE_CREATE) && mkdir(dir, 0700) < 0) {
		if (errno != EEXIST)
			return -errno;
	} else if (flags & STORE_CREATE)
		created = true;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dir_fd = s->txn_lock_fd = -1;
	s->flags = flags;
	s->path = strdup(dir);
	if (!s->path)
		return -ENOMEM;

	s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dir_fd < 0)
		return -errno;
	if (fstat(s->dir_fd, &st) < 0)
		return -errno;
	/* Whoever else can write here can plant crashes, links and FIFOs for us to trust. */
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;

	if (!(flags & STORE_READONLY)) {
		_cleanup_close_ int lock_fd = -1;

		if (faccessat(s->dir_fd, ".", W_OK, AT_EACCESS) < 0)
			return -errno;
		/* Tidy up after a killed writer, unless another writer is busy right now. */
		lock_fd = store_lock(s, false);
		if (lock_fd >= 0)
			(void)store_remove_leftovers(s);
		/* A new store's index: empty, and stamped, as nothing is in the directory. */
		if (lock_fd >= 0 && created)
			(void)index_write_empty(s);
	}

	*ret = TAKE_PTR(s);
	return 0;
}

Store *store_free(Store *s)
{
	if (!s)
		return NULL;
	(void)writeback_finish(s);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	if (s->txn_lock_fd >= 0)
		close(s->txn_lock_fd);
	free(s->path);
	free(s);
	return NULL;
}

const char *store_path(const Store *s)
{
	return s->path;
}

static int open_crash_dir(Store *s, const char *id)
{
	int fd;

	if (!store_crash_id_is_valid(id))
		return -EINVAL;
	fd = openat(s->dir_fd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP ? -ENOENT : -errno;
	return fd;
}

bool store_has_crash(Store *s, const char *id)
{
	_cleanup_close_ int fd = open_crash_dir(s, id);

	return fd >= 0 && faccessat(fd, CRASH_FILE, F_OK, AT_SYMLINK_NOFOLLOW) >= 0;
}

int store_crash_path(Store *s, const char *id, const char *file, char **ret)
{
	char *p;

	if (!store_crash_id_is_valid(id))
		return -EINVAL;
	if (file && (!*file || file[0] == '/' || strstr(file, "..")))
		return -EINVAL;
	if (asprintf(&p, "%s/%s%s%s", s->path, id, file ? "/" : "", file ?: "") < 0)
		return -ENOMEM;
	*ret = p;
	return 0;
}

int json_object_read_at(int dir_fd, const char *name, size_t max, json_t **ret)
{
	_cleanup_free_ char *buf = NULL;
	json_t *v;
	size_t len;
	int r;

	r = read_full_file_at(dir_fd, name, max, &buf, &len);
	if (r < 0)
		return r;
	v = json_loadb(buf, len, 0, NULL);
	if (!json_is_object(v)) {
		json_decref(v);
		return -EBADMSG;
	}
	*ret = v;
	return 0;
}

static int load_crash_at(int crash_fd, const char *id, json_t **ret)
{
	json_t *crash, *cid;
	int r;

	r = json_object_read_at(crash_fd, CRASH_FILE, CRASH_JSON_MAX, &crash);
	if (r < 0)
		return r;
	cid = json_object_get(crash, "id");
	if (!json_is_string(cid) || !streq(json_string_value(cid), id)) {
		json_decref(crash);
		return -EBADMSG;
	}
	*ret = crash;
	return 0;
}

int store_load_crash(Store *s, const char *id, json_t **ret_crash)
{
	_cleanup_close_ int fd = open_crash_dir(s, id);

	if (fd < 0)
		return fd;
	return load_crash_at(fd, id, ret_crash);
}

/* The summary of a crash from its crash.json; *ret = NULL if it is not a whole crash. */
int crash_summary_load(Store *s, const char *id, json_t **ret)
{
	_cleanup_close_ int fd = open_crash_dir(s, id);
	json_auto_t *crash = NULL;

	/* Not a whole crash (or unreadable): not listed, like a stray file. */
	if (fd < 0 || load_crash_at(fd, id, &crash) < 0) {
		*ret = NULL;
		return 0;
	}
	return store_crash_summary(crash, ret);
}

/* crash.json's text: the JSON, indented, with a final newline. */
static int crash_json_format(json_t *crash, char **ret, size_t *ret_len)
{
	char *text;
	size_t len;

	text = json_dumps(crash, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!text)
		return -ENOMEM;
	len = strlen(text);
	text[len++] = '\n';
	*ret = text;
	*ret_len = len;
	return 0;
}

int crash_json_write(int crash_fd, json_t *crash)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	r = crash_json_format(crash, &text, &len);
	if (r < 0)
		return r;
	/* A new crash: store_txns_commit() makes it durable. */
	return write_file_at_nosync(crash_fd, CRASH_FILE, O_EXCL, STORE_FILE_MODE, text, len);
}

/* A new crash.json written beside the one it replaces, not yet renamed over it. */
typedef struct StagedCrashFile {
	int crash_fd; /* -1: the crash is gone */
	char tmp[NAME_MAX + 1];
} StagedCrashFile;

static void staged_crash_files_free(StagedCrashFile *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		if (f[i].crash_fd < 0)
			continue;
		if (f[i].tmp[0])
			(void)unlinkat(f[i].crash_fd, f[i].tmp, 0);
		close(f[i].crash_fd);
	}
	free(f);
}

/* Writes the new crash.json of crash to f, fsync'ed when sync. 0 and f->crash_fd -1 if it is gone. */
static int crash_json_stage(Store *s, json_t *crash, bool sync, StagedCrashFile *f)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	f->crash_fd = open_crash_dir(s, json_string_value(json_object_get(crash, "id")));
	if (f->crash_fd == -ENOENT) {
		f->crash_fd = -1;
		return 0;
	}
	if (f->crash_fd < 0)
		return f->crash_fd;
	r = crash_json_format(crash, &text, &len);
	if (r < 0)
		return r;
	return write_file_tmp_at(f->crash_fd, CRASH_FILE, STORE_FILE_MODE, text, len, sync, f->tmp);
}

/*
 * The staged files of n crashes renamed into place, durable: for one crash, its directory
 * fsync'ed (its file was); for more, a syncfs(2) before the renames and one after, two disk
 * waits for the whole batch instead of two a crash.
 */
static int staged_crash_files_commit(Store *s, StagedCrashFile *f, size_t n)
{
	if (n > 1 && syncfs(s->dir_fd) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		if (f[i].crash_fd < 0)
			continue;
		if (renameat(f[i].crash_fd, f[i].tmp, f[i].crash_fd, CRASH_FILE) < 0)
			return -errno;
		f[i].tmp[0] = '\0';
		if (n == 1 && fsync(f[i].crash_fd) < 0)
			return -errno;
	}
	if (n > 1 && syncfs(s->dir_fd) < 0)
		return -errno;
	return 0;
}

int store_update_crashes(Store *s, json_t *const *crashes, size_t n)
{
	_cleanup_close_ int lock_fd = -1;
	_cleanup_free_ json_t **updated = NULL;
	StagedCrashFile *staged;
	size_t n_updated = 0;
	bool fresh;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		if (!json_is_object(crashes[i]) ||
		    !store_crash_id_is_valid(json_string_value(json_object_get(crashes[i], "id"))))
			return -EINVAL;
	if (n == 0)
		return 0;
	lock_fd = store_lock(s, true);
	if (lock_fd < 0)
		return lock_fd;
	staged = calloc(n, sizeof(*staged));
	updated = calloc(n, sizeof(*updated));
	if (!staged || !updated) {
		free(staged);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		staged[i].crash_fd = -1;

	fresh = index_is_fresh(s);
	for (size_t i = 0; i < n && r >= 0; i++)
		r = crash_json_stage(s, crashes[i], n == 1, &staged[i]);
	if (r >= 0)
		r = staged_crash_files_commit(s, staged, n);
	for (size_t i = 0; i < n; i++)
		if (staged[i].crash_fd >= 0 && !staged[i].tmp[0])
			updated[n_updated++] = crashes[i];
	staged_crash_files_free(staged, n);

	/* crash.json is the truth; should this fail, listing repairs the index. */
	if (n_updated > 0 && index_append_crashes(s, updated, n_updated) >= 0 && fresh)
		(void)index_append_stamp(s);
	return r < 0 ? r : (int)MIN(n_updated, (size_t)INT_MAX);
}

int store_update_crash(Store *s, const char *id, json_t *crash)
{
	json_t *cid = json_object_get(crash, "id");
	int r;

	if (!json_is_string(cid) || !streq(json_string_value(cid), id))
		return -EINVAL;
	r = store_update_crashes(s, &crash, 1);
	if (r < 0)
		return r;
	return r == 0 ? -ENOENT : 0;
}

int store_delete_locked(Store *s, const char *id)
{
	char deleted[sizeof(DELETED_PREFIX) + STORE_CRASH_ID_LEN];
	bool fresh;
	int r;

	if (!store_crash_id_is_valid(id))
		return -EINVAL;
	snprintf(deleted, sizeof(deleted), DELETED_PREFIX "%s", id);
	fresh = index_is_fresh(s);

	/* Hide it first, atomically, then take it apart. */
	if (renameat(s->dir_fd, id, s->dir_fd, deleted) < 0)
		return -errno;
	if (fsync(s->dir_fd) < 0)
		return -errno;

	fresh = index_append_tombstone(s, id) >= 0 && fresh;

	r = rm_rf_at(s->dir_fd, deleted);
	if (r < 0)
		return r;
	if (fresh)
		(void)index_append_stamp(s);
	return 0;
}

int store_delete_crash(Store *s, const char *id)
{
	_cleanup_close_ int lock_fd = -1;

	if (!store_crash_id_is_valid(id))
		return -EINVAL;
	lock_fd = store_lock(s, true);
	if (lock_fd < 0)
		return lock_fd;
	return store_delete_locked(s, id);
}

int store_write_file(Store *s, const char *name, const void *buf, size_t len)
{
	_cleanup_close_ int lock_fd = -1;
	bool fresh;
	int r;

	/* Not hidden either: staging and deleted crash directories are. */
	if (!name || !*name || name[0] == '.' || strchr(name, '/') || strlen(name) > NAME_MAX ||
	    store_crash_id_is_valid(name) || streq(name, INDEX_FILE))
		return -EINVAL;
	lock_fd = store_lock(s, true);
	if (lock_fd < 0)
		return lock_fd;
	fresh = index_is_fresh(s);
	r = write_file_atomic_at_nosync(s->dir_fd, name, STORE_FILE_MODE, buf, len);
	if (r < 0)
		return r;
	if (fresh)
		(void)index_append_stamp(s);
	return 0;
}
