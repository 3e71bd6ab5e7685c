/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Listing the pstore directory and reading the dmesg part headers. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "pstore.h"
#include "utf8-util.h"

static void pstore_crash_done(PstoreCrash *c)
{
	free(c->records);
	free(c->other_dump);
	free(c->logs);
	free(c->missing_parts);
}

PstoreScan *pstore_scan_free(PstoreScan *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_records; i++)
		free(s->records[i].name);
	free(s->records);
	for (size_t i = 0; i < s->n_skipped; i++)
		free(s->skipped[i].name);
	for (size_t i = 0; i < s->n_crashes; i++)
		pstore_crash_done(&s->crashes[i]);
	free(s->crashes);
	free(s);
	return NULL;
}

static int compare_records_by_name(const void *a, const void *b)
{
	return strcmp(((const PstoreRecord *)a)->name, ((const PstoreRecord *)b)->name);
}

/* Which of two records is older: by time, then by name, for a total order. */
static int compare_records_by_age(const PstoreRecord *a, const PstoreRecord *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * The records kept while the directory streams by are a max-heap by age: the
 * newest kept at s->records[0], where an older record takes its place once
 * max_records are kept.
 */
static void heap_sift_down(PstoreRecord *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, newest = i;
		PstoreRecord t;

		if (l < n && compare_records_by_age(&h[l], &h[newest]) > 0)
			newest = l;
		if (r < n && compare_records_by_age(&h[r], &h[newest]) > 0)
			newest = r;
		if (newest == i)
			return;
		t = h[i];
		h[i] = h[newest];
		h[newest] = t;
		i = newest;
	}
}

static void heap_sift_up(PstoreRecord *h, size_t i)
{
	while (i > 0 && compare_records_by_age(&h[i], &h[(i - 1) / 2]) > 0) {
		PstoreRecord t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* A record left out of the scan: the time of the oldest such is where the scan was cut. */
static void record_left_out(PstoreScan *s, const PstoreRecord *r)
{
	s->cut_time = MIN(s->cut_time, r->time);
}

/* Keeps r (taking its name) among the oldest max_records records, or leaves it out. */
static int keep_record(PstoreScan *s, PstoreRecord *r, size_t max_records, size_t *allocated)
{
	s->n_records_seen++;
	if (s->n_records < max_records) {
		if (s->n_records == *allocated) {
			size_t want = MIN(MAX(*allocated * 2, (size_t)64), max_records);
			PstoreRecord *p = reallocarray(s->records, want, sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->records = p;
			*allocated = want;
		}
		s->records[s->n_records] = *r;
		heap_sift_up(s->records, s->n_records++);
		return 0;
	}
	if (compare_records_by_age(r, &s->records[0]) > 0) {
		record_left_out(s, r);
		free(r->name);
		return 0;
	}
	record_left_out(s, &s->records[0]);
	free(s->records[0].name);
	s->records[0] = *r;
	heap_sift_down(s->records, s->n_records, 0);
	return 0;
}

static int add_entry(PstoreScan *s, const char *name, const struct stat *st, size_t max_records,
		     size_t *allocated)
{
	const char *skip_reason = NULL;
	PstoreRecord r;

	if (S_ISLNK(st->st_mode))
		skip_reason = "symbolic link";
	else if (S_ISDIR(st->st_mode))
		skip_reason = "directory";
	else if (!S_ISREG(st->st_mode))
		skip_reason = "special file";
	else if (st->st_nlink > 1)
		/* pstore has no link(2): another name of a file from elsewhere (/etc/shadow). */
		skip_reason = "hard link";
	else if (!utf8_is_valid(name, strlen(name)))
		/* The kernel names records in ASCII; crash.json could not hold this name. */
		skip_reason = "name not valid UTF-8";

	if (skip_reason) {
		char *copy;

		if (s->n_skipped_seen++ >= PSTORE_SKIPPED_MAX)
			return 0;
		copy = strdup(name);
		if (!copy)
			return -ENOMEM;
		s->skipped[s->n_skipped++] = (PstoreSkipped){.name = copy, .reason = skip_reason};
		return 0;
	}

	r = (PstoreRecord){
		.name = strdup(name),
		.size = (uint64_t)st->st_size,
		.time = (uint64_t)st->st_mtim.tv_sec * 1000000ULL +
			(uint64_t)st->st_mtim.tv_nsec / 1000ULL,
	};
	if (!r.name)
		return -ENOMEM;
	r.name_parsed = pstore_name_parse(name, &r.n) >= 0;
	return keep_record(s, &r, max_records, allocated);
}

/* Reads the header of an uncompressed dmesg record: the first bytes are enough. */
static void read_header(int dir_fd, PstoreRecord *r, size_t max_record)
{
	char head[PSTORE_HEADER_MAX];
	size_t len;
	int k;

	k = pstore_record_read_head(dir_fd, r, max_record, head, sizeof(head), &len);
	if (k < 0)
		r->error = k;
	else
		r->has_header = pstore_header_parse(head, len, &r->header) >= 0;
}

/* Reads what grouping needs: the header of dmesg records, the bytes of the others for probe. */
static void read_record(int dir_fd, PstoreRecord *r, size_t max_record, PstoreProbe probe,
			void *userdata)
{
	_cleanup_free_ char *buf = NULL, *inflated = NULL;
	const char *data;
	size_t len = 0, data_len;
	int k;

	if (r->name_parsed && pstore_type_is_log(r->n.type)) {
		/* Not read here, but too large to take: see pstore_group(). */
		if (r->size > max_record)
			r->error = -EFBIG;
		return;
	}
	if (r->name_parsed && r->n.type == PSTORE_TYPE_DMESG && !r->n.compressed) {
		read_header(dir_fd, r, max_record);
		return;
	}

	k = pstore_record_read(dir_fd, r, max_record, &buf, &len);
	if (k < 0) {
		r->error = k;
		if (probe)
			probe(r, NULL, 0, k, userdata);
		return;
	}
	data = buf;
	data_len = len;
	if (r->name_parsed && r->n.compressed) {
		k = pstore_record_inflate(buf, len, PSTORE_PROBE_MAX, &inflated, &data_len);
		if (k == -EBADMSG)
			return; /* corrupt: stored as it is, with no header and no text */
		if (k < 0) {
			r->error = k;
			if (probe)
				probe(r, NULL, 0, k, userdata);
			return;
		}
		data = inflated;
	}

	if (r->name_parsed && r->n.type == PSTORE_TYPE_DMESG)
		r->has_header = pstore_header_parse(data, data_len, &r->header) >= 0;
	if (probe)
		probe(r, data, data_len, 0, userdata);
}

int pstore_scan(int dir_fd, size_t max_record, size_t max_records, PstoreProbe probe,
		void *userdata, PstoreScan **ret)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = NULL;
	size_t allocated = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (max_records == 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cut_time = UINT64_MAX;

	r = opendir_at(dir_fd, ".", 0, &d);
	if (r < 0)
		return r;

	/* One entry at a time, as readdir(3) hands them out: nothing of the ones left out stays. */
	FOREACH_DIRENT(de, d, r = -errno) {
		struct stat st;

		if (fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue; /* erased meanwhile */
			r = -errno;
			break;
		}
		r = add_entry(s, de->d_name, &st, max_records, &allocated);
		if (r < 0)
			break;
	}
	closedir(d);
	if (r < 0)
		return r;

	if (s->n_records > 0)
		qsort(s->records, s->n_records, sizeof(PstoreRecord), compare_records_by_name);
	for (size_t i = 0; i < s->n_records; i++)
		read_record(dir_fd, &s->records[i], max_record, probe, userdata);

	*ret = TAKE_PTR(s);
	return 0;
}

int pstore_dir_has_entries(int dir_fd)
{
	struct dirent *de;
	DIR *d;
	int r;

	r = opendir_at(dir_fd, ".", 0, &d);
	if (r < 0)
		return r;
	r = 0;
	FOREACH_DIRENT(de, d, r = -errno) {
		r = 1;
		break;
	}
	closedir(d);
	return r;
}
