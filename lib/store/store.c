/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The crash store: see store.h for the layout and pstored-store(5) for the
 * user-facing description of every file.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uuid/uuid.h>
#include <zlib.h>

#include "fs-util.h"
#include "memory-util.h"
#include "store.h"

#define INDEX_FILE "index"
#define INDEX_MAX (1024U * 1024 * 1024)
#define CRASH_FILE "crash.json"
#define RECORDS_DIR "records"
#define STAGING_PREFIX ".tmp-"
#define DELETED_PREFIX ".deleted-"
#define CRASH_JSON_MAX (16U * 1024 * 1024)

/* The pstored namespace for name-based crash ids (RFC 4122 section 4.3). */
static const uuid_t crash_id_namespace = {0xd0, 0x00, 0x67, 0x9e, 0x6e, 0xa1, 0x45, 0x7f,
					  0x91, 0x45, 0xa2, 0x7f, 0x8e, 0x7d, 0xe2, 0x92};

/* crash.json keys copied as they are into a summary (the index line). */
static const char *const summary_keys[] = {
	"id",	       "kind",	   "reason",	   "severity", "backend",	"time",
	"archived_at", "complete", "stored_bytes", "boot_id",  "pstore_reason",
};
/* Keys of crash.json's "analysis" object copied into a summary. */
static const char *const summary_analysis_keys[] = {
	"signature", "function", "module", "kernel_version", "message",
};

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

typedef struct Writeback {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool running;
	bool pending; /* a syncfs() asked for and not done */
	bool stop;
	int fd;	   /* the store directory: an open file description of its own */
	int error; /* of the first syncfs() that failed */
} Writeback;

struct Store {
	char *path;
	int dir_fd;
	StoreOpenFlags flags;
	/* The write lock that the open transactions share, so that several can be open at once. */
	int txn_lock_fd;
	unsigned n_txns;
	unsigned n_prepared; /* since the last commit */
	Writeback writeback;
};

typedef struct TxnAppend {
	char *name;
	int fd;
} TxnAppend;

struct StoreTxn {
	Store *store;
	char id[STORE_CRASH_ID_LEN + 1];
	char staging[sizeof(STAGING_PREFIX) + STORE_CRASH_ID_LEN];
	bool locked; /* holds a reference on the store's txn_lock_fd */
	int dir_fd;
	int records_fd;
	TxnAppend *appends;
	size_t n_appends;
	uint64_t size;
	json_t *summary;  /* the index line, once prepared */
	bool staged;	  /* the staging directory exists and was not renamed into place */
	bool prepared;	  /* crash.json written: ready for store_txns_commit() */
	bool index_fresh; /* index_is_fresh() when the transaction began */
};

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
static int store_lock(Store *s, bool wait)
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

static int index_write_empty(Store *s);

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

/* Waits for the syncfs() asked for and ends the thread. Returns the error of any syncfs() it made. */
static int writeback_finish(Store *s)
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

static int load_crash_at(int crash_fd, const char *id, json_t **ret)
{
	_cleanup_free_ char *buf = NULL;
	json_t *crash, *cid;
	size_t len;
	int r;

	r = read_full_file_at(crash_fd, CRASH_FILE, CRASH_JSON_MAX, &buf, &len);
	if (r < 0)
		return r;
	crash = json_loadb(buf, len, 0, NULL);
	if (!json_is_object(crash)) {
		json_decref(crash);
		return -EBADMSG;
	}
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
static int crash_summary_load(Store *s, const char *id, json_t **ret)
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

static bool upload_state_is_unsent(const char *state)
{
	return streq(state, "pending") || streq(state, "failed");
}

int store_crash_summary(json_t *crash, json_t **ret)
{
	json_t *summary, *analysis, *records, *upload, *v;
	const char *target;

	if (!json_is_object(crash) || !json_is_string(json_object_get(crash, "id")))
		return -EINVAL;
	summary = json_object();
	if (!summary)
		return -ENOMEM;

	for (size_t i = 0; i < ARRAY_SIZE(summary_keys); i++) {
		v = json_object_get(crash, summary_keys[i]);
		if (v && json_object_set(summary, summary_keys[i], v) < 0)
			goto oom;
	}
	analysis = json_object_get(crash, "analysis");
	for (size_t i = 0; json_is_object(analysis) && i < ARRAY_SIZE(summary_analysis_keys); i++) {
		v = json_object_get(analysis, summary_analysis_keys[i]);
		if (v && !json_is_null(v) &&
		    json_object_set(summary, summary_analysis_keys[i], v) < 0)
			goto oom;
	}
	records = json_object_get(crash, "records");
	if (json_object_set_new(summary, "records",
				json_integer((json_int_t)json_array_size(records))) < 0)
		goto oom;

	/* Upload state: just "target": "state", enough to list and to vacuum. */
	upload = json_object_get(crash, "upload");
	if (json_is_object(upload)) {
		json_t *states = json_object();

		if (!states || json_object_set_new(summary, "upload", states) < 0)
			goto oom;
		json_object_foreach(upload, target, v) {
			json_t *state = json_object_get(v, "state");

			if (json_is_string(state) && json_object_set(states, target, state) < 0)
				goto oom;
		}
	}

	*ret = summary;
	return 0;
oom:
	json_decref(summary);
	return -ENOMEM;
}

static bool summary_is_unsent(json_t *summary)
{
	const char *target;
	json_t *state;

	json_object_foreach(json_object_get(summary, "upload"), target, state)
		if (json_is_string(state) && upload_state_is_unsent(json_string_value(state)))
			return true;
	return false;
}

const char *store_upload_state(json_t *upload)
{
	bool pending = false, failed = false, any = false;
	const char *target;
	json_t *v;

	json_object_foreach(upload, target, v) {
		const char *state =
			json_string_value(json_is_object(v) ? json_object_get(v, "state") : v);

		any = true;
		if (state && streq(state, "failed"))
			failed = true;
		else if (!state || !streq(state, "sent"))
			pending = true;
	}
	return !any ? "-" : failed ? "failed" : pending ? "pending" : "sent";
}

const char *store_upload_state_for(json_t *crash, const char *target)
{
	json_t *v = json_object_get(json_object_get(crash, "upload"), target);
	const char *kind = json_string_value(json_object_get(crash, "kind"));

	if (kind && streq(kind, "previous-boot-log") && !v)
		return NULL;
	return json_string_value(json_is_object(v) ? json_object_get(v, "state") : v) ?: "pending";
}

/*
 * The index, one line per change, a later line for an id superseding the
 * earlier ones:
 *
 *	ID TAB TIME TAB KIND TAB REASON TAB KERNEL TAB SIGNATURE TAB UPLOAD TAB HEADLINE TAB SUMMARY TAB CRC
 *	ID TAB "-" TAB CRC                                  (the crash was deleted)
 *
 * SUMMARY is the store_crash_summary() as compact JSON, which is all the
 * index needs; the columns before it repeat what a listing shows (TIME in
 * decimal µs, UPLOAD as store_upload_state(), HEADLINE the analysis message
 * or else the function), with tabs and control characters turned into
 * spaces, so that store_list_entries() can list thousands of crashes without
 * parsing any JSON. JSON has no raw tab or newline in it, so the summary
 * needs no escaping. CRC is the CRC-32 (zlib's crc32()) of the line before
 * its last tab, in 8 lower-case hex digits: as listing trusts the columns and
 * the JSON without parsing, it checks that the line is as a writer made it,
 * whose columns and JSON agree; a line edited by hand, torn or flipped by the
 * disk does not match, and the index counts as corrupt.
 */
enum {
	COLUMN_ID,
	COLUMN_TIME,
	COLUMN_KIND,
	COLUMN_REASON,
	COLUMN_KERNEL,
	COLUMN_SIGNATURE,
	COLUMN_UPLOAD,
	COLUMN_HEADLINE,
	COLUMN_SUMMARY,
	_COLUMN_MAX,
};
#define INDEX_TOMBSTONE "-"
#define INDEX_CRC_LEN 8

/* The CRC column of the line p[0 ... len), without its tab. */
static void index_line_crc(const char *p, size_t len, char ret[static INDEX_CRC_LEN + 1])
{
	snprintf(ret, INDEX_CRC_LEN + 1, "%08lx", crc32(0, (const Bytef *)p, (uInt)len));
}

/*
 * Checks the CRC column of the line p ... eol (the newline); *ret_eol gets the
 * end of the line before it. -EBADMSG if it is missing or does not match.
 */
static int index_line_verify(const char *p, const char *eol, const char **ret_eol)
{
	const char *tab = eol - 1 - INDEX_CRC_LEN;
	char crc[INDEX_CRC_LEN + 1];

	if (eol - p <= 1 + INDEX_CRC_LEN || *tab != '\t')
		return -EBADMSG;
	index_line_crc(p, tab - p, crc);
	if (memcmp(tab + 1, crc, INDEX_CRC_LEN) != 0)
		return -EBADMSG;
	*ret_eol = tab;
	return 0;
}

/* The summary keys the text columns repeat. */
static const char *const column_keys[COLUMN_SUMMARY] = {
	[COLUMN_ID] = "id",
	[COLUMN_KIND] = "kind",
	[COLUMN_REASON] = "reason",
	[COLUMN_KERNEL] = "kernel_version",
	[COLUMN_SIGNATURE] = "signature",
};

/* Appends a column's text, with every control character a space. */
static int put_column(FILE *f, const char *text)
{
	for (const char *p = text ?: ""; *p; p++)
		if (fputc((unsigned char)*p < ' ' || *p == 0x7f ? ' ' : *p, f) == EOF)
			return -EIO;
	return fputc('\t', f) == EOF ? -EIO : 0;
}

static int index_line_format(json_t *summary, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *json = NULL, *buf = NULL;
	const char *headline = json_string_value(json_object_get(summary, "message"));
	json_t *time = json_object_get(summary, "time");
	char tbuf[32] = "", crc[INDEX_CRC_LEN + 1];
	size_t len = 0;
	FILE *f;
	int r = 0;

	json = json_dumps(summary, JSON_COMPACT | JSON_SORT_KEYS);
	if (!json)
		return -ENOMEM;
	if (json_is_integer(time) && json_integer_value(time) >= 0)
		snprintf(tbuf, sizeof(tbuf), "%" JSON_INTEGER_FORMAT, json_integer_value(time));
	if (!headline)
		headline = json_string_value(json_object_get(summary, "function"));

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	for (int c = COLUMN_ID; c < COLUMN_SUMMARY && r == 0; c++) {
		const char *text =
			c == COLUMN_TIME ? tbuf
			: c == COLUMN_UPLOAD
				? store_upload_state(json_object_get(summary, "upload"))
			: c == COLUMN_HEADLINE
				? headline
				: json_string_value(json_object_get(summary, column_keys[c]));
		r = put_column(f, text);
	}
	if (r == 0 && (fputs(json, f) == EOF || fflush(f) == EOF))
		r = -EIO;
	if (r == 0) {
		/* The flush made buf and len the line so far. */
		index_line_crc(buf, len, crc);
		if (fprintf(f, "\t%s\n", crc) < 0)
			r = -EIO;
	}
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

static int index_append_text(Store *s, const char *text, size_t len)
{
	_cleanup_close_ int fd = -1;

	fd = open_create_at(s->dir_fd, INDEX_FILE, O_APPEND, STORE_FILE_MODE);
	if (fd < 0)
		return fd;
	/* One write(): a reader sees the whole line or, after a crash, a torn last one. */
	return write_full(fd, text, len);
}

static int index_append(Store *s, json_t *summary)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	r = index_line_format(summary, &text, &len);
	if (r < 0)
		return r;
	return index_append_text(s, text, len);
}

static int index_append_tombstone(Store *s, const char *id)
{
	char line[STORE_CRASH_ID_LEN + sizeof("\t" INDEX_TOMBSTONE "\t\n") + INDEX_CRC_LEN];
	char crc[INDEX_CRC_LEN + 1];
	int n;

	n = snprintf(line, sizeof(line), "%s\t" INDEX_TOMBSTONE, id);
	index_line_crc(line, n, crc);
	snprintf(line + n, sizeof(line) - n, "\t%s\n", crc);
	return index_append_text(s, line, strlen(line));
}

/*
 * The stamp, a line of its own:
 *
 *	"#" TAB MTIME_SEC TAB MTIME_NSEC TAB NLINK TAB SIZE TAB INODE
 *
 * is the store directory's stat(2) as a writer saw it after its change, when
 * the index agreed with the crash directories before that change. Crash
 * directories come and go only by entries in the store directory, which
 * change its mtime (and its link count and, on most file systems, its size):
 * as long as the directory still matches the last stamp, the index holds
 * every crash there is and listing need not read the directory.
 */
#define INDEX_STAMP_MAX 128

typedef struct IndexStamp {
	int64_t sec, nsec;
	uint64_t nlink, size, ino;
} IndexStamp;

static int index_stamp_of_dir(Store *s, IndexStamp *ret)
{
	struct stat st;

	if (fstat(s->dir_fd, &st) < 0)
		return -errno;
	*ret = (IndexStamp){st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_nlink, st.st_size,
			    st.st_ino};
	return 0;
}

/* Parses a stamp line, p ... eol (the newline). */
static int index_stamp_parse(const char *p, const char *eol, IndexStamp *ret)
{
	char buf[INDEX_STAMP_MAX];
	IndexStamp x = {};
	int n = -1;

	if (eol - p >= (ptrdiff_t)sizeof(buf) || eol == p || *p != '#')
		return -EBADMSG;
	memcpy(buf, p, eol - p);
	buf[eol - p] = '\0';
	if (sscanf(buf, "#\t%" SCNd64 "\t%" SCNd64 "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64 "%n",
		   &x.sec, &x.nsec, &x.nlink, &x.size, &x.ino, &n) != 5 ||
	    n != eol - p)
		return -EBADMSG;
	*ret = x;
	return 0;
}

static bool index_stamp_matches(Store *s, const IndexStamp *stamp)
{
	IndexStamp now;

	return index_stamp_of_dir(s, &now) >= 0 && memcmp(&now, stamp, sizeof(now)) == 0;
}

/* True if the index's last line is a stamp that the directory still matches. Lock held. */
static bool index_is_fresh(Store *s)
{
	_cleanup_close_ int fd = -1;
	char buf[INDEX_STAMP_MAX + 1];
	const char *p;
	IndexStamp stamp;
	struct stat st;
	ssize_t n;

	fd = open_regular_at(s->dir_fd, INDEX_FILE, O_RDONLY, 0);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 2)
		return false;
	n = pread(fd, buf, MIN((off_t)sizeof(buf), st.st_size),
		  st.st_size - MIN((off_t)sizeof(buf), st.st_size));
	if (n < 2 || buf[n - 1] != '\n')
		return false;
	for (p = buf + n - 1; p > buf && p[-1] != '\n'; p--)
		;
	if (p == buf && n == (ssize_t)sizeof(buf))
		return false; /* the last line is longer than a stamp */
	return index_stamp_parse(p, buf + n - 1, &stamp) >= 0 && index_stamp_matches(s, &stamp);
}

/* Appends the stamp of the directory as it is now. Lock held. */
static int index_append_stamp(Store *s)
{
	char line[INDEX_STAMP_MAX];
	IndexStamp x = {};
	int r;

	r = index_stamp_of_dir(s, &x);
	if (r < 0)
		return r;
	snprintf(line, sizeof(line),
		 "#\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", x.sec,
		 x.nsec, x.nlink, x.size, x.ino);
	return index_append_text(s, line, strlen(line));
}

static int index_append_crash(Store *s, json_t *crash)
{
	json_auto_t *summary = NULL;
	int r;

	r = store_crash_summary(crash, &summary);
	if (r < 0)
		return r;
	return index_append(s, summary);
}

/*
 * One line of the mapped index; column c is start[begin(c) ... end[c]). Lines
 * are sorted through pointers to them, 8 bytes to move rather than 64.
 */
typedef struct IndexLine {
	const char *start;
	uint32_t end[_COLUMN_MAX]; /* end[COLUMN_SUMMARY]: the newline */
	uint64_t time;
	bool deleted;
} IndexLine;

static uint32_t column_begin(const IndexLine *x, int c)
{
	return c == 0 ? 0 : x->end[c - 1] + 1;
}

/* By id, then in the order of the file (a later line starts further into the mapping). */
static int compare_index_lines(const void *a, const void *b)
{
	const IndexLine *x = *(const IndexLine *const *)a, *y = *(const IndexLine *const *)b;
	int c = memcmp(x->start, y->start, STORE_CRASH_ID_LEN);

	if (c != 0)
		return c;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Parses one index line, p ... eol (its CRC column's tab), without changing it. */
static int index_line_parse(const char *p, const char *eol, IndexLine *ret)
{
	char id[STORE_CRASH_ID_LEN + 1];
	IndexLine x = {.start = p};
	const char *q = p;
	int n = 0;

	/* memchr() rather than a loop over each byte: 10,000 lines of some 200 bytes. */
	while (n < COLUMN_SUMMARY && (q = memchr(q, '\t', eol - q)))
		x.end[n++] = (uint32_t)(q++ - p);
	if (n == 0 || x.end[COLUMN_ID] != STORE_CRASH_ID_LEN || eol - p > UINT32_MAX)
		return -EBADMSG;
	memcpy(id, p, STORE_CRASH_ID_LEN);
	id[STORE_CRASH_ID_LEN] = '\0';
	if (!store_crash_id_is_valid(id))
		return -EBADMSG;

	if (n == 1 && eol - p == STORE_CRASH_ID_LEN + 2 && p[STORE_CRASH_ID_LEN + 1] == '-') {
		x.deleted = true;
		*ret = x;
		return 0;
	}
	if (n != COLUMN_SUMMARY)
		return -EBADMSG;
	x.end[COLUMN_SUMMARY] = (uint32_t)(eol - p);
	for (uint32_t i = column_begin(&x, COLUMN_TIME); i < x.end[COLUMN_TIME]; i++) {
		if (p[i] < '0' || p[i] > '9' || x.time > (UINT64_MAX - 9) / 10)
			return -EBADMSG;
		x.time = x.time * 10 + (uint64_t)(p[i] - '0');
	}
	*ret = x;
	return 0;
}

/* Maps the index read-only; *ret = NULL for an empty or missing one. */
static int index_map(Store *s, const char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	void *p;

	fd = open_regular_at(s->dir_fd, INDEX_FILE, O_RDONLY, 0);
	if (fd == -ENOENT) {
		*ret = NULL;
		*ret_len = 0;
		return 0;
	}
	/* Not a regular file: a corrupt index, which the crash directories replace. */
	if (fd == -EISDIR || fd == -EBADFD || fd == -ELOOP)
		return -EBADMSG;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > INDEX_MAX)
		return -EFBIG;
	if (st.st_size == 0) {
		*ret = NULL;
		*ret_len = 0;
		return 0;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*ret = p;
	*ret_len = st.st_size;
	return 0;
}

/*
 * The index as its readers see it: the file, its lines in the order of
 * the file, and the last line of each id, tombstones dropped, sorted by id. A
 * line that does not parse or whose CRC does not match is left out, and makes
 * the index corrupt.
 */
typedef struct IndexLines {
	const char *buf; /* the mapped file, NULL for an empty or missing index */
	size_t buf_size;
	IndexLine *lines;
	size_t n_lines;
	IndexLine **by_id;
	size_t n_by_id;
	unsigned n_file_lines; /* every whole line: stamps and corrupt lines too */
	bool stamped;	       /* the directory matches the last stamp */
	bool corrupt;
} IndexLines;

static void index_lines_done(IndexLines *ix)
{
	if (ix->buf)
		munmap((void *)ix->buf, ix->buf_size);
	free(ix->lines);
	free(ix->by_id);
}

/* Parses every whole line of the mapping into ix->lines; *ret_stamp gets the last stamp. */
static int index_lines_scan(IndexLines *ix, const char **ret_stamp, const char **ret_stamp_eol)
{
	const char *buf = ix->buf, *stamp = NULL, *stamp_eol = NULL;
	size_t allocated = 0;

	for (const char *p = buf, *eol, *end; p < buf + ix->buf_size; p = eol + 1) {
		eol = memchr(p, '\n', buf + ix->buf_size - p);
		if (!eol)
			break; /* a torn last line never happened */
		ix->n_file_lines++;
		if (*p == '#') {
			/* Every change appends one: only the last tells. */
			stamp = p;
			stamp_eol = eol;
			continue;
		}
		if (ix->n_lines == allocated) {
			size_t a = MAX(allocated * 2, 256);
			IndexLine *w = reallocarray(ix->lines, a, sizeof(*w));

			if (!w)
				return -ENOMEM;
			ix->lines = w;
			allocated = a;
		}
		if (index_line_verify(p, eol, &end) < 0 ||
		    index_line_parse(p, end, &ix->lines[ix->n_lines]) < 0)
			ix->corrupt = true;
		else
			ix->n_lines++;
	}
	*ret_stamp = stamp;
	*ret_stamp_eol = stamp_eol;
	return 0;
}

/* Points ix->by_id at the last line of each id, tombstones dropped, sorted by id. */
static int index_lines_latest(IndexLines *ix)
{
	size_t k = 0;

	ix->by_id = calloc(ix->n_lines + 1, sizeof(*ix->by_id));
	if (!ix->by_id)
		return -ENOMEM;
	for (size_t i = 0; i < ix->n_lines; i++)
		ix->by_id[i] = &ix->lines[i];
	if (ix->n_lines > 0)
		qsort(ix->by_id, ix->n_lines, sizeof(*ix->by_id), compare_index_lines);
	for (size_t i = 0; i < ix->n_lines; i++) {
		IndexLine *x = ix->by_id[i];

		if (i + 1 < ix->n_lines &&
		    memcmp(x->start, ix->by_id[i + 1]->start, STORE_CRASH_ID_LEN) == 0)
			continue;
		if (!x->deleted)
			ix->by_id[k++] = x;
	}
	ix->n_by_id = k;
	return 0;
}

/*
 * Maps and parses the index: the one reader of its format. A missing or empty
 * index has no lines; one that is not a regular file is corrupt.
 */
static int index_lines_read(Store *s, IndexLines *ret)
{
	_cleanup_(index_lines_done) IndexLines ix = {};
	const char *stamp = NULL, *stamp_eol = NULL;
	IndexStamp x;
	int r;

	r = index_map(s, &ix.buf, &ix.buf_size);
	if (r == -EBADMSG)
		ix.corrupt = true;
	else if (r < 0)
		return r;
	if (ix.buf) {
		r = index_lines_scan(&ix, &stamp, &stamp_eol);
		if (r < 0)
			return r;
	}
	r = index_lines_latest(&ix);
	if (r < 0)
		return r;
	if (stamp && index_stamp_parse(stamp, stamp_eol, &x) < 0)
		ix.corrupt = true;
	ix.stamped = !ix.corrupt && stamp && index_stamp_matches(s, &x);
	*ret = ix;
	ix = (IndexLines){};
	return 0;
}

typedef char CrashIdSlot[STORE_CRASH_ID_LEN + 1];

static int compare_slots(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The crash directories' names (valid crash ids), sorted. */
static int crash_dir_names(Store *s, CrashIdSlot **ret, size_t *ret_n)
{
	_cleanup_free_ CrashIdSlot *v = NULL;
	size_t n = 0, allocated = 0;
	struct dirent *de;
	int r = 0;
	DIR *d;

	r = opendir_at(s->dir_fd, ".", 0, &d);
	if (r < 0)
		return r;

	FOREACH_DIRENT(de, d, r = -errno) {
		if (!store_crash_id_is_valid(de->d_name) ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (n == allocated) {
			size_t a = MAX(allocated * 2, 256);
			CrashIdSlot *w = reallocarray(v, a, sizeof(*w));

			if (!w) {
				r = -ENOMEM;
				break;
			}
			v = w;
			allocated = a;
		}
		memcpy(v[n++], de->d_name, sizeof(CrashIdSlot));
	}
	closedir(d);
	if (r < 0)
		return r;
	if (n > 0) /* an empty store leaves v NULL, which qsort() must not see */
		qsort(v, n, sizeof(*v), compare_slots);
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

static int index_write(Store *s, json_t *map)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, allocated = 0;
	const char *id;
	json_t *summary;
	int r;

	json_object_foreach(map, id, summary) {
		_cleanup_free_ char *text = NULL;
		size_t l;

		r = index_line_format(summary, &text, &l);
		if (r < 0)
			return r;
		if (len + l > allocated) {
			size_t want = MAX(allocated * 2, len + l + 4096);
			char *p = realloc(buf, want);

			if (!p)
				return -ENOMEM;
			buf = p;
			allocated = want;
		}
		memcpy(buf + len, text, l);
		len += l;
	}
	/*
	 * A cache need not survive a power cut: an index that is then empty, older
	 * or torn has no stamp that the directory matches, or a line that does not
	 * parse, and listing reads the crash directories.
	 */
	r = write_file_atomic_at_nosync(s->dir_fd, INDEX_FILE, STORE_FILE_MODE, buf ?: "", len);
	if (r < 0)
		return r;
	/* Every caller checked map against the directories, under the lock. */
	return index_append_stamp(s);
}

static int index_write_empty(Store *s)
{
	json_auto_t *map = json_object();

	return map ? index_write(s, map) : -ENOMEM;
}

/*
 * Checks the index's lines against the crash directories, both sorted by id:
 * drops from ix->by_id the crashes whose directory is gone, and gives the
 * directories the index lacks, sorted (*ret_missing, *ret_n_missing). With
 * trust_stamp, an index whose stamp the directory matches holds every crash
 * there is, and only those: the directory is not read.
 */
static int index_reconcile(Store *s, IndexLines *ix, bool trust_stamp, CrashIdSlot **ret_missing,
			   size_t *ret_n_missing)
{
	_cleanup_free_ CrashIdSlot *dirs = NULL;
	size_t n_dirs = 0, n_keep = 0, n_missing = 0, i = 0;
	int r;

	if (trust_stamp && ix->stamped) {
		*ret_missing = NULL;
		*ret_n_missing = 0;
		return 0;
	}
	r = crash_dir_names(s, &dirs, &n_dirs);
	if (r < 0)
		return r;
	/* Both arrays are compacted in place: neither write index passes its read index. */
	for (size_t j = 0; j < n_dirs; j++) {
		int c = 1;

		while (i < ix->n_by_id &&
		       (c = memcmp(ix->by_id[i]->start, dirs[j], STORE_CRASH_ID_LEN)) < 0)
			i++;
		if (i < ix->n_by_id && c == 0)
			ix->by_id[n_keep++] = ix->by_id[i++];
		else
			memmove(dirs[n_missing++], dirs[j], sizeof(CrashIdSlot));
	}
	ix->n_by_id = n_keep;
	*ret_missing = TAKE_PTR(dirs);
	*ret_n_missing = n_missing;
	return 0;
}

/* Adds the summary of the crash in directory id to map; 1 if it is a whole crash, else 0. */
static int map_add_loaded(Store *s, json_t *map, const char *id)
{
	json_t *summary;
	int r;

	r = crash_summary_load(s, id, &summary);
	if (r < 0 || !summary)
		return r;
	return json_object_set_new(map, id, summary) < 0 ? -ENOMEM : 1;
}

/*
 * Adds a crash's summary to map: its index line's, or else (the line's JSON is
 * not the summary of that id) its crash.json's. Returns 1 in the second case.
 */
static int map_add_indexed(Store *s, json_t *map, const IndexLine *x)
{
	uint32_t b = column_begin(x, COLUMN_SUMMARY);
	char id[STORE_CRASH_ID_LEN + 1];
	json_t *summary, *sid;
	int r;

	memcpy(id, x->start, STORE_CRASH_ID_LEN);
	id[STORE_CRASH_ID_LEN] = '\0';
	summary = json_loadb(x->start + b, x->end[COLUMN_SUMMARY] - b, 0, NULL);
	sid = json_object_get(summary, "id");
	if (json_is_object(summary) && json_is_string(sid) && streq(json_string_value(sid), id))
		return json_object_set_new(map, id, summary) < 0 ? -ENOMEM : 0;
	json_decref(summary);
	r = map_add_loaded(s, map, id);
	return r < 0 ? r : 1;
}

/*
 * The index's lines checked against the crash directories, as a map (id ->
 * summary): one readdir, reading only the crash.json of crashes the index
 * lacks. Returns > 0 if the index differs from the directories.
 */
static int index_reconcile_map(Store *s, IndexLines *ix, json_t **ret_map)
{
	_cleanup_free_ CrashIdSlot *missing = NULL;
	size_t n_indexed = ix->n_by_id, n_missing;
	json_auto_t *map = NULL;
	bool changed;
	int r;

	map = json_object();
	if (!map)
		return -ENOMEM;
	r = index_reconcile(s, ix, false, &missing, &n_missing);
	if (r < 0)
		return r;
	changed = ix->n_by_id < n_indexed;
	for (size_t i = 0; i < ix->n_by_id; i++) {
		r = map_add_indexed(s, map, ix->by_id[i]);
		if (r < 0)
			return r;
		changed = changed || r > 0;
	}
	for (size_t i = 0; i < n_missing; i++) {
		r = map_add_loaded(s, map, missing[i]);
		if (r < 0)
			return r;
		changed = changed || r > 0;
	}
	*ret_map = TAKE_PTR(map);
	return changed;
}

/* Loads the index, checked against the directories. Returns > 0 if it should be rewritten. */
static int index_load(Store *s, json_t **ret_map)
{
	_cleanup_(index_lines_done) IndexLines ix = {};
	json_auto_t *map = NULL;
	bool rewrite;
	int r;

	r = index_lines_read(s, &ix);
	if (r == -ENOMEM)
		return r;
	/* An index that cannot be read is rebuilt from the crash directories. */
	rewrite = r < 0 || ix.corrupt;

	r = index_reconcile_map(s, &ix, &map);
	if (r < 0)
		return r;
	/* Compact once superseded lines outnumber live ones. */
	if (r > 0 || ix.n_file_lines > 2 * json_object_size(map) + 64)
		rewrite = true;

	*ret_map = TAKE_PTR(map);
	return rewrite;
}

static int compare_summaries(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t tx = json_integer_value(json_object_get(x, "time"));
	json_int_t ty = json_integer_value(json_object_get(y, "time"));

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "id")),
		      json_string_value(json_object_get(y, "id")));
}

static int map_to_sorted_array(json_t *map, json_t **ret)
{
	_cleanup_free_ json_t **v = NULL;
	json_t *array, *summary;
	const char *id;
	size_t n = 0;

	v = calloc(json_object_size(map) + 1, sizeof(json_t *));
	array = json_array();
	if (!v || !array) {
		json_decref(array);
		return -ENOMEM;
	}
	json_object_foreach(map, id, summary)
		v[n++] = summary;
	qsort(v, n, sizeof(json_t *), compare_summaries);
	for (size_t i = 0; i < n; i++)
		if (json_array_append(array, v[i]) < 0) {
			json_decref(array);
			return -ENOMEM;
		}
	*ret = array;
	return 0;
}

/* The checked index as a map; repairs the file when that is possible without waiting. */
static int store_index(Store *s, json_t **ret_map)
{
	json_auto_t *map = NULL;
	int r;

	r = index_load(s, &map);
	/* Rewritten also when it lacks a stamp, so that listing can skip the directory. */
	if (r >= 0 && (r > 0 || !index_is_fresh(s)) && !(s->flags & STORE_READONLY)) {
		_cleanup_close_ int lock_fd = store_lock(s, false);

		if (lock_fd >= 0) {
			/* Reload under the lock so that no concurrent update is lost. */
			json_decref(map);
			map = NULL;
			r = index_load(s, &map);
			if (r > 0 || (r == 0 && !index_is_fresh(s)))
				(void)index_write(s, map);
		}
	}
	if (r < 0)
		return r;
	*ret_map = TAKE_PTR(map);
	return 0;
}

int store_list(Store *s, json_t **ret_summaries)
{
	json_auto_t *map = NULL;
	int r;

	r = store_index(s, &map);
	if (r < 0)
		return r;
	return map_to_sorted_array(map, ret_summaries);
}

/*
 * Listing reads the index through a read-only mapping and copies out only the
 * columns of the crashes it lists, into one block: on a store of 10,000
 * crashes the page faults of a byte-by-byte copy cost more than the parsing.
 * The entries and the strings are mapped whole (MAP_POPULATE,
 * mmap_populated()) instead of one page fault at a time.
 */
struct StoreListing {
	StoreListEntry *entries;
	size_t n_entries, n_allocated;
	char *strings; /* the index entries' strings, NUL-terminated, one after another */
	size_t strings_size;
	const char *index; /* the mapped index, which the summaries point into */
	size_t index_size;
	json_t *loaded;	    /* summaries of crashes the index lacked, owning their strings */
	char **loaded_text; /* and those summaries as JSON */
	size_t n_loaded_text;
};

StoreListing *store_listing_free(StoreListing *l)
{
	if (!l)
		return NULL;
	if (l->entries)
		munmap(l->entries, l->n_allocated * sizeof(*l->entries));
	if (l->strings)
		munmap(l->strings, l->strings_size);
	if (l->index)
		munmap((void *)l->index, l->index_size);
	json_decref(l->loaded);
	for (size_t i = 0; i < l->n_loaded_text; i++)
		free(l->loaded_text[i]);
	free(l->loaded_text);
	free(l);
	return NULL;
}

size_t store_listing_size(const StoreListing *l)
{
	return l->n_entries;
}

const StoreListEntry *store_listing_entry(const StoreListing *l, size_t i)
{
	return i < l->n_entries ? &l->entries[i] : NULL;
}

/* The next entry: store_list_entries() made room for every crash it lists. */
static StoreListEntry *listing_add(StoreListing *l)
{
	return &l->entries[l->n_entries++];
}

static const char *string_or_empty(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

/* An entry for a crash the index lacks, from its crash.json (the slow way). */
static int listing_add_loaded(StoreListing *l, Store *s, const char *id)
{
	json_t *summary;
	StoreListEntry *e;
	char **text;
	int r;

	r = crash_summary_load(s, id, &summary);
	if (r < 0 || !summary)
		return r;
	if (json_array_append_new(l->loaded, summary) < 0)
		return -ENOMEM;
	text = reallocarray(l->loaded_text, l->n_loaded_text + 1, sizeof(char *));
	if (!text)
		return -ENOMEM;
	l->loaded_text = text;
	text[l->n_loaded_text] = json_dumps(summary, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text[l->n_loaded_text])
		return -ENOMEM;
	e = listing_add(l);
	*e = (StoreListEntry){
		.id = string_or_empty(summary, "id"),
		.time = (uint64_t)MAX(json_integer_value(json_object_get(summary, "time")), 0),
		.kind = string_or_empty(summary, "kind"),
		.reason = string_or_empty(summary, "reason"),
		.kernel_version = string_or_empty(summary, "kernel_version"),
		.signature = string_or_empty(summary, "signature"),
		.upload = store_upload_state(json_object_get(summary, "upload")),
		.headline = json_string_value(json_object_get(summary, "message"))
				    ?: string_or_empty(summary, "function"),
		.summary = text[l->n_loaded_text],
		.summary_len = strlen(text[l->n_loaded_text]),
	};
	l->n_loaded_text++;
	return 0;
}

/* By time, then id: the order of the listing. */
static int compare_index_lines_by_time(const void *a, const void *b)
{
	const IndexLine *x = *(const IndexLine *const *)a, *y = *(const IndexLine *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return memcmp(x->start, y->start, STORE_CRASH_ID_LEN);
}

static int compare_entries(const void *a, const void *b)
{
	const StoreListEntry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* Copies the columns of the listed index lines out of the mapping into l->strings. */
static int listing_copy_strings(StoreListing *l, IndexLine *const *keep, size_t n)
{
	static const int text_columns[] = {COLUMN_ID,	   COLUMN_KIND,	     COLUMN_REASON,
					   COLUMN_KERNEL,  COLUMN_SIGNATURE, COLUMN_UPLOAD,
					   COLUMN_HEADLINE};
	size_t size = 0;
	char *w;

	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < ARRAY_SIZE(text_columns); c++)
			size += keep[i]->end[text_columns[c]] -
				column_begin(keep[i], text_columns[c]) + 1;
	if (size == 0)
		return 0;
	w = mmap_populated(size);
	if (!w)
		return -errno;
	l->strings = w;
	l->strings_size = size;

	for (size_t i = 0; i < n; i++) {
		const char *col[_COLUMN_MAX];
		StoreListEntry *e = listing_add(l);

		for (size_t c = 0; c < ARRAY_SIZE(text_columns); c++) {
			uint32_t b = column_begin(keep[i], text_columns[c]);
			uint32_t len = keep[i]->end[text_columns[c]] - b;

			memcpy(w, keep[i]->start + b, len);
			w[len] = '\0';
			col[text_columns[c]] = w;
			w += len + 1;
		}
		*e = (StoreListEntry){
			.id = col[COLUMN_ID],
			.time = keep[i]->time,
			.kind = col[COLUMN_KIND],
			.reason = col[COLUMN_REASON],
			.kernel_version = col[COLUMN_KERNEL],
			.signature = col[COLUMN_SIGNATURE],
			.upload = col[COLUMN_UPLOAD],
			.headline = col[COLUMN_HEADLINE],
			.summary = keep[i]->start + column_begin(keep[i], COLUMN_SUMMARY),
			.summary_len = keep[i]->end[COLUMN_SUMMARY] -
				       column_begin(keep[i], COLUMN_SUMMARY),
		};
	}
	return 0;
}

/*
 * The entries: the indexed crashes copied out in the order of the listing,
 * which then needs sorting only for the crashes the index lacked (missing),
 * read from their crash.json.
 */
static int listing_fill(StoreListing *l, Store *s, IndexLine **lines, size_t n,
			const CrashIdSlot *missing, size_t n_missing)
{
	int r;

	if (n > 0)
		qsort(lines, n, sizeof(*lines), compare_index_lines_by_time);
	l->n_allocated = n + n_missing + 1;
	l->entries = mmap_populated(l->n_allocated * sizeof(*l->entries));
	if (!l->entries)
		return -errno;
	r = listing_copy_strings(l, lines, n);
	for (size_t k = 0; r >= 0 && k < n_missing; k++)
		r = listing_add_loaded(l, s, missing[k]);
	if (r < 0)
		return r;
	if (n_missing > 0)
		qsort(l->entries, l->n_entries, sizeof(*l->entries), compare_entries);
	return 0;
}

int store_list_entries(Store *s, StoreListing **ret)
{
	_cleanup_(store_listing_freep) StoreListing *l = NULL;
	_cleanup_(index_lines_done) IndexLines ix = {};
	_cleanup_free_ CrashIdSlot *missing = NULL;
	size_t n_missing;
	int r;

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->loaded = json_array();
	if (!l->loaded)
		return -ENOMEM;

	r = index_lines_read(s, &ix);
	if (r < 0)
		return r;
	/* A corrupt index: list from the crash directories, and tell. */
	if (ix.corrupt)
		ix.n_by_id = 0;
	/* Unless the store directory is as a writer left it after checking the index (then the
	 * index holds every crash, and only those), the crash directories tell. */
	r = index_reconcile(s, &ix, true, &missing, &n_missing);
	if (r < 0)
		return r;
	r = listing_fill(l, s, ix.by_id, ix.n_by_id, missing, n_missing);
	if (r < 0)
		return r;
	/* The summaries point into the mapping: the listing keeps it. */
	l->index = TAKE_PTR(ix.buf);
	l->index_size = ix.buf_size;
	*ret = TAKE_PTR(l);
	return ix.corrupt;
}

int store_rebuild_index(Store *s)
{
	_cleanup_close_ int lock_fd = -1;
	IndexLines none = {};
	json_auto_t *map = NULL;
	int r;

	lock_fd = store_lock(s, true);
	if (lock_fd < 0)
		return lock_fd;
	r = index_reconcile_map(s, &none, &map);
	if (r < 0)
		return r;
	return index_write(s, map);
}

int store_resolve_id(Store *s, const char *prefix, char **ret_id, json_t **ret_matches)
{
	json_auto_t *summaries = NULL, *matches = NULL;
	size_t len = prefix ? strlen(prefix) : 0;
	json_t *summary;
	size_t i;
	int r;

	if (len == 0 || len > STORE_CRASH_ID_LEN)
		return -EINVAL;
	for (const char *p = prefix; *p; p++)
		if (!isxdigit((unsigned char)*p) && *p != '-')
			return -EINVAL;

	r = store_list(s, &summaries);
	if (r < 0)
		return r;
	matches = json_array();
	if (!matches)
		return -ENOMEM;
	json_array_foreach(summaries, i, summary) {
		const char *id = json_string_value(json_object_get(summary, "id"));

		if (strncasecmp(id, prefix, len) == 0 && json_array_append(matches, summary) < 0)
			return -ENOMEM;
	}

	if (json_array_size(matches) == 0)
		return -ENOENT;
	if (json_array_size(matches) > 1) {
		if (ret_matches)
			*ret_matches = TAKE_PTR(matches);
		return -ENOTUNIQ;
	}
	if (ret_id) {
		char *id = strdup(
			json_string_value(json_object_get(json_array_get(matches, 0), "id")));

		if (!id)
			return -ENOMEM;
		*ret_id = id;
	}
	if (ret_matches)
		*ret_matches = TAKE_PTR(matches);
	return 0;
}

static int crash_json_write(int crash_fd, json_t *crash, bool atomic)
{
	_cleanup_free_ char *text = NULL;
	size_t len;

	text = json_dumps(crash, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!text)
		return -ENOMEM;
	len = strlen(text);
	text[len++] = '\n';
	if (atomic)
		return write_file_atomic_at(crash_fd, CRASH_FILE, STORE_FILE_MODE, text, len);
	/* A new crash: store_txns_commit() makes it durable. */
	return write_file_at_nosync(crash_fd, CRASH_FILE, O_EXCL, STORE_FILE_MODE, text, len);
}

int store_update_crash(Store *s, const char *id, json_t *crash)
{
	_cleanup_close_ int lock_fd = -1, crash_fd = -1;
	json_t *cid = json_object_get(crash, "id");
	bool fresh;
	int r;

	if (!json_is_object(crash) || !json_is_string(cid) || !streq(json_string_value(cid), id))
		return -EINVAL;
	lock_fd = store_lock(s, true);
	if (lock_fd < 0)
		return lock_fd;
	crash_fd = open_crash_dir(s, id);
	if (crash_fd < 0)
		return crash_fd;
	fresh = index_is_fresh(s);
	r = crash_json_write(crash_fd, crash, true);
	if (r < 0)
		return r;
	/* crash.json is the truth; should this fail, listing repairs the index. */
	if (index_append_crash(s, crash) >= 0 && fresh)
		(void)index_append_stamp(s);
	return 0;
}

static int store_delete_locked(Store *s, const char *id)
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

static uint64_t summary_uint(json_t *summary, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(summary, key));

	return v > 0 ? (uint64_t)v : 0;
}

int store_vacuum(Store *s, const StoreVacuumLimits *limits, uint64_t now, json_t **ret_removed)
{
	_cleanup_close_ int lock_fd = -1;
	json_auto_t *map = NULL, *summaries = NULL, *removed = NULL;
	uint64_t use = 0, count;
	json_t *summary;
	size_t i;
	int r;

	lock_fd = store_lock(s, true);
	if (lock_fd < 0)
		return lock_fd;
	r = index_load(s, &map);
	if (r < 0)
		return r;
	if (r > 0 || !index_is_fresh(s))
		(void)index_write(s, map);
	r = map_to_sorted_array(map, &summaries);
	if (r < 0)
		return r;
	removed = json_array();
	if (!removed)
		return -ENOMEM;

	count = json_array_size(summaries);
	json_array_foreach(summaries, i, summary)
		use += summary_uint(summary, "stored_bytes");

	json_array_foreach(summaries, i, summary) {
		const char *id = json_string_value(json_object_get(summary, "id"));
		uint64_t archived = summary_uint(summary, "archived_at");
		bool too_old = limits->max_age > 0 && archived + limits->max_age < now;
		bool too_many = limits->max_crashes > 0 && count > limits->max_crashes;
		bool too_big = limits->max_use > 0 && use > limits->max_use;

		if (!too_old && !too_many && !too_big)
			continue;
		if (limits->keep_unsent && summary_is_unsent(summary))
			continue;

		r = store_delete_locked(s, id);
		if (r < 0)
			return r;
		if (json_array_append_new(removed, json_string(id)) < 0)
			return -ENOMEM;
		count--;
		use -= MIN(use, summary_uint(summary, "stored_bytes"));
	}

	r = (int)MIN(json_array_size(removed), (size_t)INT32_MAX);
	if (ret_removed)
		*ret_removed = TAKE_PTR(removed);
	return r;
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

int store_txn_append(StoreTxn *t, const char *name, const void *buf, size_t len)
{
	TxnAppend *a = NULL;
	const char *base;
	int dir_fd, r;

	for (size_t i = 0; i < t->n_appends; i++)
		if (streq(t->appends[i].name, name))
			a = &t->appends[i];

	if (!a) {
		_cleanup_close_ int fd = -1;
		_cleanup_free_ char *copy = NULL;
		TxnAppend *p;

		r = txn_resolve(t, name, &dir_fd, &base);
		if (r < 0)
			return r;
		copy = strdup(name);
		p = reallocarray(t->appends, t->n_appends + 1, sizeof(TxnAppend));
		if (!copy || !p)
			return -ENOMEM;
		t->appends = p;
		fd = open_create_at(dir_fd, base, O_EXCL | O_APPEND, STORE_FILE_MODE);
		if (fd < 0)
			return fd;
		a = &t->appends[t->n_appends++];
		a->name = TAKE_PTR(copy);
		a->fd = TAKE_FD(fd);
	}

	r = write_full(a->fd, buf, len);
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

	for (size_t i = 0; i < t->n_appends; i++)
		if (close(TAKE_FD(t->appends[i].fd)) < 0)
			return -errno;
	r = crash_json_write(t->dir_fd, crash, false);
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
	for (size_t i = 0; i < t->n_appends; i++) {
		if (t->appends[i].fd >= 0)
			close(t->appends[i].fd);
		free(t->appends[i].name);
	}
	free(t->appends);
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
