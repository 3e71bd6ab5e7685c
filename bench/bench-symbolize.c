// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-symbolize: how long pstorectl-symbolize takes on the frames of a real call trace against
 * a distribution's vmlinux, cold and warm, and its peak RSS, with eu-addr2line on the same
 * addresses in the same run as the anchor.
 *
 *   bench-symbolize [--rounds=N] [--frames=N] HELPER VMLINUX-RELEASE TRACE
 *
 * TRACE is a kernel log; its first N frames in vmlinux (default 30; "?" frames too, which are
 * return addresses as well, module frames not) make the request, release RELEASE from the
 * vmlinux's name. bench/symbolize-trace.txt is the soft lockup and panic that the boot test's
 * guest (tests/system) logged on Debian's 6.1.0-50-amd64, whose vmlinux is
 * /usr/lib/debug/boot/vmlinux-6.1.0-50-amd64 of linux-image-6.1.0-50-amd64-dbg.
 *
 * Each round runs, in turn (A B A B): pstorectl-symbolize cold, eu-addr2line cold, then after
 * all cold rounds pstorectl-symbolize warm, eu-addr2line warm; the medians are printed. Cold is
 * the first use of the file: its pages are dropped from the page cache with
 * posix_fadvise(POSIX_FADV_DONTNEED) (no root needed, nothing else dropped; what stays resident,
 * pages that another process maps, is printed) and the index cache is emptied. Warm is the run
 * after: the file in the page cache, the index on disk. The index cache is a directory of the
 * benchmark's own ($XDG_CACHE_HOME). At the end the answers are compared with eu-addr2line's,
 * frame by frame: file, line and every inlined call.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "time-util.h"

#define ROUNDS_MAX 99

static unsigned arg_rounds = 5, arg_frames = 30;
static const char *arg_helper, *arg_vmlinux, *arg_trace;

typedef struct Run {
	usec_t wall, cpu;
	long max_rss_kib;
} Run;

typedef struct Frame {
	char function[128];
	unsigned long offset, size;
} Frame;

/* "[   26.325582]  ? do_one_initcall+0x59/0x220": a frame of vmlinux, not of a module. */
static bool parse_frame_line(const char *line, Frame *ret)
{
	const char *p = strstr(line, "]  ");
	int end = 0;

	if (!p)
		return false;
	p += 3;
	if (strncmp(p, "? ", 2) == 0)
		p += 2;
	if (sscanf(p, "%127[A-Za-z0-9_.]+0x%lx/0x%lx%n", ret->function, &ret->offset, &ret->size,
		   &end) != 3)
		return false;
	return p[end] == '\0' || p[end] == '\n';
}

static int read_frames(Frame **ret, size_t *ret_n)
{
	_cleanup_fclose_ FILE *f = fopen(arg_trace, "re");
	_cleanup_free_ Frame *frames = calloc(arg_frames, sizeof(Frame));
	char line[1024];
	size_t n = 0;

	if (!f)
		return log_error_errno(errno, "Failed to open %s: %m", arg_trace);
	if (!frames)
		return log_oom();
	while (n < arg_frames && fgets(line, sizeof(line), f))
		if (parse_frame_line(line, &frames[n]))
			n++;
	if (n < arg_frames)
		return log_error_errno(EINVAL, "%s has %zu frames of vmlinux, not %u", arg_trace, n,
				       arg_frames);
	*ret = TAKE_PTR(frames);
	*ret_n = n;
	return 0;
}

/* The request of pstorectl-symbolize (cli/pstorectl-symbolize.c), into path. */
static int write_request(const char *path, const char *release, const Frame *frames, size_t n)
{
	json_auto_t *req = json_pack("{s:s, s:[]}", "release", release, "frames");
	json_t *array = json_object_get(req, "frames");

	if (!req)
		return log_oom();
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(array, json_pack("{s:s, s:I, s:I}", "function",
							   frames[i].function, "offset",
							   (json_int_t)frames[i].offset, "size",
							   (json_int_t)frames[i].size)) < 0)
			return log_oom();
	if (json_dump_file(req, path, JSON_COMPACT) < 0)
		return log_error_errno(EIO, "Failed to write %s", path);
	return 0;
}

/*
 * Drops the file from the page cache; returns the share of its pages still resident (mapped
 * by another process, or not written back), in per cent.
 */
static int drop_from_page_cache(const char *path, double *ret_resident)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ unsigned char *vec = NULL;
	size_t pages, resident = 0;
	struct stat st;
	void *map;
	int r;

	if (fd < 0 || fstat(fd, &st) < 0)
		return log_error_errno(errno, "Failed to open %s: %m", path);
	r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (r != 0)
		return log_error_errno(r, "Failed to drop %s from the page cache: %m", path);
	pages = ((size_t)st.st_size + (size_t)getpagesize() - 1) / (size_t)getpagesize();
	vec = malloc(pages);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (!vec || map == MAP_FAILED || mincore(map, (size_t)st.st_size, vec) < 0)
		return log_error_errno(errno ?: ENOMEM, "Failed to see what of %s is cached: %m",
				       path);
	munmap(map, (size_t)st.st_size);
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	*ret_resident = 100.0 * (double)resident / (double)pages;
	return 0;
}

/* Runs argv with stdin from in, stdout into out; its wall and CPU time and peak RSS. */
static int run(char *const *argv, const char *in, const char *out, Run *ret)
{
	usec_t start = now_monotonic_usec();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return log_error_errno(errno, "Failed to fork: %m");
	if (pid == 0) {
		int i = open(in, O_RDONLY | O_CLOEXEC),
		    o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (i < 0 || o < 0 || dup2(i, STDIN_FILENO) < 0 || dup2(o, STDOUT_FILENO) < 0)
			_exit(EXIT_FAILURE);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return log_error_errno(errno, "Failed to wait for %s: %m", argv[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error_errno(EIO, "%s failed (status %d)", argv[0], status);
	*ret = (Run){
		.wall = now_monotonic_usec() - start,
		.cpu = (usec_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * USEC_PER_SEC +
		       (usec_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec),
		.max_rss_kib = ru.ru_maxrss,
	};
	return 0;
}

static int compare_usec(const void *a, const void *b)
{
	usec_t x = *(const usec_t *)a, y = *(const usec_t *)b;

	return x < y ? -1 : x > y;
}

static int compare_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* The medians of n runs. */
static Run median(const Run *runs, size_t n)
{
	usec_t wall[ROUNDS_MAX], cpu[ROUNDS_MAX];
	long rss[ROUNDS_MAX];

	for (size_t i = 0; i < n; i++) {
		wall[i] = runs[i].wall;
		cpu[i] = runs[i].cpu;
		rss[i] = runs[i].max_rss_kib;
	}
	qsort(wall, n, sizeof(usec_t), compare_usec);
	qsort(cpu, n, sizeof(usec_t), compare_usec);
	qsort(rss, n, sizeof(long), compare_long);
	return (Run){.wall = wall[n / 2], .cpu = cpu[n / 2], .max_rss_kib = rss[n / 2]};
}

static void print_runs(const char *label, const Run *runs, size_t n)
{
	Run m = median(runs, n);

	printf("  %-28s %8.1f ms %8.1f ms %8.1f MiB\n", label, m.wall / 1e3, m.cpu / 1e3,
	       m.max_rss_kib / 1024.0);
}

/* eu's "FILE:LINE" of len bytes ends with want, the path pstorectl gives relative to the
 * compilation directory and the line. */
static bool ends_with_place(const char *eu, size_t len, const char *want)
{
	size_t n = strlen(want);

	return len >= n && strncmp(eu + len - n, want, n) == 0 &&
	       (len == n || eu[len - n - 1] == '/' || want[0] == '/');
}

/* eu-addr2line's "FILE:LINE:COLUMN", or "FILE:LINE" where there is no column (assembler). */
static bool same_place(const char *eu, const char *file, json_int_t line)
{
	_cleanup_free_ char *want = NULL;
	const char *colon = strrchr(eu, ':');

	if (asprintf(&want, "%s:%lld", file, (long long)line) < 0)
		return false;
	return ends_with_place(eu, strlen(eu), want) ||
	       (colon && ends_with_place(eu, (size_t)(colon - eu), want));
}

/*
 * Counts the frames where pstorectl-symbolize's answer is eu-addr2line --pretty-print -i's:
 * "F at FILE:LINE:COL" then " (inlined by) F at FILE:LINE:COL" lines, innermost first, as
 * pstorectl's inlined calls then the frame.
 */
static int count_agreeing(const char *ours_path, const char *eu_path, size_t n, size_t *ret)
{
	_cleanup_fclose_ FILE *eu = fopen(eu_path, "re");
	json_auto_t *ours = json_load_file(ours_path, 0, NULL);
	char line[4096];
	size_t agree = 0, frame = 0, level = 0;
	bool ok = true;

	if (!eu || !json_is_array(ours) || json_array_size(ours) != n)
		return log_error_errno(EINVAL, "Failed to read the answers of the last runs");
	while (fgets(line, sizeof(line), eu)) {
		bool inlined_by = strncmp(line, " (inlined by) ", 14) == 0;
		json_t *o, *inlined, *place;
		const char *at = strstr(line, " at ");

		line[strcspn(line, "\n")] = '\0';
		if (!inlined_by) {
			if (frame > 0 && ok &&
			    level == json_array_size(json_object_get(
					     json_array_get(ours, frame - 1), "inlined")) +
					     1)
				agree++;
			frame++;
			level = 0;
			ok = true;
		}
		o = json_array_get(ours, frame - 1);
		inlined = json_object_get(o, "inlined");
		place = level < json_array_size(inlined) ? json_array_get(inlined, level) : o;
		ok = ok && at &&
		     same_place(at + 4, json_string_value(json_object_get(place, "file")) ?: "",
				json_integer_value(json_object_get(place, "line")));
		level++;
	}
	if (frame > 0 && ok &&
	    level == json_array_size(json_object_get(json_array_get(ours, frame - 1), "inlined")) +
			     1)
		agree++;
	*ret = agree;
	return 0;
}

/* Removes the files of dir, and dir itself when remove_dir; it may not exist. */
static void remove_files(const char *dir, bool remove_dir)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d)
		return;
	TAKE_FD(fd);
	while ((de = readdir(d)))
		if (de->d_type == DT_REG)
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	if (remove_dir)
		(void)rmdir(dir);
}

static int parse_argv(int argc, char *argv[])
{
	static const struct option options[] = {
		{"rounds", required_argument, NULL, 'r'},
		{"frames", required_argument, NULL, 'f'},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
		switch (c) {
		case 'r':
			arg_rounds = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'f':
			arg_frames = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			return -EINVAL;
		}
	if (argc - optind != 3 || arg_rounds == 0 || arg_rounds > ROUNDS_MAX || arg_frames == 0) {
		fprintf(stderr,
			"usage: %s [--rounds=1..99] [--frames=N] HELPER VMLINUX-RELEASE TRACE\n",
			program_invocation_short_name);
		return -EINVAL;
	}
	arg_helper = argv[optind];
	arg_vmlinux = argv[optind + 1];
	arg_trace = argv[optind + 2];
	return 0;
}

/* The files of the run, all in one temporary directory. */
typedef struct Paths {
	char *tmp, *debug_dir_opt, *cache, *pstored_cache, *index_dir, *request, *answer,
		*eu_answer, *empty;
} Paths;

static int bench(const Paths *p, const char *release, off_t vmlinux_size)
{
	_cleanup_free_ Frame *frames = NULL;
	_cleanup_free_ Run *cold_ours = NULL, *cold_eu = NULL, *warm_ours = NULL, *warm_eu = NULL;
	_cleanup_free_ char **eu_argv = NULL;
	char *ours_argv[] = {(char *)arg_helper, p->debug_dir_opt, NULL};
	double resident, resident_max = 0;
	size_t n, agree;
	Run m;
	int r;

	r = read_frames(&frames, &n);
	if (r < 0)
		return r;
	r = write_request(p->request, release, frames, n);
	if (r < 0)
		return r;
	r = write_file_at(AT_FDCWD, p->empty, O_TRUNC, 0600, "", 0);
	if (r < 0)
		return log_error_errno(r, "Failed to write %s: %m", p->empty);

	/* eu-addr2line -e VMLINUX --pretty-print -f -i FUNC+OFF...: the same addresses, each a
	 * return address less one (x86 prints the faulting RIP apart, in a module here) */
	eu_argv = calloc(n + 7, sizeof(char *));
	if (!eu_argv)
		return log_oom();
	eu_argv[0] = (char *)"eu-addr2line";
	eu_argv[1] = (char *)"-e";
	eu_argv[2] = (char *)arg_vmlinux;
	eu_argv[3] = (char *)"--pretty-print";
	eu_argv[4] = (char *)"-f";
	eu_argv[5] = (char *)"-i";
	for (size_t i = 0; i < n; i++)
		if (asprintf(&eu_argv[6 + i], "%s+0x%lx", frames[i].function,
			     frames[i].offset - (frames[i].offset > 0)) < 0)
			return log_oom();

	cold_ours = calloc(arg_rounds, sizeof(Run));
	cold_eu = calloc(arg_rounds, sizeof(Run));
	warm_ours = calloc(arg_rounds, sizeof(Run));
	warm_eu = calloc(arg_rounds, sizeof(Run));
	if (!cold_ours || !cold_eu || !warm_ours || !warm_eu)
		return log_oom();

	printf("symbolize %zu frames of %s against %s (%.0f MiB), %u rounds of A B A B, "
	       "medians:\n",
	       n, arg_trace, arg_vmlinux, vmlinux_size / 1048576.0, arg_rounds);
	for (unsigned i = 0; i < arg_rounds && r >= 0; i++) {
		remove_files(p->index_dir, false);
		r = drop_from_page_cache(arg_vmlinux, &resident);
		if (r >= 0)
			r = run(ours_argv, p->request, p->answer, &cold_ours[i]);
		resident_max = MAX(resident_max, resident);
		if (r >= 0)
			r = drop_from_page_cache(arg_vmlinux, &resident);
		if (r >= 0)
			r = run(eu_argv, p->empty, p->eu_answer, &cold_eu[i]);
		resident_max = MAX(resident_max, resident);
	}
	for (unsigned i = 0; i < arg_rounds && r >= 0; i++) {
		r = run(ours_argv, p->request, p->answer, &warm_ours[i]);
		if (r >= 0)
			r = run(eu_argv, p->empty, p->eu_answer, &warm_eu[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(eu_argv[6 + i]);
	if (r < 0)
		return r;

	printf("  %-28s %11s %11s %12s\n", "", "wall", "cpu", "peak RSS");
	print_runs("cold pstorectl-symbolize", cold_ours, arg_rounds);
	print_runs("cold eu-addr2line", cold_eu, arg_rounds);
	print_runs("warm pstorectl-symbolize", warm_ours, arg_rounds);
	print_runs("warm eu-addr2line", warm_eu, arg_rounds);
	printf("  cold: the file's pages dropped with posix_fadvise(); at most %.1f%% of them "
	       "stayed resident\n",
	       resident_max);
	r = count_agreeing(p->answer, p->eu_answer, n, &agree);
	if (r < 0)
		return r;
	printf("  %zu of %zu frames as eu-addr2line gives them (file:line and inlined calls)\n",
	       agree, n);
	m = median(cold_ours, arg_rounds);
	printf("  goals: cold under 1 s: %s, under 150 MiB: %s; ",
	       m.wall < USEC_PER_SEC ? "met" : "MISSED",
	       m.max_rss_kib < 150 * 1024 ? "met" : "MISSED");
	m = median(warm_ours, arg_rounds);
	printf("warm under 50 ms: %s\n", m.wall < 50 * USEC_PER_MSEC ? "met" : "MISSED");
	return 0;
}

int main(int argc, char *argv[])
{
	char tmp[] = "/tmp/bench-symbolize.XXXXXX";
	_cleanup_free_ char *dir = NULL, *release = NULL;
	Paths p = {.tmp = tmp};
	const char *base;
	struct stat st;
	int r = -ENOMEM;

	if (parse_argv(argc, argv) < 0)
		return EXIT_FAILURE;
	base = strrchr(arg_vmlinux, '/') ? strrchr(arg_vmlinux, '/') + 1 : arg_vmlinux;
	if (strncmp(base, "vmlinux-", 8) != 0 || stat(arg_vmlinux, &st) < 0)
		return log_error_errno(EINVAL, "%s: give the vmlinux-RELEASE of a -dbg package",
				       arg_vmlinux),
		       EXIT_FAILURE;
	release = strdup(base + 8);
	dir = strndup(arg_vmlinux, (size_t)(base - arg_vmlinux));
	if (!release || !dir)
		return log_oom(), EXIT_FAILURE;
	if (!mkdtemp(tmp))
		return log_error_errno(errno, "Failed to make a directory in /tmp: %m"),
		       EXIT_FAILURE;
	if (asprintf(&p.debug_dir_opt, "--debug-dir=%s", *dir ? dir : ".") >= 0 &&
	    asprintf(&p.cache, "%s/cache", tmp) >= 0 &&
	    asprintf(&p.pstored_cache, "%s/pstored", p.cache) >= 0 &&
	    asprintf(&p.index_dir, "%s/symbolize", p.pstored_cache) >= 0 &&
	    asprintf(&p.request, "%s/request", tmp) >= 0 &&
	    asprintf(&p.answer, "%s/answer", tmp) >= 0 &&
	    asprintf(&p.eu_answer, "%s/eu", tmp) >= 0 && asprintf(&p.empty, "%s/empty", tmp) >= 0) {
		/* the helper's index cache: the benchmark's own */
		setenv("XDG_CACHE_HOME", p.cache, 1);
		unsetenv("DEBUGINFOD_URLS");
		r = bench(&p, release, st.st_size);
	} else
		log_oom();
	remove_files(p.index_dir, true);
	(void)rmdir(p.pstored_cache);
	(void)rmdir(p.cache);
	remove_files(tmp, true);
	free(p.debug_dir_opt);
	free(p.cache);
	free(p.pstored_cache);
	free(p.index_dir);
	free(p.request);
	free(p.answer);
	free(p.eu_answer);
	free(p.empty);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
