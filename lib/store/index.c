/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The index of the crash store (store.h): writing it, reading it with one
 * parser, checking it against the crash directories and repairing it.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fs-util.h"
#include "store-internal.h"

#define INDEX_MAX (1024U * 1024 * 1024)

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

const char *summary_column(json_t *summary, int c)
{
	const char *headline;

	switch (c) {
	case COLUMN_UPLOAD:
		return store_upload_state(json_object_get(summary, "upload"));
	case COLUMN_HEADLINE:
		headline = json_string_value(json_object_get(summary, "message"));
		return headline ?: json_string_value(json_object_get(summary, "function"));
	default:
		return column_keys[c] ? json_string_value(json_object_get(summary, column_keys[c]))
				      : NULL;
	}
}

static int index_line_format(json_t *summary, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *json = NULL, *buf = NULL;
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

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	for (int c = COLUMN_ID; c < COLUMN_SUMMARY && r == 0; c++)
		r = put_column(f, c == COLUMN_TIME ? tbuf : summary_column(summary, c));
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

int index_append(Store *s, json_t *summary)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	r = index_line_format(summary, &text, &len);
	if (r < 0)
		return r;
	return index_append_text(s, text, len);
}

int index_append_tombstone(Store *s, const char *id)
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
bool index_is_fresh(Store *s)
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
int index_append_stamp(Store *s)
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

int index_append_crashes(Store *s, json_t *const *crashes, size_t n)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r = 0;

	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++) {
		_cleanup_free_ char *line = NULL;
		json_auto_t *summary = NULL;
		size_t line_len;

		r = store_crash_summary(crashes[i], &summary);
		if (r >= 0)
			r = index_line_format(summary, &line, &line_len);
		if (r >= 0 && fwrite(line, 1, line_len, f) != line_len)
			r = -ENOMEM;
	}
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	return index_append_text(s, text, len);
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

/* By time, then id: the order of the listing. */
int compare_index_lines_by_time(const void *a, const void *b)
{
	const IndexLine *x = *(const IndexLine *const *)a, *y = *(const IndexLine *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return memcmp(x->start, y->start, STORE_CRASH_ID_LEN);
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

void index_lines_done(IndexLines *ix)
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
int index_lines_read(Store *s, IndexLines *ret)
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

int index_write(Store *s, json_t *map)
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

int index_write_empty(Store *s)
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
int index_reconcile(Store *s, IndexLines *ix, bool trust_stamp, CrashIdSlot **ret_missing,
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
	/* Added in the order of the listing, which map_to_sorted_array() then sorts fastest. */
	if (ix->n_by_id > 0)
		qsort(ix->by_id, ix->n_by_id, sizeof(*ix->by_id), compare_index_lines_by_time);
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
int index_load(Store *s, json_t **ret_map)
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

/*
 * The write lock held: every crash's summary, oldest first (by "time", then
 * "id"), from the index checked against the crash directories, which is
 * rewritten if it differs from them or lacks a stamp (so that listing can
 * skip the directory).
 */
int index_repair(Store *s, json_t **ret_summaries)
{
	json_auto_t *map = NULL;
	int r;

	r = index_load(s, &map);
	if (r < 0)
		return r;
	if (r > 0 || !index_is_fresh(s))
		(void)index_write(s, map);
	return map_to_sorted_array(map, ret_summaries);
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
