// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-archive: "pstored archive" against systemd-pstore on the same pstore.
 *
 * Builds a fake ERST pstore (by default 100 crashes of 10 dmesg parts of 10 KiB
 * each, named and dated as the kernel's ERST backend names them, Part1 the
 * newest) and archives it with pstored, then builds it again and archives it
 * with "systemd-pstore SRC DST"; several rounds, the order alternating, each
 * run starting on a synced file system (see disk_sync()). It
 * prints the wall time of each program, the ratio, its CPU time (user and
 * system, which a busy machine disturbs less than the wall time) and the peak
 * RSS of both (wait4()). Then the start-up cost: each program on an empty pstore, and
 * "pstored --version".
 *
 *   bench-archive [--crashes=N] [--parts=N] [--part-size=BYTES] [--rounds=N]
 *                 [--dir=DIR] [--pstore-base=DIR] [--journald-pid=PID] [--keep]
 *                 PSTORED SYSTEMD_PSTORE
 *
 * Both programs send to the journal, so run it against a journald of its own:
 * bench/bench-archive.sh (make bench-archive) starts one in a private mount
 * namespace and passes its pid, which lets each run start with journald idle
 * (SIGRTMIN+1, then /run/systemd/journal/synced). DIR (default $TMPDIR or
 * /var/tmp) should be on the disk the store lives on: pstored fsyncs, and
 * systemd-pstore does not. The fake pstores go below --pstore-base (default:
 * DIR): /sys/fs/pstore is RAM, never the store's disk, and a fake pstore on
 * that disk would be written back by the store's syncs and make each unlink
 * free disk blocks, which no real pstore does. bench-archive.sh puts them on
 * a tmpfs of their own.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "time-util.h"

#define T0 1764583200 /* 2025-12-01 10:00:00 UTC */
#define STARTUP_RUNS 20

static unsigned arg_crashes = 100, arg_parts = 10, arg_part_size = 10240, arg_rounds = 3;
static const char *arg_dir, *arg_pstore_base;
static pid_t arg_journald_pid;
static bool arg_keep;
static const char *arg_pstored, *arg_systemd_pstore;

static const char *const functions[] = {"sysrq_handle_crash", "ext4_journal_start_sb", "nvme_irq",
					"copy_page_range", "__list_del_entry_valid"};

typedef struct Run {
	usec_t wall;
	usec_t cpu;
	long maxrss_kib;
} Run;

static usec_t monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}

/*
 * Part <part> of crash <crash>: the "Panic#1 Part<n>" header of the kernel's
 * kmsg_dump, then whole log lines up to the part size. Part <parts> is the
 * oldest and starts with the boot banner; Part1, the newest, ends with the
 * panic, whose call trace names a function that differs between crashes.
 */
static size_t format_part(char *buf, unsigned crash, unsigned part)
{
	const char *function = functions[crash % ARRAY_SIZE(functions)];
	unsigned line = (arg_parts - part) * 1000;
	char tail[1024];
	size_t len, tail_len = 0;

	len = (size_t)snprintf(buf, arg_part_size, "Panic#1 Part%u\n", part);
	if (part == arg_parts)
		len += (size_t)snprintf(
			buf + len, arg_part_size - len,
			"<6>[    0.000000] Linux version 6.1.0-27-amd64 "
			"(debian-kernel@lists.debian.org) (gcc-12 (Debian "
			"12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1\n");
	if (part == 1)
		tail_len = (size_t)snprintf(
			tail, sizeof(tail),
			"<0>[ 9999.000001] Kernel panic - not syncing: bench crash %u\n"
			"<4>[ 9999.000002] CPU: 1 PID: %u Comm: bash Not tainted 6.1.0-27-amd64 "
			"#1 Debian 6.1.115-1\n"
			"<4>[ 9999.000003] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\n"
			"<4>[ 9999.000004] Call Trace:\n"
			"<4>[ 9999.000005]  <TASK>\n"
			"<4>[ 9999.000006]  dump_stack_lvl+0x44/0x5c\n"
			"<4>[ 9999.000007]  panic+0x118/0x2ed\n"
			"<4>[ 9999.000008]  %s+0x16/0x20\n"
			"<4>[ 9999.000009]  ksys_write+0x5f/0xe0\n"
			"<4>[ 9999.000010]  do_syscall_64+0x5b/0xc0\n"
			"<4>[ 9999.000011]  entry_SYSCALL_64_after_hwframe+0x64/0xce\n"
			"<4>[ 9999.000012]  </TASK>\n",
			crash, 300 + crash, function);
	for (;;) {
		char text[160];
		int n = snprintf(text, sizeof(text),
				 "<6>[%5u.%06u] bench: crash %u, log line %u of a busy system\n",
				 line / 100, (line % 100) * 10000, crash, line);

		if (len + (size_t)n + tail_len > arg_part_size)
			break;
		memcpy(buf + len, text, (size_t)n);
		len += (size_t)n;
		line++;
	}
	memcpy(buf + len, tail, tail_len);
	return len + tail_len;
}

/* The pstore as the ERST backend shows it: ids are seconds << 32 plus the part. */
static int build_pstore(const char *dir)
{
	_cleanup_free_ char *buf = malloc(arg_part_size);
	_cleanup_close_ int dir_fd = -1;

	if (!buf)
		return log_oom();
	if (mkdir(dir, 0700) < 0)
		return log_error_errno(errno, "Failed to create %s: %m", dir);
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return log_error_errno(errno, "Failed to open %s: %m", dir);

	for (unsigned c = 0; c < arg_crashes; c++) {
		uint64_t t = T0 + (uint64_t)c * 3600;

		for (unsigned p = 1; p <= arg_parts; p++) {
			struct timespec times[2] = {{.tv_sec = (time_t)t}, {.tv_sec = (time_t)t}};
			_cleanup_close_ int fd = -1;
			size_t len = format_part(buf, c, p);
			char name[64];
			int r;

			snprintf(name, sizeof(name), "dmesg-erst-%" PRIu64, (t << 32) + p);
			fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
			if (fd < 0)
				return log_error_errno(errno, "Failed to create %s/%s: %m", dir,
						       name);
			r = write_full(fd, buf, len);
			if (r < 0)
				return log_error_errno(r, "Failed to write %s/%s: %m", dir, name);
			if (futimens(fd, times) < 0)
				return log_error_errno(errno, "Failed to date %s/%s: %m", dir,
						       name);
		}
	}
	return 0;
}

/* Entries of dir, without "." and ".."; with dirs_only, the directories not starting with ".". */
static int count_entries(const char *dir, bool dirs_only)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	d = opendir(dir);
	if (!d)
		return -errno;
	FOREACH_DIRENT(de, d, n = -errno; break)
		if (!dirs_only || (de->d_type == DT_DIR && de->d_name[0] != '.'))
			n++;
	closedir(d);
	return n;
}

/* Makes journald write out what it was sent, so that the next run starts with it idle. */
static int journald_sync(void)
{
	usec_t deadline = monotonic_usec() + 30 * USEC_PER_SEC;

	if (arg_journald_pid <= 0)
		return 0;
	(void)unlink("/run/systemd/journal/synced");
	if (kill(arg_journald_pid, SIGRTMIN + 1) < 0)
		return log_error_errno(errno, "Failed to signal journald (pid %d): %m",
				       (int)arg_journald_pid);
	while (access("/run/systemd/journal/synced", F_OK) < 0) {
		if (monotonic_usec() > deadline)
			return log_error_errno(ETIMEDOUT, "journald (pid %d) did not sync in 30 s",
					       (int)arg_journald_pid);
		usleep(10000);
	}
	return 0;
}

static usec_t timeval_usec(const struct timeval *tv)
{
	return (usec_t)tv->tv_sec * USEC_PER_SEC + (usec_t)tv->tv_usec;
}

/* Runs argv with stdout and stderr to log (or /dev/null); fails unless it exits 0. */
static int run(const char *const *argv, const char *log, Run *ret)
{
	usec_t start;
	struct rusage ru;
	int status;
	pid_t pid;

	start = monotonic_usec();
	pid = fork();
	if (pid < 0)
		return log_error_errno(errno, "Failed to fork: %m");
	if (pid == 0) {
		int fd = open(log ?: "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(EXIT_FAILURE);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return log_error_errno(errno, "Failed to wait for %s: %m", argv[0]);
	ret->wall = monotonic_usec() - start;
	ret->cpu = timeval_usec(&ru.ru_utime) + timeval_usec(&ru.ru_stime);
	ret->maxrss_kib = ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error_errno(EIO, "%s failed (wait status %d)%s%s", argv[0], status,
				       log ? ", see " : "", log ?: "");
	return 0;
}

/*
 * Writes back what earlier runs left dirty on the file system of dir, so
 * that each run starts from a clean one: systemd-pstore never syncs, and the
 * next run's syncfs(2) would otherwise pay for writing its files too.
 */
static int disk_sync(const char *dir)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || syncfs(fd) < 0)
		return log_error_errno(errno, "Failed to sync the file system of %s: %m", dir);
	return 0;
}

/* One archiving run of a fresh <pbase>/<round>-<name>-pstore into <base>/<round>-<name>-out. */
static int archive_round(const char *base, const char *pbase, unsigned round, bool pstored,
			 Run *ret)
{
	_cleanup_free_ char *src = NULL, *dst = NULL, *log = NULL, *opt_src = NULL, *opt_dst = NULL;
	const char *name = pstored ? "pstored" : "systemd-pstore";
	int r, left, crashes;

	if (asprintf(&src, "%s/%u-%s-pstore", pbase, round, name) < 0 ||
	    asprintf(&dst, "%s/%u-%s-out", base, round, name) < 0 ||
	    asprintf(&log, "%s/%u-%s.log", base, round, name) < 0 ||
	    asprintf(&opt_src, "--pstore-dir=%s", src) < 0 ||
	    asprintf(&opt_dst, "--store-dir=%s", dst) < 0)
		return log_oom();
	r = build_pstore(src);
	if (r < 0)
		return r;
	r = disk_sync(base);
	if (r < 0)
		return r;
	r = journald_sync();
	if (r < 0)
		return r;

	if (pstored) {
		const char *argv[] = {arg_pstored,	    "archive", opt_src, opt_dst,
				      "--config=/dev/null", NULL};
		r = run(argv, log, ret);
	} else {
		const char *argv[] = {arg_systemd_pstore, src, dst, NULL};
		if (mkdir(dst, 0755) < 0)
			return log_error_errno(errno, "Failed to create %s: %m", dst);
		r = run(argv, log, ret);
	}
	if (r < 0)
		return r;

	/* Both must have done the whole job: pstore emptied, one directory per crash. */
	left = count_entries(src, false);
	crashes = count_entries(dst, true);
	if (left != 0 || crashes != (int)arg_crashes)
		return log_error_errno(EIO,
				       "%s left %d of %u records in %s and made %d of %u crash "
				       "directories in %s (for systemd-pstore: is Storage=external "
				       "in /etc/systemd/pstore.conf?)",
				       name, left, arg_crashes * arg_parts, src, crashes,
				       arg_crashes, dst);
	return 0;
}

static int compare_usec(const void *a, const void *b)
{
	usec_t x = *(const usec_t *)a, y = *(const usec_t *)b;

	return x < y ? -1 : x > y;
}

static usec_t median(usec_t *v, unsigned n)
{
	qsort(v, n, sizeof(usec_t), compare_usec);
	return v[n / 2];
}

static int bench_archive(const char *base, const char *pbase)
{
	_cleanup_free_ usec_t *ours = calloc(arg_rounds, sizeof(usec_t));
	_cleanup_free_ usec_t *theirs = calloc(arg_rounds, sizeof(usec_t));
	_cleanup_free_ usec_t *ours_cpu = calloc(arg_rounds, sizeof(usec_t));
	_cleanup_free_ usec_t *theirs_cpu = calloc(arg_rounds, sizeof(usec_t));
	long ours_rss = 0, theirs_rss = 0;
	usec_t m_ours, m_theirs, c_ours, c_theirs;
	int r;

	if (!ours || !theirs || !ours_cpu || !theirs_cpu)
		return log_oom();
	printf("archiving %u crashes of %u ERST dmesg parts of %u bytes (%u records, %u KiB), "
	       "%u rounds, from %s into %s\n",
	       arg_crashes, arg_parts, arg_part_size, arg_crashes * arg_parts,
	       arg_crashes * arg_parts * arg_part_size / 1024, arg_rounds, pbase, base);
	for (unsigned i = 0; i < arg_rounds; i++) {
		Run p, s;

		/* Alternate who goes first, so that neither always finds a warmer cache. */
		for (unsigned k = 0; k < 2; k++) {
			bool pstored = (k == 0) == (i % 2 == 0);

			r = archive_round(base, pbase, i, pstored, pstored ? &p : &s);
			if (r < 0)
				return r;
		}
		ours[i] = p.wall;
		theirs[i] = s.wall;
		ours_cpu[i] = p.cpu;
		theirs_cpu[i] = s.cpu;
		ours_rss = MAX(ours_rss, p.maxrss_kib);
		theirs_rss = MAX(theirs_rss, s.maxrss_kib);
		printf("  round %u: pstored %7.1f ms (CPU %6.1f ms, %ld KiB)   systemd-pstore "
		       "%7.1f ms (CPU %6.1f ms, %ld KiB)\n",
		       i + 1, p.wall / 1e3, p.cpu / 1e3, p.maxrss_kib, s.wall / 1e3, s.cpu / 1e3,
		       s.maxrss_kib);
	}
	m_ours = median(ours, arg_rounds);
	m_theirs = median(theirs, arg_rounds);
	c_ours = median(ours_cpu, arg_rounds);
	c_theirs = median(theirs_cpu, arg_rounds);
	printf("pstored archive:     median %7.1f ms, CPU %7.1f ms, peak RSS %5.1f MiB\n",
	       m_ours / 1e3, c_ours / 1e3, ours_rss / 1024.0);
	printf("systemd-pstore:      median %7.1f ms, CPU %7.1f ms, peak RSS %5.1f MiB\n",
	       m_theirs / 1e3, c_theirs / 1e3, theirs_rss / 1024.0);
	printf("ratio pstored/systemd-pstore: %.2f (target <= 1.00), CPU %.2f, pstored peak RSS "
	       "%s 10 MiB\n",
	       (double)m_ours / (double)m_theirs, (double)c_ours / (double)c_theirs,
	       ours_rss < 10 * 1024 ? "<" : ">=");
	return 0;
}

/* Median wall time of STARTUP_RUNS runs of argv. */
static int time_startup(const char *label, const char *const *argv)
{
	usec_t wall[STARTUP_RUNS], m;
	long rss = 0;
	int r;

	for (unsigned i = 0; i < STARTUP_RUNS; i++) {
		Run x;

		r = run(argv, NULL, &x);
		if (r < 0)
			return r;
		wall[i] = x.wall;
		rss = MAX(rss, x.maxrss_kib);
	}
	m = median(wall, STARTUP_RUNS); /* sorts wall */
	printf("  %-36s median %5.2f ms, min %5.2f ms, peak RSS %ld KiB\n", label, m / 1e3,
	       wall[0] / 1e3, rss);
	return 0;
}

static int bench_startup(const char *base)
{
	_cleanup_free_ char *empty = NULL, *out = NULL, *opt_src = NULL, *opt_dst = NULL;
	int r;

	if (asprintf(&empty, "%s/empty-pstore", base) < 0 ||
	    asprintf(&out, "%s/empty-out", base) < 0 ||
	    asprintf(&opt_src, "--pstore-dir=%s", empty) < 0 ||
	    asprintf(&opt_dst, "--store-dir=%s", out) < 0)
		return log_oom();
	if (mkdir(empty, 0700) < 0 || mkdir(out, 0700) < 0)
		return log_error_errno(errno, "Failed to create %s or %s: %m", empty, out);

	printf("start-up (%u runs each):\n", STARTUP_RUNS);
	const char *version[] = {arg_pstored, "--version", NULL};
	const char *ours[] = {arg_pstored, "archive", opt_src, opt_dst, "--config=/dev/null", NULL};
	const char *theirs[] = {arg_systemd_pstore, empty, out, NULL};

	r = time_startup("pstored --version", version);
	if (r >= 0)
		r = time_startup("pstored archive, empty pstore", ours);
	if (r >= 0)
		r = time_startup("systemd-pstore, empty pstore", theirs);
	return r;
}

static int parse_unsigned(const char *s, const char *what, unsigned *ret)
{
	uint64_t v;

	if (parse_uint64(s, &v) < 0 || v == 0 || v > UINT_MAX)
		return log_error_errno(EINVAL, "Invalid %s: %s", what, s);
	*ret = (unsigned)v;
	return 0;
}

static int parse_argv(int argc, char *argv[])
{
	enum {
		ARG_CRASHES = 0x100,
		ARG_PARTS,
		ARG_PART_SIZE,
		ARG_ROUNDS,
		ARG_DIR,
		ARG_PSTORE_BASE,
		ARG_JOURNALD_PID,
		ARG_KEEP
	};
	static const struct option options[] = {
		{"crashes", required_argument, NULL, ARG_CRASHES},
		{"parts", required_argument, NULL, ARG_PARTS},
		{"part-size", required_argument, NULL, ARG_PART_SIZE},
		{"rounds", required_argument, NULL, ARG_ROUNDS},
		{"dir", required_argument, NULL, ARG_DIR},
		{"pstore-base", required_argument, NULL, ARG_PSTORE_BASE},
		{"journald-pid", required_argument, NULL, ARG_JOURNALD_PID},
		{"keep", no_argument, NULL, ARG_KEEP},
		{},
	};
	unsigned pid;
	int c, r = 0;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0 && r >= 0)
		switch (c) {
		case ARG_CRASHES:
			r = parse_unsigned(optarg, "--crashes", &arg_crashes);
			break;
		case ARG_PARTS:
			r = parse_unsigned(optarg, "--parts", &arg_parts);
			break;
		case ARG_PART_SIZE:
			r = parse_unsigned(optarg, "--part-size", &arg_part_size);
			break;
		case ARG_ROUNDS:
			r = parse_unsigned(optarg, "--rounds", &arg_rounds);
			break;
		case ARG_DIR:
			arg_dir = optarg;
			break;
		case ARG_PSTORE_BASE:
			arg_pstore_base = optarg;
			break;
		case ARG_JOURNALD_PID:
			r = parse_unsigned(optarg, "--journald-pid", &pid);
			arg_journald_pid = (pid_t)pid;
			break;
		case ARG_KEEP:
			arg_keep = true;
			break;
		default:
			return -EINVAL;
		}
	if (r < 0)
		return r;
	if (arg_part_size < 2048 || arg_parts >= 100)
		return log_error_errno(EINVAL, "--part-size must be at least 2048 and --parts "
					       "below 100.");
	if (optind + 2 != argc)
		return log_error_errno(EINVAL,
				       "Usage: bench-archive [--crashes=N] [--parts=N] "
				       "[--part-size=BYTES] [--rounds=N] [--dir=DIR] "
				       "[--pstore-base=DIR] [--journald-pid=PID] [--keep] PSTORED "
				       "SYSTEMD_PSTORE");
	arg_pstored = argv[optind];
	arg_systemd_pstore = argv[optind + 1];
	return 1;
}

int main(int argc, char *argv[])
{
	_cleanup_free_ char *base = NULL, *pbase = NULL;
	int r;

	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	if (asprintf(&base, "%s/bench-archive.XXXXXX", arg_dir ?: getenv("TMPDIR") ?: "/var/tmp") <
		    0 ||
	    !mkdtemp(base))
		return log_error_errno(errno, "Failed to create a directory for the runs: %m"),
		       EXIT_FAILURE;
	if (arg_pstore_base &&
	    (asprintf(&pbase, "%s/bench-archive.XXXXXX", arg_pstore_base) < 0 || !mkdtemp(pbase))) {
		r = log_error_errno(errno, "Failed to create a directory for the pstores in %s: %m",
				    arg_pstore_base);
		(void)rm_rf_at(AT_FDCWD, base);
		return EXIT_FAILURE;
	}

	r = bench_archive(base, pbase ?: base);
	if (r >= 0)
		r = bench_startup(base);

	if (arg_keep)
		printf("runs kept in %s%s%s\n", base, pbase ? " and " : "", pbase ?: "");
	else {
		(void)rm_rf_at(AT_FDCWD, base);
		if (pbase)
			(void)rm_rf_at(AT_FDCWD, pbase);
	}
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
