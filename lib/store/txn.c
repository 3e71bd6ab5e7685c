/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Adding crashes to the store: transactions, written below a staging
 * directory, and their commit, which makes them durable and visible.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs-util.h"
#include "store-internal.h"

#define RECORDS_DIR "records"

/*
 * Write-back ahead. A batch's commit waits until its files are on disk
 * (syncfs(2)), and that wait is most of pstored's wall time that is not
 * CPU time: the kernel writes the files back on another CPU, but only once
 * asked. So every WRITEBACK_EVERY prepared transactions a thread of the
 * store asks, with a syncfs() of its own, while the caller goes on
 * preparing the next ones, and the commit's syncfs() finds less to write.
 * One such syncfs() at a time, and exactly one per WRITEBACK_EVERY
 * transactions, so that the calls are the same from run to run (which
 * tests/pstore/test-faults.sh relies on). Its error is the commit's.
 */
#define WRITEBACK_EVERY 32

struct StoreTxn {
	Store *store;
	char id[STORE_CRASH_ID_LEN + 1];
	char staging[sizeof(STAGING_PREFIX) + STORE_CRASH_ID_LEN];
	bool locked; /* holds a reference on the store's txn_lock_fd */
	int dir_fd;
	int records_fd;
	uint64_t size;
	json_t *summary;  /* the index line, once prepared */
	bool staged;	  /* the staging directory exists and was not renamed into place */
	bool prepared;	  /* crash.json written: ready for store_txns_commit() */
	bool index_fresh; /* index_is_fresh() when the transaction began */
};

static void *writeback_thread(void *userdata)
{
	Writeback *w = userdata;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		int r;

		while (!w->pending && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->pending)
			break;
		pthread_mutex_unlock(&w->lock);
		r = syncfs(w->fd) < 0 ? -errno : 0;
		pthread_mutex_lock(&w->lock);
		if (r < 0 && w->error == 0)
			w->error = r;
		w->pending = false;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Asks for a syncfs() of the store's file system, after the one asked before is done. */
static void writeback_start(Store *s)
{
	Writeback *w = &s->writeback;

	if (!w->running) {
		/* Only ahead of the commit: without it, the commit still syncs everything. */
		w->fd = openat(s->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w->fd < 0)
			return;
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		w->pending = w->stop = false;
		w->error = 0;
		if (pthread_create(&w->thread, NULL, writeback_thread, w) != 0) {
			pthread_cond_destroy(&w->cond);
			pthread_mutex_destroy(&w->lock);
			close(w->fd);
			return;
		}
		w->running = true;
	}
	pthread_mutex_lock(&w->lock);
	while (w->pending)
		pthread_cond_wait(&w->cond, &w->lock);
	w->pending = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Waits for the syncfs() asked for and ends the thread. Returns the error of
 * any syncfs() it made.
 */
int writeback_finish(Store *s)
{
	Writeback *w = &s->writeback;

	if (!w->running)
		return 0;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	close(w->fd);
	w->running = false;
	return w->error;
}

int store_txn_begin(Store *s, const char *id, StoreTxn **ret)
{
	_cleanup_(store_txn_freep) StoreTxn *t = NULL;
	int r;

	if (!store_crash_id_is_valid(id))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->store = s;
	t->dir_fd = t->records_fd = -1;
	memcpy(t->id, id, sizeof(t->id));
	snprintf(t->staging, sizeof(t->staging), STAGING_PREFIX "%s", id);

	if (s->n_txns == 0) {
		int fd = store_lock(s, true);

		if (fd < 0)
			return fd;
		s->txn_lock_fd = fd;
	}
	s->n_txns++;
	t->locked = true;
	if (faccessat(s->dir_fd, id, F_OK, AT_SYMLINK_NOFOLLOW) >= 0)
		return -EEXIST;
	t->index_fresh = index_is_fresh(s);

	/* A staging directory of this id is a leftover of a killed run: start afresh. */
	(void)rm_rf_at(s->dir_fd, t->staging);
	r = open_mkdir_at(s->dir_fd, t->staging, true, STORE_DIR_MODE);
	/* A failure after mkdirat() leaves the directory for store_txn_free() to remove. */
	t->staged = r != -EEXIST;
	if (r < 0)
		return r;
	t->dir_fd = r;

	*ret = TAKE_PTR(t);
	return 0;
}

static bool file_name_is_valid(const char *name)
{
	return name && *name && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..") &&
	       strlen(name) <= NAME_MAX;
}

/*
 * Splits "records/NAME" or "NAME" into the directory fd and the base name.
 * Below records/ any name the kernel can give a record is fine, "crash.json"
 * too: nothing else lives there.
 */
static int txn_resolve(StoreTxn *t, const char *name, int *ret_fd, const char **ret_base)
{
	if (strneq(name, RECORDS_DIR "/", strlen(RECORDS_DIR "/"))) {
		const char *base = name + strlen(RECORDS_DIR "/");

		if (!file_name_is_valid(base))
			return -EINVAL;
		if (t->records_fd < 0) {
			int fd = open_mkdir_at(t->dir_fd, RECORDS_DIR, false, STORE_DIR_MODE);

			if (fd < 0)
				return fd;
			t->records_fd = fd;
		}
		*ret_fd = t->records_fd;
		*ret_base = base;
		return 0;
	}
	if (!file_name_is_valid(name) || streq(name, RECORDS_DIR) || streq(name, CRASH_FILE))
		return -EINVAL;
	*ret_fd = t->dir_fd;
	*ret_base = name;
	return 0;
}

int store_txn_write_file(StoreTxn *t, const char *name, const void *buf, size_t len)
{
	const char *base;
	int dir_fd, r;

	r = txn_resolve(t, name, &dir_fd, &base);
	if (r < 0)
		return r;
	r = write_file_at_nosync(dir_fd, base, O_EXCL, STORE_FILE_MODE, buf, len);
	if (r < 0)
		return r;
	t->size += len;
	return 0;
}

uint64_t store_txn_size(const StoreTxn *t)
{
	return t->size;
}

int store_txn_prepare(StoreTxn *t, json_t *crash)
{
	int r;

	if (!t->staged || t->prepared || !json_is_object(crash))
		return -EINVAL;
	if (json_object_set_new(crash, "id", json_string(t->id)) < 0 ||
	    json_object_set_new(crash, "stored_bytes", json_integer((json_int_t)t->size)) < 0)
		return -ENOMEM;

	r = crash_json_write(t->dir_fd, crash);
	if (r < 0)
		return r;
	r = store_crash_summary(crash, &t->summary);
	if (r < 0)
		return r;
	/* A batch of prepared transactions holds no file descriptors. */
	if (t->records_fd >= 0)
		close(TAKE_FD(t->records_fd));
	close(TAKE_FD(t->dir_fd));
	t->prepared = true;
	if (++t->store->n_prepared % WRITEBACK_EVERY == 0)
		writeback_start(t->store);
	return 0;
}

/*
 * The order that makes a crash appear only whole, also after a power cut
 * (pstored erases the records from pstore once this returns, so nothing may
 * be left to chance):
 *
 *   1. every file and directory of every staging directory is on disk:
 *      one syncfs(2) of the store's filesystem does for all crashes what an
 *      fsync of each file and each directory would (one journal commit
 *      instead of a dozen per crash), and reports writeback errors of any
 *      file (Linux >= 5.8); the write-back thread, if the batch started it,
 *      ends first, and its error is the commit's;
 *   2. only then each staging directory is renamed to its crash id, so that
 *      no name points to a directory whose files could still be lost;
 *   3. one fsync of the store directory makes the renames durable.
 *
 * A failure before 3 returns an error: the caller keeps the records in
 * pstore, and the next store_open() removes staging directories left behind
 * (a rename that did happen leaves a whole crash, found again by its id).
 */
int store_txns_commit(StoreTxn *const *txns, size_t n)
{
	bool fresh = false;
	Store *s;
	int r;

	if (n == 0)
		return 0;
	s = txns[0]->store;
	for (size_t i = 0; i < n; i++)
		if (!txns[i]->prepared || !txns[i]->staged || txns[i]->store != s)
			return -EINVAL;

	s->n_prepared = 0;
	r = writeback_finish(s);
	if (r < 0)
		return r;
	if (syncfs(s->dir_fd) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		if (renameat(s->dir_fd, txns[i]->staging, s->dir_fd, txns[i]->id) < 0)
			return -errno;
		txns[i]->staged = false;
	}
	if (fsync(s->dir_fd) < 0)
		return -errno;

	/*
	 * The crashes are durable; the index is a cache that listing repairs should this
	 * fail. Its stamp says that it holds every crash: true if it did when a transaction
	 * of the batch began, as every change since was this batch's, under the write lock.
	 */
	for (size_t i = 0; i < n; i++) {
		if (index_append(s, txns[i]->summary) < 0)
			return 0;
		fresh = fresh || txns[i]->index_fresh;
	}
	if (fresh)
		(void)index_append_stamp(s);
	return 0;
}

int store_txn_commit(StoreTxn *t, json_t *crash)
{
	int r;

	r = store_txn_prepare(t, crash);
	if (r < 0)
		return r;
	return store_txns_commit(&t, 1);
}

StoreTxn *store_txn_free(StoreTxn *t)
{
	if (!t)
		return NULL;
	if (t->records_fd >= 0)
		close(t->records_fd);
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	if (t->staged)
		(void)rm_rf_at(t->store->dir_fd, t->staging);
	json_decref(t->summary);
	if (t->locked && --t->store->n_txns == 0) {
		close(t->store->txn_lock_fd);
		t->store->txn_lock_fd = -1;
	}
	free(t);
	return NULL;
}
