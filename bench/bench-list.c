// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-list: how long `pstorectl list` takes on a store of many crashes.
 *
 * Builds a store of N crashes through the store API (each with one dmesg
 * record of the given size, crash.json and dmesg.txt, as pstored writes
 * them), then runs pstorectl list on it several times, output to /dev/null,
 * and prints the wall times. It does so for two record sizes, to show that
 * listing reads the index and not the crashes.
 *
 *   bench-list [--crashes=N] [--runs=N] [--dir=DIR] [--keep] PSTORECTL
 *
 * DIR (default: $TMPDIR or /tmp) holds the stores while it runs (and after,
 * with --keep, for profiling); a tmpfs such as /dev/shm makes building them
 * fast (the store fsyncs every crash).
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "sha256-util.h"
#include "store/store.h"
#include "time-util.h"

static unsigned arg_crashes = 10000, arg_runs = 5;
static const char *arg_dir;
static const char *arg_pstorectl;
static bool arg_keep;

static const char *const reasons[] = {"panic", "oops", "bug", "warning", "hung-task"};
static const char *const functions[] = {"sysrq_handle_crash", "ext4_journal_start", "nvme_irq",
					"__schedule", "copy_page"};

static usec_t monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}

static int add_crash(Store *s, unsigned i, size_t record_size, char *buf)
{
	_cleanup_(store_txn_freep) StoreTxn *t = NULL;
	char hex[SHA256_HEX_SIZE], id[STORE_CRASH_ID_LEN + 1], name[64], msg[128];
	const char *digests[1] = {hex};
	usec_t time = (usec_t)1764547200 * USEC_PER_SEC + (usec_t)i * 600 * USEC_PER_SEC;
	json_auto_t *crash = NULL;
	int r;

	/* The record: a header and a log that differs per crash, padded to size. */
	int n = snprintf(buf, record_size,
			 "Panic#1 Part1\n<0>[ %u.000000] Kernel panic - crash %u\n", i, i);
	memset(buf + n, 'x', record_size - n);
	r = sha256_hex(buf, record_size, hex);
	if (r < 0)
		return r;
	r = store_crash_id_from_digests(digests, 1, id);
	if (r < 0)
		return r;
	snprintf(name, sizeof(name), "dmesg-erst-%" PRIu64, (uint64_t)7300000000000000000ULL + i);
	snprintf(msg, sizeof(msg), "Kernel panic - not syncing: crash %u", i);

	r = store_txn_begin(s, id, &t);
	if (r < 0)
		return r;
	char path[80];
	snprintf(path, sizeof(path), "records/%s", name);
	r = store_txn_write_file(t, path, buf, record_size);
	if (r < 0)
		return r;
	r = store_txn_write_file(t, "dmesg.txt", buf + 14, record_size - 14);
	if (r < 0)
		return r;

	crash = json_pack("{s:i, s:s, s:s, s:s, s:s, s:I, s:I, s:b, s:[{s:s, s:s, s:I, s:s}],"
			  " s:{s:s, s:s, s:s, s:s, s:[s, s]}, s:{s:{s:s, s:i}}}",
			  "schema_version", STORE_SCHEMA_VERSION, "kind", "kernel-crash", "reason",
			  reasons[i % ARRAY_SIZE(reasons)], "pstore_reason", "Panic", "backend",
			  "erst", "time", (json_int_t)time, "archived_at",
			  (json_int_t)(time + 30 * USEC_PER_SEC), "complete", true, "records",
			  "name", name, "type", "dmesg", "size", (json_int_t)record_size, "sha256",
			  hex, "analysis", "message", msg, "function",
			  functions[i % ARRAY_SIZE(functions)], "kernel_version", "6.1.0-13-amd64",
			  "signature", functions[i % ARRAY_SIZE(functions)], "call_trace",
			  functions[i % ARRAY_SIZE(functions)], "do_syscall_64", "upload",
			  "collector", "state", i % 3 ? "sent" : "pending", "attempts", 1);
	if (!crash)
		return -ENOMEM;
	return store_txn_commit(t, crash);
}

static int build_store(const char *dir, size_t record_size)
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *buf = malloc(record_size);
	usec_t start = monotonic_usec();
	int r;

	if (!buf)
		return log_oom();
	r = store_open(dir, STORE_CREATE, &s);
	if (r < 0)
		return log_error_errno(r, "Failed to create the store %s: %m", dir);
	for (unsigned i = 0; i < arg_crashes; i++) {
		r = add_crash(s, i, record_size, buf);
		if (r < 0)
			return log_error_errno(r, "Failed to add crash %u to %s: %m", i, dir);
	}
	printf("built %u crashes with %zu-byte records in %.1f s\n", arg_crashes, record_size,
	       (monotonic_usec() - start) / 1e6);
	return 0;
}

/*
 * Runs pstorectl with its output to /dev/null; returns the wall time and the
 * CPU time (user + system) in µs. The CPU time is the figure to read on a
 * busy machine, where the wall time also counts waiting for a CPU.
 */
static int run_pstorectl(const char *dir, const char *const *extra, usec_t *ret_wall,
			 usec_t *ret_cpu)
{
	_cleanup_free_ char *opt = NULL;
	usec_t start = monotonic_usec();
	struct rusage ru;
	int status;
	pid_t pid;

	if (asprintf(&opt, "--store-dir=%s", dir) < 0)
		return log_oom();
	pid = fork();
	if (pid < 0)
		return log_error_errno(errno, "Failed to fork: %m");
	if (pid == 0) {
		const char *argv[8] = {arg_pstorectl, opt, "--no-pager"};
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		size_t n = 3;

		for (; *extra && n < ARRAY_SIZE(argv) - 1; extra++)
			argv[n++] = *extra;
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(EXIT_FAILURE);
		execv(arg_pstorectl, (char **)argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return log_error_errno(errno, "Failed to wait for pstorectl: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error_errno(EIO, "%s failed (status %d)", arg_pstorectl, status);
	*ret_wall = monotonic_usec() - start;
	*ret_cpu = (usec_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * USEC_PER_SEC +
		   ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
	return 0;
}

static int compare_usec(const void *a, const void *b)
{
	usec_t x = *(const usec_t *)a, y = *(const usec_t *)b;

	return x < y ? -1 : x > y;
}

static int time_verb(const char *dir, const char *label, const char *const *extra)
{
	_cleanup_free_ usec_t *wall = calloc(arg_runs, sizeof(usec_t));
	_cleanup_free_ usec_t *cpu = calloc(arg_runs, sizeof(usec_t));
	int r;

	if (!wall || !cpu)
		return log_oom();
	for (unsigned i = 0; i < arg_runs; i++) {
		r = run_pstorectl(dir, extra, &wall[i], &cpu[i]);
		if (r < 0)
			return r;
	}
	qsort(wall, arg_runs, sizeof(usec_t), compare_usec);
	qsort(cpu, arg_runs, sizeof(usec_t), compare_usec);
	printf("  %-28s wall min %6.1f median %6.1f ms   cpu min %6.1f median %6.1f ms  (%u "
	       "runs)\n",
	       label, wall[0] / 1e3, wall[arg_runs / 2] / 1e3, cpu[0] / 1e3,
	       cpu[arg_runs / 2] / 1e3, arg_runs);
	return 0;
}

static int bench_size(const char *base, size_t record_size)
{
	static const char *const list[] = {"list", NULL};
	static const char *const json[] = {"--json=short", "list", NULL};
	static const char *const group[] = {"list", "--group", NULL};
	static const char *const filtered[] = {"list", "--reason=oops", "-n", "10", NULL};
	_cleanup_free_ char *dir = NULL;
	int r;

	if (asprintf(&dir, "%s/store-%zu", base, record_size) < 0)
		return log_oom();
	r = build_store(dir, record_size);
	if (r < 0)
		return r;
	r = time_verb(dir, "pstorectl list", list);
	if (r >= 0)
		r = time_verb(dir, "pstorectl --json=short list", json);
	if (r >= 0)
		r = time_verb(dir, "pstorectl list --group", group);
	if (r >= 0)
		r = time_verb(dir, "pstorectl list --reason -n", filtered);
	return r;
}

static int parse_argv(int argc, char *argv[])
{
	static const struct option options[] = {{"crashes", required_argument, NULL, 'c'},
						{"runs", required_argument, NULL, 'r'},
						{"dir", required_argument, NULL, 'd'},
						{"keep", no_argument, NULL, 'k'},
						{}};
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
		switch (c) {
		case 'c':
			arg_crashes = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			arg_runs = strtoul(optarg, NULL, 10);
			break;
		case 'd':
			arg_dir = optarg;
			break;
		case 'k':
			arg_keep = true;
			break;
		default:
			return -EINVAL;
		}
	if (optind + 1 != argc || arg_crashes == 0 || arg_runs == 0)
		return log_error_errno(EINVAL, "Usage: bench-list [--crashes=N] [--runs=N] "
					       "[--dir=DIR] [--keep] PSTORECTL");
	arg_pstorectl = argv[optind];
	return 1;
}

int main(int argc, char *argv[])
{
	_cleanup_free_ char *base = NULL;
	int r;

	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	if (asprintf(&base, "%s/bench-list.XXXXXX", arg_dir ?: getenv("TMPDIR") ?: "/tmp") < 0 ||
	    !mkdtemp(base))
		return log_error_errno(errno, "Failed to create a directory for the stores: %m"),
		       EXIT_FAILURE;

	printf("pstorectl list on a store of %u crashes (in %s)\n", arg_crashes, base);
	r = bench_size(base, 1024);
	if (r >= 0)
		r = bench_size(base, 64 * 1024);

	if (arg_keep)
		printf("stores kept in %s\n", base);
	else
		(void)rm_rf_at(AT_FDCWD, base);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
