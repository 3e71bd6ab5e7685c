/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Listing kdump-tools' dump directories and reading their dmesg (see kdump.h for the format). */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "kdump.h"
#include "utf8-util.h"

static const char *const kdump_skip_names[] = {
	[KDUMP_SKIP_INCOMPLETE] = "incomplete, the capture is writing it or was cut short",
	[KDUMP_SKIP_NO_DMESG] = "no dmesg file",
	[KDUMP_SKIP_LINK] = "symbolic link",
	[KDUMP_SKIP_SPECIAL] = "dmesg is not a regular file of one name",
	[KDUMP_SKIP_OWNER] = "not owned by root",
	[KDUMP_SKIP_NAME] = "name not valid UTF-8 or with control characters",
	[KDUMP_SKIP_UNREADABLE] = "cannot be read",
};
DEFINE_STRING_TABLE_TO_STRING(kdump_skip, KdumpSkip, kdump_skip_names, _KDUMP_SKIP_MAX)

static const char *const vmcore_format_names[] = {
	[KDUMP_VMCORE_UNKNOWN] = "unknown",
	[KDUMP_VMCORE_FLATTENED] = "flattened",
	[KDUMP_VMCORE_KDUMP_COMPRESSED] = "kdump-compressed",
	[KDUMP_VMCORE_ELF] = "elf",
	[KDUMP_VMCORE_GZIP] = "gzip",
	[KDUMP_VMCORE_BZIP2] = "bzip2",
	[KDUMP_VMCORE_XZ] = "xz",
	[KDUMP_VMCORE_LZ4] = "lz4",
};
DEFINE_STRING_TABLE_TO_STRING(kdump_vmcore_format, KdumpVmcoreFormat, vmcore_format_names,
			      _KDUMP_VMCORE_FORMAT_MAX)

static void kdump_dump_done(KdumpDump *d)
{
	free(d->name);
	free(d->dmesg_name);
	free(d->vmcore_name);
}

KdumpScan *kdump_scan_free(KdumpScan *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_dumps; i++)
		kdump_dump_done(&s->dumps[i]);
	free(s->dumps);
	for (size_t i = 0; i < s->n_skipped; i++)
		free(s->skipped[i].name);
	free(s);
	return NULL;
}

/* Written by the capture kernel, as root; else by the user who reads it (a test's tree). */
static bool owner_trusted(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* A name that can go into crash.json, a journal field and a log line as it is. */
static bool name_is_plain(const char *name)
{
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			return false;
	return utf8_is_valid(name, strlen(name));
}

static bool has_digits_after(const char *name, const char *prefix)
{
	size_t l = strlen(prefix);

	if (strncmp(name, prefix, l) != 0 || name[l] == '\0')
		return false;
	for (const char *p = name + l; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* "dump.<STAMP>[.<ext>]" or "vmcore.<STAMP>": a vmcore whole and renamed into place. */
static bool is_vmcore_name(const char *name)
{
	return (strncmp(name, "dump.", 5) == 0 && name[5] >= '0' && name[5] <= '9') ||
	       has_digits_after(name, "vmcore.");
}

/* Opens a directory of the root for listing, checked to be the one fstatat() saw. */
static int open_dump_dir(int root_fd, const char *name, const struct stat *seen)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino)
		return -ESTALE;
	return TAKE_FD(fd);
}

typedef struct DumpFiles {
	char *dmesg, *vmcore;
	bool incomplete;
} DumpFiles;

static void dump_files_done(DumpFiles *f)
{
	free(f->dmesg);
	free(f->vmcore);
}

/* Keeps the first name by strcmp() of the matching entries, in *slot. */
static int keep_first_name(char **slot, const char *name)
{
	char *copy;

	if (*slot && strcmp(*slot, name) <= 0)
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

static int list_dump_files(int dir_fd, DumpFiles *ret)
{
	_cleanup_(dump_files_done) DumpFiles f = {};
	struct dirent *de;
	DIR *d;
	int r;

	r = opendir_at(dir_fd, ".", 0, &d);
	if (r < 0)
		return r;
	r = 0;
	FOREACH_DIRENT(de, d, r = -errno) {
		if (strstr(de->d_name, "-incomplete"))
			f.incomplete = true;
		else if (has_digits_after(de->d_name, "dmesg."))
			r = keep_first_name(&f.dmesg, de->d_name);
		else if (is_vmcore_name(de->d_name))
			r = keep_first_name(&f.vmcore, de->d_name);
		if (r < 0)
			break;
	}
	closedir(d);
	if (r < 0)
		return r;
	*ret = f;
	f = (DumpFiles){};
	return 0;
}

/*
 * Looks at one directory of the root: 1 and *ret for a complete dump, 0 and
 * *ret_skip (or *ret_error for KDUMP_SKIP_UNREADABLE) if it is not one to take.
 */
static int examine_dir(int root_fd, const char *name, const struct stat *st, KdumpDump *ret,
		       KdumpSkip *ret_skip, int *ret_error)
{
	_cleanup_(dump_files_done) DumpFiles f = {};
	_cleanup_close_ int fd = -1;
	struct stat dst;
	int r;

	if (!name_is_plain(name)) {
		*ret_skip = KDUMP_SKIP_NAME;
		return 0;
	}
	if (!owner_trusted(st)) {
		*ret_skip = KDUMP_SKIP_OWNER;
		return 0;
	}
	fd = open_dump_dir(root_fd, name, st);
	if (fd >= 0)
		r = list_dump_files(fd, &f);
	else
		r = fd;
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		*ret_skip = KDUMP_SKIP_UNREADABLE;
		*ret_error = r;
		return 0;
	}
	if (!f.dmesg) {
		*ret_skip = KDUMP_SKIP_NO_DMESG;
		return 0;
	}
	if (fstatat(fd, f.dmesg, &dst, AT_SYMLINK_NOFOLLOW) < 0) {
		*ret_skip = KDUMP_SKIP_UNREADABLE;
		*ret_error = -errno;
		return 0;
	}
	if (S_ISLNK(dst.st_mode)) {
		*ret_skip = KDUMP_SKIP_LINK;
		return 0;
	}
	/* Another name of the file would make it someone else's file (/etc/shadow). */
	if (!S_ISREG(dst.st_mode) || dst.st_nlink > 1) {
		*ret_skip = KDUMP_SKIP_SPECIAL;
		return 0;
	}
	if (!owner_trusted(&dst)) {
		*ret_skip = KDUMP_SKIP_OWNER;
		return 0;
	}
	if (f.incomplete || !f.vmcore) {
		*ret_skip = KDUMP_SKIP_INCOMPLETE;
		return 0;
	}

	*ret = (KdumpDump){
		.name = strdup(name),
		.dev = (uint64_t)st->st_dev,
		.ino = (uint64_t)st->st_ino,
		.dmesg_name = TAKE_PTR(f.dmesg),
		.dmesg_ino = (uint64_t)dst.st_ino,
		.dmesg_size = (uint64_t)dst.st_size,
		.time = (uint64_t)dst.st_mtim.tv_sec * 1000000ULL +
			(uint64_t)dst.st_mtim.tv_nsec / 1000ULL,
		.vmcore_name = TAKE_PTR(f.vmcore),
	};
	if (!ret->name) {
		kdump_dump_done(ret);
		return -ENOMEM;
	}
	return 1;
}

static int add_skipped(KdumpScan *s, const char *name, KdumpSkip reason, int error)
{
	char *copy;

	if (s->n_skipped_seen++ >= KDUMP_SKIPPED_MAX)
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	s->skipped[s->n_skipped++] = (KdumpSkipped){.name = copy, .reason = reason, .error = error};
	return 0;
}

static int compare_dumps_by_name(const void *a, const void *b)
{
	return strcmp(((const KdumpDump *)a)->name, ((const KdumpDump *)b)->name);
}

/* Sorts the dumps and keeps the first max of them. */
static void keep_first_dumps(KdumpScan *s, size_t max)
{
	if (s->n_dumps > 0)
		qsort(s->dumps, s->n_dumps, sizeof(KdumpDump), compare_dumps_by_name);
	while (s->n_dumps > max)
		kdump_dump_done(&s->dumps[--s->n_dumps]);
}

/* Adds a complete dump; at 2 * max of them, only the first max by name stay. */
static int add_dump(KdumpScan *s, KdumpDump *d, size_t max, size_t *allocated)
{
	s->n_dumps_seen++;
	if (s->n_dumps == 2 * max)
		keep_first_dumps(s, max);
	if (s->n_dumps == *allocated) {
		size_t want = MIN(MAX(*allocated * 2, (size_t)16), 2 * max);
		KdumpDump *p = reallocarray(s->dumps, want, sizeof(*p));

		if (!p) {
			kdump_dump_done(d);
			return -ENOMEM;
		}
		s->dumps = p;
		*allocated = want;
	}
	s->dumps[s->n_dumps++] = *d;
	return 0;
}

int kdump_scan(int root_fd, size_t max_dumps, KdumpScan **ret)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	size_t allocated = 0;
	struct dirent *de;
	DIR *d;
	int r;

	if (max_dumps == 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = opendir_at(root_fd, ".", 0, &d);
	if (r < 0)
		return r;
	r = 0;
	FOREACH_DIRENT(de, d, r = -errno) {
		KdumpDump dump;
		KdumpSkip skip = _KDUMP_SKIP_MAX;
		struct stat st;
		int error = 0;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(root_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue; /* removed meanwhile (KDUMP_NUM_DUMPS) */
			r = -errno;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			r = add_skipped(s, de->d_name, KDUMP_SKIP_LINK, 0);
		} else if (S_ISDIR(st.st_mode)) {
			r = examine_dir(root_fd, de->d_name, &st, &dump, &skip, &error);
			if (r > 0)
				r = add_dump(s, &dump, max_dumps, &allocated);
			else if (r == 0)
				r = add_skipped(s, de->d_name, skip, error);
		}
		if (r < 0)
			break;
	}
	closedir(d);
	if (r < 0)
		return r;
	keep_first_dumps(s, max_dumps);
	*ret = TAKE_PTR(s);
	return 0;
}

/* Reads the last max bytes of the file of size bytes, from their first whole line. */
static int read_tail(int fd, uint64_t size, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, skip = 0;
	char *nl;
	int r;

	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	if (lseek(fd, (off_t)(size - max), SEEK_SET) < 0)
		return -errno;
	r = read_full(fd, buf, max, &len);
	if (r < 0)
		return r;
	/* A tail with no line end at all is kept whole: there is nothing better to cut at. */
	nl = memchr(buf, '\n', len);
	if (nl && (size_t)(nl - buf) + 1 < len)
		skip = (size_t)(nl - buf) + 1;
	memmove(buf, buf + skip, len - skip);
	len -= skip;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

/*
 * Opens the file name of the dump's directory, checked to be still the one
 * listed, as kdump_scan() checks a dmesg: a regular file of one name that
 * root (or the reader) owns. *st gets its fstat().
 */
static int open_dump_file(int root_fd, const KdumpDump *d, const char *name, struct stat *st)
{
	_cleanup_close_ int dir_fd = -1, fd = -1;

	*st = (struct stat){.st_dev = (dev_t)d->dev, .st_ino = (ino_t)d->ino};
	dir_fd = open_dump_dir(root_fd, d->name, st);
	if (dir_fd < 0)
		return dir_fd == -ENOENT ? -ESTALE : dir_fd;
	fd = open_regular_at(dir_fd, name, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		return -errno;
	if (st->st_nlink > 1)
		return -EBADFD;
	if (!owner_trusted(st))
		return -EPERM;
	return TAKE_FD(fd);
}

int kdump_vmcore_format(int root_fd, const KdumpDump *d, KdumpVmcoreFormat *ret)
{
	static const struct {
		const char *magic;
		size_t len;
		KdumpVmcoreFormat format;
	} magics[] = {
		/* makedumpfile's MAKEDUMPFILE_SIGNATURE, in a field of 16 bytes */
		{"makedumpfile\0\0\0\0", 16, KDUMP_VMCORE_FLATTENED},
		{"KDUMP   ", 8, KDUMP_VMCORE_KDUMP_COMPRESSED},
		{"\x7f"
		 "ELF",
		 4, KDUMP_VMCORE_ELF},
		{"\x1f\x8b", 2, KDUMP_VMCORE_GZIP},
		{"BZh", 3, KDUMP_VMCORE_BZIP2},
		{"\xfd"
		 "7zXZ\0",
		 6, KDUMP_VMCORE_XZ},
		{"\x04\x22\x4d\x18", 4, KDUMP_VMCORE_LZ4},
	};
	_cleanup_close_ int fd = -1;
	struct stat st;
	char head[16];
	size_t len;
	int r;

	fd = open_dump_file(root_fd, d, d->vmcore_name, &st);
	if (fd < 0)
		return fd;
	r = read_full(fd, head, sizeof(head), &len);
	if (r < 0)
		return r;
	*ret = KDUMP_VMCORE_UNKNOWN;
	for (size_t i = 0; i < ARRAY_SIZE(magics); i++)
		if (len >= magics[i].len && memcmp(head, magics[i].magic, magics[i].len) == 0)
			*ret = magics[i].format;
	return 0;
}

int kdump_dmesg_read(int root_fd, const KdumpDump *d, size_t max, char **ret, size_t *ret_len,
		     bool *ret_cut)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	char *buf;
	size_t len;
	int r;

	if (max == 0)
		return -EINVAL;
	fd = open_dump_file(root_fd, d, d->dmesg_name, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_ino != d->dmesg_ino)
		return -ESTALE;

	r = (uint64_t)st.st_size > max ? -EFBIG : read_full_fd(fd, max, &buf, &len);
	if (r == -EFBIG) {
		/* Of a larger file, or one that grew while read: its newest max bytes. */
		if (fstat(fd, &st) < 0)
			return -errno;
		r = read_tail(fd, MAX((uint64_t)st.st_size, (uint64_t)max), max, &buf, &len);
		if (r < 0)
			return r;
		*ret_cut = true;
	} else if (r < 0)
		return r;
	else
		*ret_cut = false;
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* The printk time at the start of the line p ... eol: "[ SSSS.UUUUUU]", after "<N>" if any. */
static int line_time(const char *p, const char *eol, uint64_t *ret)
{
	uint64_t sec = 0, usec = 0;
	size_t digits = 0;

	if (p < eol && *p == '<') {
		while (p < eol && *p != '>')
			p++;
		if (p < eol)
			p++;
	}
	if (p >= eol || *p++ != '[')
		return -ENOENT;
	while (p < eol && *p == ' ')
		p++;
	for (; p < eol && *p >= '0' && *p <= '9' && digits < 12; p++, digits++)
		sec = sec * 10 + (uint64_t)(*p - '0');
	if (digits == 0 || p >= eol || *p++ != '.')
		return -ENOENT;
	for (digits = 0; p < eol && *p >= '0' && *p <= '9'; p++, digits++)
		if (digits < 6)
			usec = usec * 10 + (uint64_t)(*p - '0');
	if (digits == 0 || p >= eol || *p != ']')
		return -ENOENT;
	for (; digits < 6; digits++)
		usec *= 10;
	*ret = sec * 1000000ULL + usec;
	return 0;
}

int kdump_line_time(const char *log, size_t len, const char *text, uint64_t *ret)
{
	const char *hit, *start, *eol;

	if (!text || !*text)
		return -ENOENT;
	hit = memmem(log, len, text, strlen(text));
	if (!hit)
		return -ENOENT;
	for (start = hit; start > log && start[-1] != '\n'; start--)
		;
	eol = memchr(hit, '\n', (size_t)(log + len - hit)) ?: log + len;
	return line_time(start, eol, ret);
}
