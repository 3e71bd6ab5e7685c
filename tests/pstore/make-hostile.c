// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * make-hostile SEED CLASS DIR: makes DIR/pstore, a pstore directory as
 * broken hardware or an attacker could leave it, DIR/crash, a kdump
 * directory (KdumpDir=, empty but for the kdump class), and DIR/outside,
 * files outside them that links in them point at (outside/secret must never
 * reach the store). The same SEED and CLASS always give the same directory.
 * Classes (make-hostile --list):
 *
 *   headers     dmesg dumps with part headers of every shape: signs, zeros,
 *               spaces, leading zeros, numbers past 2^32, duplicate and
 *               missing parts (at most a few hundred), odd reasons and counts
 *   huge-parts  a part number far beyond the parts present (up to 2^32-1)
 *   names       names of any characters (ESC, newline, DEL, C1 such as CSI,
 *               beyond ASCII; up to 255 bytes), and the names of the store's
 *               own files (index, dmesg.txt, records, ...) but crash.json
 *   names-bytes names of any bytes the kernel could give (invalid UTF-8)
 *   names-store a record named crash.json
 *   sizes       one-byte records, records just under and over
 *               MaxRecordSize, sparse files of 64 MiB (no logs)
 *   empty       records of 0 bytes, or of a header line alone
 *   log-huge    a dmesg record and a console, pmsg or ftrace log of the
 *               same backend larger than MaxRecordSize
 *   zlib        .enc.z records, raw deflate and zlib-wrapped, inflating to
 *               at most 256 KiB
 *   zlib-corrupt  the same, some truncated, with a flipped bit, or garbage
 *   zlib-bomb   .enc.z records inflating past MaxRecordSize
 *   zlib-many   up to 300 .enc.z parts of one dump, each inflating to just
 *               under MaxRecordSize
 *   cper        CPER records with up to 64 section descriptors, overlapping,
 *               out of bounds, of every Linux pstore type, compressed log
 *               sections inflating to at most 64 KiB each, 256 KiB in all
 *   cper-many   the same with up to 300 descriptors, bodies up to 512 KiB
 *   cper-bomb   CPER records whose many descriptors point at one deflate
 *               blob inflating to MiBs
 *   special     FIFOs, sockets, a character device, directories, symlinks
 *               (to outside/secret, dangling, to a record) beside records
 *   links       hard links to outside/secret and between records
 *   many-entries  a crash among 10,000 entries of the kinds pstored skips
 *   kdump       dump directories in DIR/crash: complete (some the panic of a
 *               pstore record beside them), half-written, a dmesg that is a
 *               link, a hard link, a FIFO, a directory, 1 GiB sparse or
 *               binary, a directory that is a link, names with a newline
 *               or a byte not UTF-8
 *
 * MaxRecordSize is taken at its default, 1 MiB. The runner is
 * tests/pstore/test-hostile.sh.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cper-builder.h"
#include "macro.h"
#include "pstore/pstore.h"
#include "zlib-util.h"

#define MAX_RECORD_SIZE (1024 * 1024)
#define T0 1764583200ULL /* 2025-12-01 10:00:00 UTC, as tests/pstore/make-pstore */

static uint64_t rng_state;
static int pstore_fd = -1, outside_fd = -1;

/* splitmix64: small, and the same sequence on every machine. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned percent)
{
	return below(100) < percent;
}

static const char *pick(const char *const *v, size_t n)
{
	return v[below(n)];
}

#define PICK(v) pick(v, sizeof(v) / sizeof((v)[0]))

static void die(const char *what)
{
	fprintf(stderr, "make-hostile: %s: %s\n", what, strerror(errno));
	exit(EXIT_FAILURE);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ?: 1);

	if (!p)
		die("malloc");
	return p;
}

/* A record (or any file) below dir_fd, stored at T0 + secs as the kernel's mtime. */
static void put_file(int dir_fd, const char *name, const void *buf, size_t len, uint64_t secs)
{
	struct timespec ts[2] = {{.tv_sec = (time_t)(T0 + secs)}, {.tv_sec = (time_t)(T0 + secs)}};
	int fd;

	fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0444);
	if (fd < 0)
		die(name);
	if (len > 0 && write(fd, buf, len) != (ssize_t)len)
		die(name);
	if (futimens(fd, ts) < 0 || close(fd) < 0)
		die(name);
}

static void put_text(const char *name, const char *text, uint64_t secs)
{
	put_file(pstore_fd, name, text, strlen(text), secs);
}

static uint64_t next_id;

/* A record name of one of the backends, with a fresh id. */
static void record_name(char *buf, size_t size, const char *type, bool compressed)
{
	static const char *const backends[] = {"erst", "efi", "efi_pstore", "ramoops"};

	snprintf(buf, size, "%s-%s-%llu%s", type, PICK(backends),
		 (unsigned long long)(7578827135071027200ULL + ++next_id),
		 compressed ? ".enc.z" : "");
}

/* A kernel log of about len bytes, as pstore_dump() saves it. */
static char *dmesg_text(const char *header, size_t len)
{
	static const char *const lines[] = {
		"<0>[  100.000002] Kernel panic - not syncing: sysrq triggered crash\n",
		"<4>[  100.000003] CPU: 0 PID: 321 Comm: bash Not tainted 6.1.0-27-amd64 #1\n",
		"<4>[  100.000005] Call Trace:\n",
		"<4>[  100.000007]  dump_stack_lvl+0x44/0x5c\n",
		"<4>[  100.000008]  panic+0x118/0x2ed\n",
		"<1>[   42.000000] BUG: kernel NULL pointer dereference, address: "
		"0000000000000000\n",
		"<4>[   42.000001] RIP: 0010:hostile_fn+0x1/0x10 [hostile]\n",
		"<6>[    1.000000] \x1b[31mred\x1b]0;title\x07 \xc2\x9b"
		"2J \xff\xfe\n",
	};
	size_t hl = strlen(header), n = hl;
	char *buf = xmalloc(len + hl + 128);

	memcpy(buf, header, hl);
	while (n < len) {
		const char *l = PICK(lines);

		memcpy(buf + n, l, strlen(l));
		n += strlen(l);
	}
	buf[n] = 0;
	return buf;
}

static void put_dmesg(const char *header, size_t len, uint64_t secs)
{
	char name[128];
	char *text = dmesg_text(header, len);

	record_name(name, sizeof(name), "dmesg", false);
	put_text(name, text, secs);
	free(text);
}

/* Deflates buf (raw, or zlib-wrapped with zlib set) into a new buffer. */
static uint8_t *deflate_new(const void *buf, size_t len, bool zlib, size_t *ret_len)
{
	size_t cap = len + len / 100 + 1024;
	uint8_t *z = xmalloc(cap);
	ssize_t n = zlib_deflate_buffer(buf, len, zlib ? 15 : -15, z, cap);

	if (n < 0) {
		errno = (int)-n;
		die("deflate");
	}
	*ret_len = (size_t)n;
	return z;
}

static void class_headers(void)
{
	static const char *const reasons[] = {"Panic",	 "Oops", "Emergency",	     "Shutdown",
					      "Restart", "Halt", "Poweroff",	     "Unknown",
					      "panic",	 "P",	 "Oopsoopsoopsoops", "Panic Oops",
					      "Pänic",	 "",	 "Panic\x1b[2J"};
	static const char *const counts[] = {
		"1",  "2",  "0",	  "-1",		"+1",
		"01", " 1", "4294967295", "4294967296", "18446744073709551616",
		"",   "1a"};
	static const char *const parts[] = {"0",   "-1", "+1",	       " 1",
					    "01",  "1 ", "4294967296", "99999999999999999999",
					    "1\r", "",	 "x",	       "1\t2"};
	unsigned dumps = 1 + (unsigned)below(5);

	for (unsigned d = 0; d < dumps; d++) {
		const char *reason = PICK(reasons), *count = PICK(counts);
		unsigned n = 1 + (unsigned)below(chance(20) ? 300 : 6);

		for (unsigned p = 1; p <= n; p++) {
			char header[128];

			if (chance(15)) /* a missing part */
				continue;
			if (chance(10))
				snprintf(header, sizeof(header), "%s#%s Part%s\n", reason, count,
					 PICK(parts));
			else
				snprintf(header, sizeof(header), "%s#%s Part%u\n", reason, count,
					 chance(10) ? 1 + (unsigned)below(n + 200) : p);
			if (chance(5)) /* no newline: not a header */
				header[strlen(header) - 1] = ' ';
			put_dmesg(header, below(4096), d * 3600 + (chance(10) ? below(200) : 0));
			if (chance(10)) /* the same part twice */
				put_dmesg(header, below(4096), d * 3600);
		}
	}
}

static void class_huge_parts(void)
{
	static const unsigned huge[] = {4294967295U, 4294967294U, 2147483648U, 99999999U,
					9999999U,    1000000U,	  65536U};
	char header[64];

	snprintf(header, sizeof(header), "Panic#1 Part%u\n", huge[below(7)]);
	put_dmesg(header, below(100), 0);
	if (chance(50))
		put_dmesg("Panic#1 Part1\n", 1000, 0);
}

/* Appends code point c to name, UTF-8 encoded. */
static size_t put_utf8(char *name, size_t len, uint32_t c)
{
	if (c < 0x80) {
		name[len++] = (char)c;
	} else if (c < 0x800) {
		name[len++] = (char)(0xc0 | c >> 6);
		name[len++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		name[len++] = (char)(0xe0 | c >> 12);
		name[len++] = (char)(0x80 | ((c >> 6) & 0x3f));
		name[len++] = (char)(0x80 | (c & 0x3f));
	} else {
		name[len++] = (char)(0xf0 | c >> 18);
		name[len++] = (char)(0x80 | ((c >> 12) & 0x3f));
		name[len++] = (char)(0x80 | ((c >> 6) & 0x3f));
		name[len++] = (char)(0x80 | (c & 0x3f));
	}
	return len;
}

/* A character of a name: C0 (ESC, newline), DEL, C1 (CSI), and beyond ASCII. */
static uint32_t name_char(void)
{
	static const uint32_t ranges[][2] = {
		{0x01, 0x1f},  {0x20, 0x7e},	{0x7f, 0x7f},	  {0x80, 0x9f},
		{0xa0, 0x7ff}, {0x800, 0xd7ff}, {0xe000, 0xfffd}, {0x10000, 0x10ffff},
	};
	const uint32_t *r = ranges[below(sizeof(ranges) / sizeof(ranges[0]))];
	uint32_t c;

	do
		c = r[0] + (uint32_t)below(r[1] - r[0] + 1);
	while (c == '/');
	return c;
}

static void put_named(const char *name, uint64_t secs)
{
	char *text;

	if (streq(name, ".") || streq(name, "..") ||
	    faccessat(pstore_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return;
	text = dmesg_text(chance(70) ? "Panic#1 Part1\n" : "", 200 + below(2000));
	put_text(name, text, secs);
	free(text);
}

/* Up to NAME_MAX bytes, a type prefix half of the time, then characters of next(). */
static void put_random_names(bool any_bytes)
{
	unsigned n = 1 + (unsigned)below(8);

	for (unsigned i = 0; i < n; i++) {
		char name[256 + 8];
		size_t len = chance(50) ? (size_t)snprintf(name, sizeof(name), "dmesg-erst-") : 0;
		size_t want = len + 1 + below(chance(10) ? 240 - len : 24);

		while (len < want) {
			if (!any_bytes)
				len = put_utf8(name, len, name_char());
			else if ((name[len] = (char)below(256)) != 0 && name[len] != '/')
				len++;
		}
		name[len] = 0;
		put_named(name, i);
	}
}

static void class_names(void)
{
	/* The names of the store's files but crash.json (names-store). */
	static const char *const store_names[] = {
		"index",
		"dmesg.txt",
		"records",
		"last-archive.json",
		"last-archive.json.tmp",
		"index.tmp",
		"crash.json.tmp",
		".lock",
		"...",
		"-",
		"dmesg-erst-",
		"dmesg--1",
		"dmesg-erst-1.enc.z.enc.z",
		"console-ramoops-0\n",
		".tmp-69ff1162-158f-5360-ad62-35570ee540a4",
		"69ff1162-158f-5360-ad62-35570ee540a4",
	};

	put_random_names(false);
	for (unsigned i = 0, n = (unsigned)below(4); i < n; i++)
		put_named(PICK(store_names), 10 + i);
}

static void class_names_bytes(void)
{
	put_random_names(true);
}

static void class_names_store(void)
{
	put_named("crash.json", 0);
	if (chance(50))
		put_named("index", 1);
}

static void put_sized(const char *name, size_t len, bool sparse)
{
	int fd = openat(pstore_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
	char *text;

	if (fd < 0)
		die(name);
	if (sparse) {
		if (write(fd, "Panic#1 Part1\n", 14) != 14 || ftruncate(fd, (off_t)len) < 0)
			die(name);
	} else {
		text = dmesg_text("Panic#1 Part1\n", len);
		if (write(fd, text, len) != (ssize_t)len)
			die(name);
		free(text);
	}
	close(fd);
}

static void class_sizes(void)
{
	/* No logs: one too large to store keeps a crash in pstore (log-huge). */
	static const char *const types[] = {"dmesg", "mce", "rtas"};
	const size_t sizes[] = {1,
				PSTORE_HEADER_MAX,
				MAX_RECORD_SIZE - 1,
				MAX_RECORD_SIZE,
				MAX_RECORD_SIZE + 1,
				2 * MAX_RECORD_SIZE};
	unsigned n = 1 + (unsigned)below(4);

	for (unsigned i = 0; i < n; i++) {
		char name[128];
		size_t len = sizes[below(sizeof(sizes) / sizeof(sizes[0]))];

		record_name(name, sizeof(name), PICK(types), false);
		put_sized(name, len, false);
	}
	if (chance(30)) {
		char name[128];

		record_name(name, sizeof(name), PICK(types), false);
		put_sized(name, 64 * 1024 * 1024, true);
	}
}

static void class_empty(void)
{
	static const char *const types[] = {"dmesg", "console", "mce", "rtas"};
	char name[128];

	for (unsigned i = 0, n = 1 + (unsigned)below(3); i < n; i++) {
		record_name(name, sizeof(name), PICK(types), false);
		if (chance(50))
			put_file(pstore_fd, name, "", 0, i);
		else /* a header line and nothing else */
			put_text(name, "Panic#1 Part1\n", i);
	}
}

static void class_log_huge(void)
{
	static const char *const logs[] = {"console", "pmsg", "ftrace"};
	char name[128];

	put_text("dmesg-ramoops-0", "Panic#1 Part1\n<0>[ 1.0] Kernel panic - not syncing: x\n", 0);
	snprintf(name, sizeof(name), "%s-ramoops-0", PICK(logs));
	put_sized(name, MAX_RECORD_SIZE + 1 + below(MAX_RECORD_SIZE), chance(50));
}

static void put_compressed(size_t text_len, bool zlib, unsigned part, uint64_t secs, bool damage)
{
	char name[128], header[64];
	size_t zlen;
	char *text;
	uint8_t *z;

	snprintf(header, sizeof(header), "Panic#1 Part%u\n", part);
	text = dmesg_text(header, text_len);
	z = deflate_new(text, strlen(text), zlib, &zlen);
	if (damage) {
		switch (below(3)) {
		case 0: /* truncated */
			zlen = below(zlen);
			break;
		case 1: /* a flipped bit, as ramoops without ECC does */
			z[below(zlen)] ^= (uint8_t)(1u << below(8));
			break;
		default: /* garbage */
			for (size_t i = 0; i < zlen; i++)
				z[i] = (uint8_t)rnd();
		}
	}
	record_name(name, sizeof(name), "dmesg", true);
	put_file(pstore_fd, name, z, zlen, secs);
	free(text);
	free(z);
}

static void put_compressed_dump(bool damage)
{
	unsigned n = 1 + (unsigned)below(6);

	for (unsigned p = 1; p <= n; p++)
		put_compressed(below(256 * 1024), chance(30), p, 0, damage && chance(50));
}

static void class_zlib(void)
{
	put_compressed_dump(false);
}

static void class_zlib_corrupt(void)
{
	put_compressed_dump(true);
}

static void class_zlib_bomb(void)
{
	put_compressed(MAX_RECORD_SIZE + 1 + below(16 * MAX_RECORD_SIZE), chance(50), 1, 0, false);
}

static void class_zlib_many(void)
{
	unsigned n = 2 + (unsigned)below(299);

	for (unsigned p = 1; p <= n; p++)
		put_compressed(MAX_RECORD_SIZE - 1024, false, p, 0, false);
}

static const char *const cper_types[] = {GUID_DMESG, GUID_DMESG_Z, GUID_MCE,
					 "9876ccad-47b4-4bdb-b65e-16f193c4f3db", /* memory */
					 "00000000-0000-0000-0000-000000000000"};

/* A CPER record of n sections of the given types around the bodies, written as a file. */
static void put_cper(unsigned n, const char *type, const void *body, size_t body_len,
		     bool shared_body, bool mangle)
{
	static const char *const names[] = {"rtas", "unknown", "type9", "powerpc-opal"};
	CperSectionSpec *secs = xmalloc(n * sizeof(*secs));
	CperRecordSpec rec = {
		.severity = 1,
		.validation = 0x2,
		.creator_id = GUID_CREATOR_LINUX,
		.notification_type = GUID_NOTIFY_MCE,
		.record_id = ++next_id,
		.n_sections = n,
		.sections = secs,
	};
	size_t cap = 128 + n * (72 + body_len) + 64, len;
	uint8_t *out = xmalloc(cap);
	char name[128];

	for (unsigned i = 0; i < n; i++)
		secs[i] = (CperSectionSpec){
			.type = type ?: PICK(cper_types),
			.severity = 1,
			.flags = 1,
			.body = body,
			.body_len = shared_body && i > 0 ? 0 : body_len,
		};
	timestamp_unix(rec.timestamp, T0);
	len = cper_build_record(&rec, out, cap);
	if (len == 0) {
		errno = ENOBUFS;
		die("cper_build_record");
	}
	for (unsigned i = 0; i < n; i++) {
		uint8_t *d = out + 128 + (size_t)i * 72;

		if (shared_body) { /* every descriptor at the first body */
			put_le(d, 128 + (uint64_t)n * 72, 4);
			put_le(d + 4, body_len, 4);
		} else if (mangle && chance(30)) {
			put_le(d, chance(50) ? below(len) : rnd(), 4);
			put_le(d + 4, chance(50) ? below(len) : rnd(), 4);
		}
	}
	if (mangle && chance(20)) /* a section count or record length that lies */
		put_le(out + (chance(50) ? 10 : 20), rnd(), chance(50) ? 2 : 4);
	snprintf(name, sizeof(name), "%s-erst-%llu", PICK(names),
		 (unsigned long long)(7578827135071027200ULL + next_id));
	put_file(pstore_fd, name, out, len, 0);
	free(secs);
	free(out);
}

/* Records of up to max_sections sections and max_bytes of section bodies. */
static void put_cper_records(unsigned max_sections, size_t max_bytes)
{
	unsigned records = 1 + (unsigned)below(4);

	for (unsigned r = 0; r < records; r++) {
		unsigned n = 1 + (unsigned)below(max_sections);
		size_t text_len = below(MIN(64 * 1024, max_bytes / n)), zlen;
		char *text = dmesg_text("", text_len);
		uint8_t *z = deflate_new(text, strlen(text), false, &zlen);
		bool compressed = chance(50);

		put_cper(n, chance(50) ? NULL : GUID_DMESG_Z, compressed ? (void *)z : text,
			 compressed ? zlen : strlen(text), chance(30), true);
		free(text);
		free(z);
	}
}

static void class_cper(void)
{
	put_cper_records(64, 256 * 1024);
}

static void class_cper_many(void)
{
	/* Under MaxRecordSize, which is archived whole. */
	put_cper_records(300, MAX_RECORD_SIZE / 2);
}

static void class_cper_bomb(void)
{
	size_t text_len = 2 * MAX_RECORD_SIZE + below(14 * MAX_RECORD_SIZE), zlen;
	char *text = dmesg_text("", text_len);
	uint8_t *z = deflate_new(text, strlen(text), false, &zlen);

	put_cper(2 + (unsigned)below(40), GUID_DMESG_Z, z, zlen, true, false);
	free(text);
	free(z);
}

static void put_secret(void)
{
	static const char secret[] = "root:HOSTILE-SECRET-DO-NOT-STORE:19000:0:99999:7:::\n";

	put_file(outside_fd, "secret", secret, strlen(secret), 0);
}

static void class_special(void)
{
	char name[128];

	put_dmesg("Panic#1 Part1\n", 500, 0);
	for (unsigned i = 0, n = 1 + (unsigned)below(5); i < n; i++) {
		record_name(name, sizeof(name), chance(50) ? "dmesg" : "console", false);
		switch (below(6)) {
		case 0:
			if (mkfifoat(pstore_fd, name, 0600) < 0)
				die("mkfifo");
			break;
		case 1: {
			struct sockaddr_un sa = {.sun_family = AF_UNIX};
			int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

			if (fd < 0 || fchdir(pstore_fd) < 0)
				die("socket");
			memcpy(sa.sun_path, name, MIN(strlen(name), sizeof(sa.sun_path) - 1));
			if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
				die("bind");
			close(fd);
			break;
		}
		case 2:
			if (mknodat(pstore_fd, name, S_IFCHR | 0600, makedev(1, 5)) <
			    0) /* /dev/zero */
				die("mknod");
			break;
		case 3:
			if (mkdirat(pstore_fd, name, 0700) < 0)
				die("mkdir");
			break;
		case 4:
			put_secret();
			if (symlinkat("../outside/secret", pstore_fd, name) < 0)
				die("symlink");
			break;
		default:
			if (symlinkat(chance(50) ? "/nonexistent" : "/dev/zero", pstore_fd, name) <
			    0)
				die("symlink");
		}
	}
}

static void class_links(void)
{
	char name[128], other[128];

	put_secret();
	record_name(name, sizeof(name), chance(50) ? "dmesg" : "mce", false);
	if (linkat(outside_fd, "secret", pstore_fd, name, 0) < 0)
		die("link");
	if (chance(50)) {
		record_name(name, sizeof(name), "dmesg", false);
		put_text(name, "Panic#1 Part1\n<0>[ 1.0] Kernel panic - not syncing: x\n", 0);
		record_name(other, sizeof(other), "dmesg", false);
		if (linkat(pstore_fd, name, pstore_fd, other, 0) < 0)
			die("link");
	}
}

static int crash_fd = -1; /* DIR/crash, the KdumpDir= of the run */

/*
 * KdumpDir= as kdump-tools leaves it and as others could plant it: complete
 * dumps (some the same panic as a pstore record), half-written ones, dmesg
 * files that are links (to DIR/outside), FIFOs, directories, hard links,
 * 1 GiB sparse, binary; a directory that is a link; names no log should carry.
 */
static void class_kdump(void)
{
	put_secret();
	put_file(crash_fd, "kexec_cmd", "kexec -p /boot/vmlinuz\n", 22, 0);
	if (chance(50))
		put_dmesg("Panic#1 Part1\n", 500, 0);
	for (unsigned i = 0, n = 1 + (unsigned)below(8); i < n; i++) {
		char dir[32], dmesg[64], dump[64];
		int fd = -1, dfd;
		char *text;

		snprintf(dir, sizeof(dir), "2026120%u%04u", (unsigned)below(10), i);
		snprintf(dmesg, sizeof(dmesg), "dmesg.%s", dir);
		snprintf(dump, sizeof(dump), "%s.%s", chance(80) ? "dump" : "vmcore", dir);
		if (chance(10)) {
			/* a name that no log line should carry as it is */
			dir[2] = chance(50) ? '\n' : '\xff';
		}
		if (chance(10)) {
			if (symlinkat("../outside", crash_fd, dir) < 0 && errno != EEXIST)
				die("symlink");
			continue;
		}
		if (mkdirat(crash_fd, dir, 0755) < 0) {
			if (errno == EEXIST)
				continue;
			die("mkdir");
		}
		dfd = openat(crash_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			die(dir);
		put_file(dfd, chance(80) ? dump : "dump-incomplete", "KDUMP   ", 8, 0);
		switch (below(8)) {
		case 0:
			if (symlinkat("../../outside/secret", dfd, dmesg) < 0)
				die("symlink");
			break;
		case 1:
			if (linkat(outside_fd, "secret", dfd, dmesg, 0) < 0)
				die("link");
			break;
		case 2:
			if (mkfifoat(dfd, dmesg, 0600) < 0)
				die("mkfifo");
			break;
		case 3:
			if (mkdirat(dfd, dmesg, 0700) < 0)
				die("mkdir");
			break;
		case 4:
			/* 1 GiB, sparse, the panic at its end */
			text = dmesg_text("", 4096);
			fd = openat(dfd, dmesg, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0 || pwrite(fd, text, strlen(text), (1LL << 30) - 4096) < 0 ||
			    close(fd) < 0)
				die(dmesg);
			free(text);
			break;
		case 5: {
			uint8_t bytes[4096];

			for (size_t k = 0; k < sizeof(bytes); k++)
				bytes[k] = (uint8_t)below(256);
			put_file(dfd, dmesg, bytes, sizeof(bytes), 0);
			break;
		}
		default:
			/* the printk times of pstore's records: the same panic, joined */
			text = dmesg_text("", (size_t)below(64 * 1024));
			for (char *p = text; (p = strstr(p, "<")); p++)
				if (p[1] >= '0' && p[1] <= '9' && p[2] == '>')
					memset(p, ' ', 3);
			put_file(dfd, dmesg, text, strlen(text), 0);
			free(text);
		}
		close(dfd);
	}
}

/*
 * A crash among MANY_ENTRIES entries that pstored skips (FIFOs, directories,
 * symbolic and hard links, names not valid UTF-8): what the scan keeps, and
 * what pstored says, must not grow with them.
 */
#define MANY_ENTRIES 10000

static void class_many_entries(void)
{
	char name[128];

	put_secret();
	put_dmesg("Panic#1 Part1\n", 500, 0);
	for (unsigned i = 0; i < MANY_ENTRIES; i++) {
		int r = 0;

		snprintf(name, sizeof(name), "dmesg-erst-%u", 100000000 + i);
		switch (below(5)) {
		case 0:
			r = mkfifoat(pstore_fd, name, 0600);
			break;
		case 1:
			r = mkdirat(pstore_fd, name, 0700);
			break;
		case 2:
			r = symlinkat("../outside/secret", pstore_fd, name);
			break;
		case 3:
			r = linkat(outside_fd, "secret", pstore_fd, name, 0);
			break;
		default:
			snprintf(name, sizeof(name), "dmesg-erst-\xff%u", 100000000 + i);
			put_text(name, "Panic#1 Part1\nnot UTF-8\n", 0);
		}
		if (r < 0)
			die(name);
	}
}

static const struct {
	const char *name;
	void (*make)(void);
} classes[] = {
	{"headers", class_headers},
	{"huge-parts", class_huge_parts},
	{"names", class_names},
	{"names-bytes", class_names_bytes},
	{"names-store", class_names_store},
	{"sizes", class_sizes},
	{"empty", class_empty},
	{"log-huge", class_log_huge},
	{"zlib", class_zlib},
	{"zlib-corrupt", class_zlib_corrupt},
	{"zlib-bomb", class_zlib_bomb},
	{"zlib-many", class_zlib_many},
	{"cper", class_cper},
	{"cper-many", class_cper_many},
	{"cper-bomb", class_cper_bomb},
	{"special", class_special},
	{"links", class_links},
	{"many-entries", class_many_entries},
	{"kdump", class_kdump},
};

int main(int argc, char *argv[])
{
	int dir_fd;
	char *end;

	if (argc == 2 && streq(argv[1], "--list")) {
		for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
			puts(classes[i].name);
		return EXIT_SUCCESS;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: make-hostile SEED CLASS DIR | --list\n");
		return EXIT_FAILURE;
	}
	errno = 0;
	rng_state = strtoull(argv[1], &end, 0);
	if (errno || *end || end == argv[1]) {
		fprintf(stderr, "make-hostile: bad seed %s\n", argv[1]);
		return EXIT_FAILURE;
	}
	dir_fd = open(argv[3], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		die(argv[3]);
	if (mkdirat(dir_fd, "pstore", 0750) < 0 || mkdirat(dir_fd, "outside", 0700) < 0 ||
	    mkdirat(dir_fd, "crash", 0755) < 0)
		die("mkdir");
	pstore_fd = openat(dir_fd, "pstore", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	outside_fd = openat(dir_fd, "outside", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	crash_fd = openat(dir_fd, "crash", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pstore_fd < 0 || outside_fd < 0 || crash_fd < 0)
		die("open");
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (streq(argv[2], classes[i].name)) {
			classes[i].make();
			return EXIT_SUCCESS;
		}
	fprintf(stderr, "make-hostile: unknown class %s (see --list)\n", argv[2]);
	return EXIT_FAILURE;
}
