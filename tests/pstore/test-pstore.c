// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/pstore: record names, part headers, and grouping of the fake pstore
 * directories that tests/pstore/make-pstore builds.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "pstore/pstore.h"

typedef struct NameCase {
	const char *name;
	int ret;
	PstoreType type;
	const char *type_name, *backend;
	uint64_t id;
	bool compressed;
} NameCase;

static const NameCase name_cases[] = {
	{"dmesg-erst-7578827135071027201", 0, PSTORE_TYPE_DMESG, "dmesg", "erst",
	 7578827135071027201ULL, false},
	{"dmesg-efi-176458320001001", 0, PSTORE_TYPE_DMESG, "dmesg", "efi", 176458320001001ULL,
	 false},
	{"dmesg-efi_pstore-176458320001001", 0, PSTORE_TYPE_DMESG, "dmesg", "efi_pstore",
	 176458320001001ULL, false},
	{"dmesg-erst-5.enc.z", 0, PSTORE_TYPE_DMESG, "dmesg", "erst", 5, true},
	{"console-ramoops-0", 0, PSTORE_TYPE_CONSOLE, "console", "ramoops", 0, false},
	{"pmsg-ramoops-0", 0, PSTORE_TYPE_PMSG, "pmsg", "ramoops", 0, false},
	{"ftrace-ramoops-3", 0, PSTORE_TYPE_FTRACE, "ftrace", "ramoops", 3, false},
	{"mce-erst-12", 0, PSTORE_TYPE_MCE, "mce", "erst", 12, false},
	{"rtas-nvram-4", 0, PSTORE_TYPE_RTAS, "rtas", "nvram", 4, false},
	{"powerpc-ofw-nvram-1", 0, PSTORE_TYPE_POWERPC_OFW, "powerpc-ofw", "nvram", 1, false},
	{"powerpc-opal-nvram-1", 0, PSTORE_TYPE_POWERPC_OPAL, "powerpc-opal", "nvram", 1, false},
	{"unknown-pstore_blk-2", 0, PSTORE_TYPE_UNKNOWN, "unknown", "pstore_blk", 2, false},
	{"type7-erst-2", 0, PSTORE_TYPE_UNKNOWN, "type7", "erst", 2, false},
	{"README", -EINVAL},
	{"dmesg-erst-", -EINVAL},
	{"dmesg-erst-12x", -EINVAL},
	{"dmesg--12", -EINVAL},
	{"dmesg-12", -EINVAL},
	{"type-erst-1", -EINVAL},
	{"dmesg-erst-99999999999999999999999", -EINVAL},
	{".enc.z", -EINVAL},
};

Test(pstore, name_parse)
{
	for (size_t i = 0; i < ARRAY_SIZE(name_cases); i++) {
		const NameCase *c = &name_cases[i];
		PstoreName n = {.id = 4242};

		cr_assert_eq(pstore_name_parse(c->name, &n), c->ret, "%s", c->name);
		if (c->ret < 0) {
			cr_assert_eq(n.id, 4242, "output untouched on failure");
			continue;
		}
		cr_assert_eq(n.type, c->type, "%s", c->name);
		cr_assert_str_eq(n.type_name, c->type_name, "%s", c->name);
		cr_assert_str_eq(n.backend, c->backend, "%s", c->name);
		cr_assert_eq(n.id, c->id, "%s", c->name);
		cr_assert_eq(n.compressed, c->compressed, "%s", c->name);
	}
}

Test(pstore, header_parse)
{
	static const struct {
		const char *text;
		int ret;
		const char *reason;
		unsigned count, part;
		size_t length;
	} cases[] = {
		{"Panic#2 Part1\nlog", 0, "Panic", 2, 1, 14},
		{"Oops#1 Part13\n", 0, "Oops", 1, 13, 14},
		{"Emergency#10 Part2\n", 0, "Emergency", 10, 2, 19},
		{"Shutdown#1 Part1\n", 0, "Shutdown", 1, 1, 17},
		{"Panic#2 Part1", -EBADMSG},   /* no newline */
		{"Panic#2 Part0\n", -EBADMSG}, /* parts count from 1 */
		{"Panic# Part1\n", -EBADMSG},
		{"#1 Part1\n", -EBADMSG},
		{"Panic#1 part1\n", -EBADMSG},
		{"Panic#1 Part1x\n", -EBADMSG},
		{"Panic#1 Part99999999999\n", -EBADMSG},
		{"VeryLongReasonName#1 Part1\n", -EBADMSG},
		{"<6>[    0.000000] Linux version\n", -EBADMSG},
		{"", -EBADMSG},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		PstoreHeader h = {.count = 77};

		cr_assert_eq(pstore_header_parse(cases[i].text, strlen(cases[i].text), &h),
			     cases[i].ret, "%s", cases[i].text);
		if (cases[i].ret < 0) {
			cr_assert_eq(h.count, 77);
			continue;
		}
		cr_assert_str_eq(h.reason, cases[i].reason);
		cr_assert_eq(h.count, cases[i].count);
		cr_assert_eq(h.part, cases[i].part);
		cr_assert_eq(h.length, cases[i].length);
	}
}

static char dir[] = "/tmp/test-pstore-XXXXXX";

static void make_case(const char *name)
{
	char cmd[PATH_MAX * 2];
	const char *srcdir = getenv("top_srcdir");

	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/tests/pstore/make-pstore %s/pstore %s", srcdir ?: "..", dir,
		 name);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void teardown(void)
{
	(void)rm_rf_at(AT_FDCWD, dir);
}

static PstoreScan *scan_case(const char *name, bool attach_logs)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	PstoreScan *s = NULL;

	make_case(name);
	snprintf(path, sizeof(path), "%s/pstore", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pstore_scan(fd, 1024 * 1024, SIZE_MAX, NULL, NULL, &s), 0);
	cr_assert_eq(pstore_group(s, attach_logs, 1024), 0);
	return s;
}

/* Reads the crash's log as the archiver reassembles it. */
static char *reassemble(const PstoreCrash *c)
{
	char path[PATH_MAX], *log = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&log, &size);
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "%s/pstore", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_not_null(f);
	for (size_t i = 0; i < c->n_records; i++) {
		_cleanup_free_ char *buf = NULL, *inflated = NULL;
		const char *body;
		size_t len, body_len;

		cr_assert_eq(pstore_record_read(fd, c->records[i], 1 << 20, &buf, &len), 0);
		if (c->records[i]->n.compressed) {
			cr_assert_eq(pstore_record_inflate(buf, len, 1 << 20, &inflated, &len), 0);
			pstore_record_body(c->records[i], inflated, len, &body, &body_len);
		} else
			pstore_record_body(c->records[i], buf, len, &body, &body_len);
		fwrite(body, 1, body_len, f);
	}
	fclose(f);
	return log;
}

/* Line k of dump tag must be followed by line k + 1: the log is whole and in order. */
static void assert_log_in_order(const char *log, const char *tag, int lines)
{
	char want[64];
	const char *p = log;

	cr_assert(strneq(log, "<6>[    0.000000] Linux version", 31), "starts with the oldest");
	for (int k = 1; k <= lines; k++) {
		snprintf(want, sizeof(want), "] %s line %d\n", tag, k);
		p = strstr(p, want);
		cr_assert_not_null(p, "%s missing or out of order", want);
	}
	cr_assert_not_null(strstr(p, "Kernel panic - not syncing"));
	cr_assert_null(strstr(log, "Part"), "part headers are stripped");
}

Test(pstore, erst_multipart, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("erst-multipart", true);
	_cleanup_free_ char *log = NULL;
	PstoreCrash *c;

	cr_assert_eq(s->n_records, 3);
	cr_assert_eq(s->n_crashes, 1);
	c = &s->crashes[0];
	cr_assert_eq(c->kind, PSTORE_CRASH_KERNEL);
	cr_assert_eq(c->n_records, 3);
	cr_assert_eq(c->records[0]->header.part, 3);
	cr_assert_eq(c->records[2]->header.part, 1);
	cr_assert_eq(c->key, c->records[2]);
	cr_assert_eq(c->n_missing_parts, 0);
	log = reassemble(c);
	assert_log_in_order(log, "erst", 300);
}

Test(pstore, efi_multipart, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("efi-multipart", true);
	_cleanup_free_ char *log = NULL;

	cr_assert_eq(s->n_crashes, 1);
	cr_assert_eq(s->crashes[0].n_records, 2);
	cr_assert_str_eq(s->crashes[0].key->n.backend, "efi");
	cr_assert_str_eq(s->crashes[0].key->header.reason, "Oops");
	log = reassemble(&s->crashes[0]);
	assert_log_in_order(log, "efi", 120);
}

Test(pstore, two_boots_both_panic_1, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("two-boots", true);
	_cleanup_free_ char *log1 = NULL, *log2 = NULL;

	cr_assert_eq(s->n_crashes, 2);
	cr_assert_eq(s->crashes[0].n_records, 2);
	cr_assert_eq(s->crashes[1].n_records, 2);
	cr_assert_lt(s->crashes[0].key->time, s->crashes[1].key->time, "oldest first");
	log1 = reassemble(&s->crashes[0]);
	log2 = reassemble(&s->crashes[1]);
	assert_log_in_order(log1, "boot1", 100);
	assert_log_in_order(log2, "boot2", 100);
	cr_assert_null(strstr(log1, "boot2"));
}

Test(pstore, missing_parts, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("missing-parts", true);

	cr_assert_eq(s->n_crashes, 1);
	cr_assert_eq(s->crashes[0].n_records, 2);
	cr_assert_eq(s->crashes[0].n_missing_parts, 1);
	cr_assert_eq(s->crashes[0].missing_parts[0].first, 2);
	cr_assert_eq(s->crashes[0].missing_parts[0].last, 2);
}

/* A header's part number is a claim: the parts it leaves out are one range, not 4 billion. */
Test(pstore, huge_part_number, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("huge-part-number", true);

	cr_assert_eq(s->n_crashes, 1);
	cr_assert_eq(s->crashes[0].n_records, 1);
	cr_assert_eq(s->crashes[0].n_missing_parts, 1);
	cr_assert_eq(s->crashes[0].missing_parts[0].first, 1);
	cr_assert_eq(s->crashes[0].missing_parts[0].last, 4294967294u);
}

/* MaxParts=: the newest parts make the log, the oldest are kept aside, not dropped. */
Test(pstore, parts_beyond_max_parts, .fini = teardown)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	_cleanup_(pstore_scan_freep) PstoreScan *s = NULL;
	const PstoreCrash *c;

	make_case("erst-multipart");
	snprintf(path, sizeof(path), "%s/pstore", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pstore_scan(fd, 1024 * 1024, SIZE_MAX, NULL, NULL, &s), 0);
	cr_assert_eq(pstore_group(s, true, 0), -EINVAL);
	cr_assert_eq(pstore_group(s, true, 2), 0);
	cr_assert_eq(s->n_crashes, 1);
	c = &s->crashes[0];
	cr_assert_eq(c->n_records, 2);
	cr_assert_eq(c->records[0]->header.part, 2);
	cr_assert_eq(c->records[1]->header.part, 1);
	cr_assert_eq(c->n_other_dump, 1);
	cr_assert_eq(c->other_dump[0]->header.part, 3);
	cr_assert_eq(c->n_parts_cut, 1);
	cr_assert_eq(c->n_missing_parts, 0);
	cr_assert_eq(c->key, c->records[1]);
}

Test(pstore, compressed_record, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("compressed", true);
	_cleanup_free_ char *log = NULL;

	cr_assert_eq(s->n_crashes, 1);
	cr_assert_eq(s->crashes[0].n_records, 2);
	cr_assert(s->crashes[0].key->n.compressed);
	cr_assert(s->crashes[0].key->has_header, "header read from the inflated record");
	log = reassemble(&s->crashes[0]);
	assert_log_in_order(log, "zip", 200);
}

Test(pstore, ramoops_logs_go_with_crash, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("ramoops-logs", true);

	cr_assert_eq(s->n_crashes, 1);
	cr_assert_eq(s->crashes[0].n_records, 1);
	cr_assert_eq(s->crashes[0].n_logs, 2);
	cr_assert_str_eq(s->crashes[0].logs[0]->name, "console-ramoops-0");
	cr_assert_str_eq(s->crashes[0].logs[1]->name, "pmsg-ramoops-0");
}

Test(pstore, ramoops_logs_on_their_own, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("ramoops-logs", false);

	cr_assert_eq(s->n_crashes, 3);
	for (size_t i = 0; i < s->n_crashes; i++)
		cr_assert_eq(s->crashes[i].n_logs, 0);
}

Test(pstore, logs_without_crash, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("logs-alone", true);

	cr_assert_eq(s->n_crashes, 2);
	cr_assert_eq(s->crashes[0].kind, PSTORE_CRASH_PREVIOUS_BOOT_LOG);
	cr_assert_eq(s->crashes[1].kind, PSTORE_CRASH_PREVIOUS_BOOT_LOG);
}

Test(pstore, mce_is_hardware_error, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("mce", true);

	cr_assert_eq(s->n_crashes, 1);
	cr_assert_eq(s->crashes[0].kind, PSTORE_CRASH_HARDWARE_ERROR);
	cr_assert_eq(s->crashes[0].key->size, 128);
}

Test(pstore, shutdown_oops_panic, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("shutdown-then-panic", true);
	const PstoreCrash *c;

	/* The Shutdown dump ends the boot before: it stays on its own. */
	cr_assert_eq(s->n_crashes, 2);
	cr_assert_str_eq(s->crashes[0].key->header.reason, "Shutdown");
	cr_assert_eq(s->crashes[0].kind, PSTORE_CRASH_PREVIOUS_BOOT_LOG);
	cr_assert_eq(s->crashes[0].n_other_dump, 0);
	/* Oops#1 and, a second later, Panic#2: one crash, an oops, logged by the Panic dump. */
	c = &s->crashes[1];
	cr_assert_eq(c->kind, PSTORE_CRASH_KERNEL);
	cr_assert_str_eq(c->first->header.reason, "Oops");
	cr_assert_str_eq(c->key->header.reason, "Panic");
	cr_assert_eq(c->key->header.count, 2);
	cr_assert_eq(c->n_records, 2);
	cr_assert_eq(c->n_other_dump, 1);
	cr_assert_eq(c->other_dump[0], c->first);
}

static size_t count_str(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A crash the kernel dumped twice, Oops#1 then Panic#2: the Panic dump makes the log. */
static void assert_oops_and_panic(const PstoreCrash *c, const char *tag, const char *report)
{
	_cleanup_free_ char *log = reassemble(c);
	char line[64];

	cr_assert_eq(c->kind, PSTORE_CRASH_KERNEL);
	cr_assert_eq(c->n_records, 2);
	cr_assert_eq(c->n_other_dump, 2);
	for (size_t i = 0; i < c->n_records; i++)
		cr_assert_str_eq(c->records[i]->header.reason, "Panic");
	for (size_t i = 0; i < c->n_other_dump; i++)
		cr_assert_str_eq(c->other_dump[i]->header.reason, "Oops");
	cr_assert_eq(c->key, c->records[1], "the key is the Panic dump's Part1");
	cr_assert_eq(c->first, c->other_dump[1], "the Oops dump comes first");
	cr_assert_eq(c->n_missing_parts, 0);

	cr_assert_eq(count_str(log, report), 1, "%s: the report once, not once per dump", tag);
	cr_assert_eq(count_str(log, "Kernel panic - not syncing: Fatal exception"), 1);
	cr_assert_lt(strstr(log, report), strstr(log, "Kernel panic"), "oldest line first");
	for (int k = 11; k <= 100; k++) {
		snprintf(line, sizeof(line), "] %s line %d\n", tag, k);
		cr_assert_eq(count_str(log, line), 1, "%s", line);
	}
	cr_assert_null(strstr(log, "Part"), "part headers are stripped");
}

Test(pstore, oops_then_panic_is_one_crash, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("oops-then-panic", true);

	cr_assert_eq(s->n_records, 10);
	cr_assert_eq(s->n_crashes, 4, "two deaths of two dumps each, an oops and a later panic");
	assert_oops_and_panic(&s->crashes[0], "boot1", "Oops: 0002 [#1]");
	assert_oops_and_panic(&s->crashes[1], "boot2", "kernel BUG at ");

	/* Boot 3 survived its oops; the panic ten minutes later is another crash. */
	cr_assert_eq(s->crashes[2].n_records, 1);
	cr_assert_eq(s->crashes[2].n_other_dump, 0);
	cr_assert_str_eq(s->crashes[2].key->header.reason, "Oops");
	cr_assert_eq(s->crashes[2].first, s->crashes[2].key);
	cr_assert_eq(s->crashes[3].n_records, 1);
	cr_assert_eq(s->crashes[3].n_other_dump, 0);
	cr_assert_str_eq(s->crashes[3].first->header.reason, "Panic");
}

Test(pstore, oops_then_cut_panic, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("oops-then-cut-panic", true);
	_cleanup_free_ char *log = NULL;
	const PstoreCrash *c;

	cr_assert_eq(s->n_crashes, 1);
	c = &s->crashes[0];
	/* The whole Oops dump makes the log; the key stays the Panic dump's Part1, so that a
	 * run cut short between erasing the records finds the same crash again. */
	cr_assert_eq(c->n_records, 2);
	cr_assert_str_eq(c->records[0]->header.reason, "Oops");
	cr_assert_eq(c->n_other_dump, 1);
	cr_assert_eq(c->key, c->other_dump[0]);
	cr_assert_str_eq(c->key->header.reason, "Panic");
	cr_assert_eq(c->first, c->records[1]);
	log = reassemble(c);
	cr_assert_eq(count_str(log, "Oops: 0002 [#1]"), 1);
	cr_assert_not_null(strstr(log, "] cut line 1\n"));
	cr_assert_null(strstr(log, "Kernel panic"));
}

Test(pstore, crash_record_walks_all_records, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("shutdown-then-panic", true);
	const PstoreCrash *c = &s->crashes[1];
	size_t n = 0;

	while (pstore_crash_record(c, n))
		n++;
	cr_assert_eq(n, 3);
	cr_assert_eq(pstore_crash_record(c, 0), c->records[0]);
	cr_assert_eq(pstore_crash_record(c, 2), c->other_dump[0]);
}

static const PstoreRecord *find(const PstoreScan *s, const char *suffix)
{
	for (size_t i = 0; i < s->n_records; i++) {
		size_t l = strlen(s->records[i].name);

		if (l >= strlen(suffix) && streq(s->records[i].name + l - strlen(suffix), suffix))
			return &s->records[i];
	}
	return NULL;
}

Test(pstore, bad_input, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("bad-input", true);
	const PstoreRecord *r;

	/* The symlink, the directory and the FIFO are skipped, never opened, and so is a name
	 * that crash.json could not hold. */
	cr_assert_eq(s->n_skipped, 4);
	for (size_t i = 0; i < s->n_skipped; i++) {
		const char *why = s->skipped[i].reason;

		if (streq(s->skipped[i].name, "subdir"))
			cr_assert_str_eq(why, "directory");
		else if (streq(s->skipped[i].name, "dmesg-erst-7578827135071027260"))
			cr_assert_str_eq(why, "symbolic link");
		else if (streq(s->skipped[i].name, "dmesg-erst-\xff"
						   "7578827135071027262"))
			cr_assert_str_eq(why, "name not valid UTF-8");
		else
			cr_assert_str_eq(why, "special file");
	}

	cr_assert_eq(s->n_records, 8);
	r = find(s, "README");
	cr_assert_not(r->name_parsed);
	r = find(s, "27250");
	cr_assert_eq(r->size, 0);
	cr_assert_not(r->has_header);
	cr_assert_eq(r->error, 0);
	r = find(s, "27251");
	cr_assert(r->has_header);
	r = find(s, "27253");
	cr_assert_eq(r->error, -EFBIG);
	/* Corrupt, but a record all the same: the archiver stores it as it is. */
	r = find(s, "27254.enc.z");
	cr_assert_eq(r->error, 0);
	cr_assert_not(r->has_header);

	/* One good crash of two parts, and each odd record on its own. */
	cr_assert_eq(s->n_crashes, 7);
	size_t two = 0;
	for (size_t i = 0; i < s->n_crashes; i++)
		if (s->crashes[i].n_records == 2)
			two++;
	cr_assert_eq(two, 1);
}

Test(pstore, huge_log_on_its_own, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("ramoops-log-huge", true);
	const PstoreRecord *r = find(s, "console-ramoops-0");

	cr_assert_eq(r->error, -EFBIG);
	cr_assert_eq(s->n_crashes, 2);
	for (size_t i = 0; i < s->n_crashes; i++) {
		const PstoreCrash *c = &s->crashes[i];

		if (c->kind == PSTORE_CRASH_KERNEL) {
			cr_assert_eq(c->n_logs, 1);
			cr_assert_str_eq(c->logs[0]->name, "pmsg-ramoops-0");
		} else
			cr_assert_eq(c->key, r);
	}
}

Test(pstore, read_refuses_symlink_and_fifo, .fini = teardown)
{
	_cleanup_(pstore_scan_freep) PstoreScan *s = scan_case("bad-input", true);
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX], *buf = NULL, head[PSTORE_HEADER_MAX];
	PstoreRecord link = {.name = (char *)"dmesg-erst-7578827135071027260"};
	PstoreRecord fifo = {.name = (char *)"dmesg-erst-7578827135071027261"};
	size_t len;

	snprintf(path, sizeof(path), "%s/pstore", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(pstore_record_read(fd, &link, 1 << 20, &buf, &len), -ELOOP);
	cr_assert_eq(pstore_record_read(fd, &fifo, 1 << 20, &buf, &len), -EBADFD);
	cr_assert_null(buf);
	cr_assert_eq(pstore_record_read_head(fd, &link, 1 << 20, head, sizeof(head), &len), -ELOOP);
	cr_assert_eq(pstore_record_read_head(fd, &fifo, 1 << 20, head, sizeof(head), &len),
		     -EBADFD);
}

/*
 * The scan keeps the oldest max_records records, by time then name, and names the first
 * PSTORE_SKIPPED_MAX skipped entries: what it holds does not grow with the entries (issue 34,
 * finding 9).
 */
Test(pstore, scan_keeps_the_oldest_records, .fini = teardown)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	_cleanup_(pstore_scan_freep) PstoreScan *s = NULL;

	cr_assert_not_null(mkdtemp(strcpy(dir, "/tmp/test-pstore-XXXXXX")));
	snprintf(path, sizeof(path), "%s/pstore", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	/* 100 records stored a second apart, newest first by name; 40 FIFOs. */
	for (int i = 0; i < 100; i++) {
		char name[64];
		struct timespec t[2] = {{.tv_sec = 2000000000 - i}, {.tv_sec = 2000000000 - i}};

		snprintf(name, sizeof(name), "dmesg-erst-%d", 1000 + i);
		cr_assert_eq(write_file_at(fd, name, O_EXCL, 0600, "x", 1), 0);
		cr_assert_eq(utimensat(fd, name, t, 0), 0);
		snprintf(name, sizeof(name), "fifo-%d", i);
		if (i < 40)
			cr_assert_eq(mkfifoat(fd, name, 0600), 0);
	}

	cr_assert_eq(pstore_scan(fd, 1024 * 1024, 0, NULL, NULL, &s), -EINVAL);
	cr_assert_eq(pstore_scan(fd, 1024 * 1024, 10, NULL, NULL, &s), 0);
	cr_assert_eq(s->n_records, 10);
	cr_assert_eq(s->n_records_seen, 100);
	/* The oldest are the last by name: dmesg-erst-1090 to 1099, sorted by name. */
	for (size_t i = 0; i < s->n_records; i++) {
		char want[64];

		snprintf(want, sizeof(want), "dmesg-erst-%zu", 1090 + i);
		cr_assert_str_eq(s->records[i].name, want);
	}
	cr_assert_eq(s->cut_time, (2000000000ULL - 89) * 1000000ULL);
	cr_assert_eq(s->n_skipped, PSTORE_SKIPPED_MAX);
	cr_assert_eq(s->n_skipped_seen, 40);
	s = pstore_scan_free(s);

	cr_assert_eq(pstore_scan(fd, 1024 * 1024, SIZE_MAX, NULL, NULL, &s), 0);
	cr_assert_eq(s->n_records, 100);
	cr_assert_eq(s->cut_time, UINT64_MAX);
}
