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
	free(s->skipped);
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

static int add_entry(PstoreScan *s, const char *name, const struct stat *st)
{
	const char *skip_reason = NULL;
	char *copy;

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

	copy = strdup(name);
	if (!copy)
		return -ENOMEM;

	if (skip_reason) {
		PstoreSkipped *p = reallocarray(s->skipped, s->n_skipped + 1, sizeof(*p));

		if (!p) {
			free(copy);
			return -ENOMEM;
		}
		s->skipped = p;
		s->skipped[s->n_skipped++] = (PstoreSkipped){.name = copy, .reason = skip_reason};
	} else {
		PstoreRecord *p = reallocarray(s->records, s->n_records + 1, sizeof(*p));
		PstoreRecord *r;

		if (!p) {
			free(copy);
			return -ENOMEM;
		}
		s->records = p;
		r = &s->records[s->n_records++];
		*r = (PstoreRecord){
			.name = copy,
			.size = (uint64_t)st->st_size,
			.time = (uint64_t)st->st_mtim.tv_sec * 1000000ULL +
				(uint64_t)st->st_mtim.tv_nsec / 1000ULL,
		};
		r->name_parsed = pstore_name_parse(name, &r->n) >= 0;
	}
	return 0;
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

int pstore_scan(int dir_fd, size_t max_record, PstoreProbe probe, void *userdata, PstoreScan **ret)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = NULL;
	struct dirent *de;
	DIR *d;
	int r = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;

	r = opendir_at(dir_fd, ".", 0, &d);
	if (r < 0)
		return r;

	FOREACH_DIRENT(de, d, r = -errno) {
		struct stat st;

		if (fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue; /* erased meanwhile */
			r = -errno;
			break;
		}
		r = add_entry(s, de->d_name, &st);
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
