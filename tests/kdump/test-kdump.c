// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/kdump: listing dump directories as kdump-tools 1.8 leaves them, hostile
 * ones among them, and reading their dmesg bounded.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "kdump/kdump.h"
#include "macro.h"

static char root[] = "/tmp/test-kdump.XXXXXX";
static int root_fd = -1;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(root));
	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(root_fd, 0);
}

static void teardown(void)
{
	close(root_fd);
	(void)rm_rf_at(AT_FDCWD, root);
}

TestSuite(kdump, .init = setup, .fini = teardown);

/* Writes root/path (its directory made if needed) with text. */
static void put(const char *path, const char *text)
{
	char *dir = strdup(path), *slash = strrchr(dir, '/');

	if (slash) {
		*slash = '\0';
		(void)mkdirat(root_fd, dir, 0755);
	}
	free(dir);
	cr_assert_eq(write_file_at(root_fd, path, O_TRUNC, 0644, text, strlen(text)), 0, "%s",
		     path);
}

/* A dump as kdump-tools leaves it once it is done. */
static void put_dump(const char *stamp)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/dmesg.%s", stamp, stamp);
	put(path, "[    0.000000] Linux version 6.1.0-27-amd64\n"
		  "[   42.000001] Kernel panic - not syncing: sysrq triggered crash\n");
	snprintf(path, sizeof(path), "%s/dump.%s", stamp, stamp);
	put(path, "KDUMP   ");
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The scan, one sorted line per dump and per skipped directory. */
static char *describe(const KdumpScan *s)
{
	char *lines[64], *text = NULL;
	size_t n = 0, size = 0;
	FILE *f;

	for (size_t i = 0; i < s->n_dumps; i++)
		cr_assert_gt(asprintf(&lines[n++], "dump %s %s %s\n", s->dumps[i].name,
				      s->dumps[i].dmesg_name, s->dumps[i].vmcore_name),
			     0);
	for (size_t i = 0; i < s->n_skipped; i++)
		cr_assert_gt(asprintf(&lines[n++], "skip %s: %s\n", s->skipped[i].name,
				      kdump_skip_to_string(s->skipped[i].reason)),
			     0);
	qsort(lines, n, sizeof(char *), compare_lines);
	f = open_memstream(&text, &size);
	for (size_t i = 0; i < n; i++) {
		fputs(lines[i], f);
		free(lines[i]);
	}
	fclose(f);
	return text;
}

Test(kdump, hostile_directories)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	_cleanup_free_ char *text = NULL;

	put_dump("202612072201");
	/* makedumpfile failed, and cp made the vmcore */
	put("202612072202/dmesg.202612072202", "[ 1.0] x\n");
	put("202612072202/vmcore.202612072202", "core");
	/* KDUMP_COMPRESSION=xz */
	put("202612072203/dmesg.202612072203", "[ 1.0] x\n");
	put("202612072203/dump.202612072203.xz", "core");
	/* sent over the network: <host>-<STAMP> */
	put("host-202612072204/dmesg.202612072204", "[ 1.0] x\n");
	put("host-202612072204/dump.202612072204", "core");
	/* the vmcore being written, or cut short */
	put("202612072205/dmesg.202612072205", "[ 1.0] x\n");
	put("202612072205/dump-incomplete", "half");
	put("202612072206/dmesg.202612072206", "[ 1.0] x\n");
	put("202612072206/dump-incomplete.gz", "half");
	/* the dmesg being written: no vmcore begun */
	put("202612072207/dmesg.202612072207", "[ 1.0] x\n");
	/* KDUMP_DUMP_DMESG=0 */
	put("202612072208/dump.202612072208", "core");
	/* a dmesg that is a link, a FIFO, a directory, a hard link */
	put("202612072209/dump.202612072209", "core");
	cr_assert_eq(symlinkat("/etc/shadow", root_fd, "202612072209/dmesg.202612072209"), 0);
	put("202612072210/dump.202612072210", "core");
	cr_assert_eq(mkfifoat(root_fd, "202612072210/dmesg.202612072210", 0644), 0);
	put("202612072211/dump.202612072211", "core");
	cr_assert_eq(mkdirat(root_fd, "202612072211/dmesg.202612072211", 0755), 0);
	put("202612072212/dump.202612072212", "core");
	put("elsewhere", "secret\n");
	cr_assert_eq(linkat(root_fd, "elsewhere", root_fd, "202612072212/dmesg.202612072212", 0),
		     0);
	/* the directory is a link */
	cr_assert_eq(symlinkat("202612072201", root_fd, "202612072213"), 0);
	/* a name that no log line or journal field should carry */
	put_dump("2026\n1207");
	/* not dumps: kdump-tools' own file, apport's, hidden directories */
	put("kexec_cmd", "kexec -p ...\n");
	put(".hidden/dmesg.1", "[ 1.0] x\n");
	put(".hidden/dump.1", "core");

	cr_assert_eq(kdump_scan(root_fd, 64, &s), 0);
	text = describe(s);
	cr_assert_str_eq(
		text, "dump 202612072201 dmesg.202612072201 dump.202612072201\n"
		      "dump 202612072202 dmesg.202612072202 vmcore.202612072202\n"
		      "dump 202612072203 dmesg.202612072203 dump.202612072203.xz\n"
		      "dump host-202612072204 dmesg.202612072204 dump.202612072204\n"
		      "skip 2026\n1207: name not valid UTF-8 or with control characters\n"
		      "skip 202612072205: incomplete, the capture is writing it or was cut short\n"
		      "skip 202612072206: incomplete, the capture is writing it or was cut short\n"
		      "skip 202612072207: incomplete, the capture is writing it or was cut short\n"
		      "skip 202612072208: no dmesg file\n"
		      "skip 202612072209: symbolic link\n"
		      "skip 202612072210: dmesg is not a regular file of one name\n"
		      "skip 202612072211: dmesg is not a regular file of one name\n"
		      "skip 202612072212: dmesg is not a regular file of one name\n"
		      "skip 202612072213: symbolic link\n");
	cr_assert_eq(s->n_dumps_seen, 4);
	cr_assert_eq(s->n_skipped_seen, 10);
}

Test(kdump, first_dumps_by_name_bounded)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	char stamp[16];

	/* created newest first, so that readdir order is not name order */
	for (int i = 40; i > 0; i--) {
		snprintf(stamp, sizeof(stamp), "2026120722%02d", i);
		put_dump(stamp);
	}
	cr_assert_eq(kdump_scan(root_fd, 5, &s), 0);
	cr_assert_eq(s->n_dumps, 5);
	cr_assert_eq(s->n_dumps_seen, 40);
	for (size_t i = 0; i < 5; i++) {
		snprintf(stamp, sizeof(stamp), "2026120722%02zu", i + 1);
		cr_assert_str_eq(s->dumps[i].name, stamp);
	}
}

Test(kdump, skipped_named_then_counted)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	char path[64];

	for (int i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), "2026120722%02d/dmesg.2026120722%02d", i, i);
		put(path, "[ 1.0] x\n");
	}
	cr_assert_eq(kdump_scan(root_fd, 5, &s), 0);
	cr_assert_eq(s->n_dumps, 0);
	cr_assert_eq(s->n_skipped, KDUMP_SKIPPED_MAX);
	cr_assert_eq(s->n_skipped_seen, 40);
}

static void scan_one(KdumpScan **s)
{
	cr_assert_eq(kdump_scan(root_fd, 64, s), 0);
	cr_assert_eq((*s)->n_dumps, 1);
}

Test(kdump, dmesg_read_whole)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	bool cut = true;

	put_dump("202612072201");
	scan_one(&s);
	cr_assert_eq(kdump_dmesg_read(root_fd, &s->dumps[0], 4096, &buf, &len, &cut), 0);
	cr_assert_str_eq(buf, "[    0.000000] Linux version 6.1.0-27-amd64\n"
			      "[   42.000001] Kernel panic - not syncing: sysrq triggered crash\n");
	cr_assert_eq(len, strlen(buf));
	cr_assert_not(cut);
}

/* A 1 GiB sparse dmesg: only its newest bytes are read, from a whole line on. */
Test(kdump, dmesg_read_huge_sparse)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	_cleanup_free_ char *buf = NULL;
	static const char end[] = "partial line\n[ 99.0] second to last\n[ 99.1] last\n";
	_cleanup_close_ int fd = -1;
	size_t len;
	bool cut = false;

	put_dump("202612072201");
	fd = openat(root_fd, "202612072201/dmesg.202612072201", O_WRONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 1024LL * 1024 * 1024 - (off_t)strlen(end)), 0);
	cr_assert_eq(pwrite(fd, end, strlen(end), 1024LL * 1024 * 1024 - (off_t)strlen(end)),
		     (ssize_t)strlen(end));
	scan_one(&s);
	cr_assert_eq(s->dumps[0].dmesg_size, 1024ULL * 1024 * 1024);
	cr_assert_eq(kdump_dmesg_read(root_fd, &s->dumps[0], 40, &buf, &len, &cut), 0);
	cr_assert(cut);
	cr_assert_str_eq(buf, "[ 99.0] second to last\n[ 99.1] last\n");
}

/* Swapped between the scan and the read: a FIFO is never opened for reading, a link never followed. */
Test(kdump, dmesg_read_swapped)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	_cleanup_close_ int held = -1;
	char *buf = NULL;
	size_t len;
	bool cut;

	put_dump("202612072201");
	scan_one(&s);
	/* The listed dmesg stays open, so that no file made below can get its inode. */
	held = openat(root_fd, "202612072201/dmesg.202612072201", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(held, 0);
	cr_assert_eq(unlinkat(root_fd, "202612072201/dmesg.202612072201", 0), 0);
	cr_assert_eq(mkfifoat(root_fd, "202612072201/dmesg.202612072201", 0644), 0);
	cr_assert_eq(kdump_dmesg_read(root_fd, &s->dumps[0], 4096, &buf, &len, &cut), -EBADFD);
	cr_assert_eq(unlinkat(root_fd, "202612072201/dmesg.202612072201", 0), 0);
	cr_assert_eq(symlinkat("/etc/passwd", root_fd, "202612072201/dmesg.202612072201"), 0);
	cr_assert_eq(kdump_dmesg_read(root_fd, &s->dumps[0], 4096, &buf, &len, &cut), -ELOOP);
	put("202612072201/new", "[ 1.0] another file\n");
	cr_assert_eq(
		renameat(root_fd, "202612072201/new", root_fd, "202612072201/dmesg.202612072201"),
		0);
	cr_assert_eq(kdump_dmesg_read(root_fd, &s->dumps[0], 4096, &buf, &len, &cut), -ESTALE);
	cr_assert_eq(renameat(root_fd, "202612072201", root_fd, "gone"), 0);
	cr_assert_eq(kdump_dmesg_read(root_fd, &s->dumps[0], 4096, &buf, &len, &cut), -ESTALE);
	cr_assert_null(buf);
}

/* Without root, a directory that cannot be listed and a dmesg that cannot be read. */
Test(kdump, unreadable)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL, *s2 = NULL;
	_cleanup_free_ char *text = NULL;
	char *buf = NULL;
	size_t len;
	bool cut;

	if (geteuid() == 0)
		cr_skip_test("root reads files whatever their mode");
	put_dump("202612072201");
	put_dump("202612072202");
	cr_assert_eq(fchmodat(root_fd, "202612072202", 0, 0), 0);
	cr_assert_eq(kdump_scan(root_fd, 64, &s), 0);
	text = describe(s);
	cr_assert_str_eq(text, "dump 202612072201 dmesg.202612072201 dump.202612072201\n"
			       "skip 202612072202: cannot be read\n");
	cr_assert_eq(s->skipped[0].error, -EACCES);
	cr_assert_eq(fchmodat(root_fd, "202612072202", 0755, 0), 0);
	cr_assert_eq(fchmodat(root_fd, "202612072201/dmesg.202612072201", 0, 0), 0);
	cr_assert_eq(kdump_dmesg_read(root_fd, &s->dumps[0], 4096, &buf, &len, &cut), -EACCES);
}

Test(kdump, line_time)
{
	static const struct {
		const char *log, *text;
		int ret;
		uint64_t usec;
	} cases[] = {
		{"[    0.0] a\n[   42.123500] Kernel panic - not syncing: x\n", "Kernel panic", 0,
		 42123500},
		{"x\n<0>[  100.000002] Kernel panic - not syncing: x", "Kernel panic", 0,
		 100000002},
		/* the first line that holds the text */
		{"[ 1.5] BUG: a\n[ 2.5] BUG: a\n", "BUG: a", 0, 1500000},
		/* printk prints 6 digits; fewer are microseconds all the same, more are cut */
		{"[7.1234567] t\n", "t", 0, 7123456},
		{"[123456789012.000001] t\n", "t", 0, 123456789012000001ULL},
		{"[ 1.0] other\n", "Kernel panic", -ENOENT},
		{"Kernel panic - not syncing: x\n", "Kernel panic", -ENOENT},
		{"[ 1.0 Kernel panic\n", "Kernel panic", -ENOENT},
		{"[ .5] Kernel panic\n", "Kernel panic", -ENOENT},
		{"[1234567890123.0] t\n", "t", -ENOENT},
		{"<0", "<0", -ENOENT},
		{"[ 1.0] t\n", "", -ENOENT},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t t = 4242;

		cr_assert_eq(kdump_line_time(cases[i].log, strlen(cases[i].log), cases[i].text, &t),
			     cases[i].ret, "case %zu", i);
		cr_assert_eq(t, cases[i].ret == 0 ? cases[i].usec : 4242, "case %zu", i);
	}
}

Test(kdump, vmcore_format)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *format;
	} cases[] = {
		/* the first bytes of tests/fixtures/kdump/202612072244/dump.202612072244 */
		{"makedumpfile\0\0\0\0\0\0\0\0\0\0\0\1", 24, "flattened"},
		{"KDUMP   \x06\0\0\0", 12, "kdump-compressed"},
		{"\x7f"
		 "ELF\x02\x01\x01",
		 7, "elf"},
		{"\x1f\x8b\x08", 3, "gzip"},
		{"BZh9", 4, "bzip2"},
		{"\xfd"
		 "7zXZ\0\0",
		 7, "xz"},
		{"\x04\x22\x4d\x18", 4, "lz4"},
		{"makedumpfile", 12, "unknown"},
		{"", 0, "unknown"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
		KdumpVmcoreFormat f = _KDUMP_VMCORE_FORMAT_MAX;

		put_dump("202612072201");
		cr_assert_eq(write_file_at(root_fd, "202612072201/dump.202612072201", O_TRUNC, 0644,
					   cases[i].bytes, cases[i].len),
			     0);
		scan_one(&s);
		cr_assert_eq(kdump_vmcore_format(root_fd, &s->dumps[0], &f), 0);
		cr_assert_str_eq(kdump_vmcore_format_to_string(f), cases[i].format, "case %zu", i);
	}
}

/* A vmcore that is a link or a FIFO is not opened, and says nothing of its format. */
Test(kdump, vmcore_format_hostile)
{
	_cleanup_(kdump_scan_freep) KdumpScan *s = NULL;
	KdumpVmcoreFormat f = _KDUMP_VMCORE_FORMAT_MAX;

	put_dump("202612072201");
	cr_assert_eq(unlinkat(root_fd, "202612072201/dump.202612072201", 0), 0);
	cr_assert_eq(symlinkat("/dev/zero", root_fd, "202612072201/dump.202612072201"), 0);
	scan_one(&s);
	cr_assert_eq(kdump_vmcore_format(root_fd, &s->dumps[0], &f), -ELOOP);
	cr_assert_eq(unlinkat(root_fd, "202612072201/dump.202612072201", 0), 0);
	cr_assert_eq(mkfifoat(root_fd, "202612072201/dump.202612072201", 0644), 0);
	cr_assert_eq(kdump_vmcore_format(root_fd, &s->dumps[0], &f), -EBADFD);
	cr_assert_eq(f, _KDUMP_VMCORE_FORMAT_MAX);
}
