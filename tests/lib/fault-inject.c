// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fault-inject.so: an LD_PRELOAD shim that kills a program, or makes one
 * call fail, at a chosen point among the calls that change what is on disk
 * or in the journal. tests/pstore/test-faults.sh runs pstored under it.
 *
 * Counted calls, by family:
 *
 *	open     open(), open64(), openat(), openat64() that may write
 *	         (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC or O_TMPFILE)
 *	write    write(), pwrite(), pwrite64(), writev() to a regular file
 *	fsync    fsync()
 *	fdatasync, syncfs
 *	rename   rename(), renameat(), renameat2()
 *	unlink   unlink(), unlinkat()
 *	mkdir    mkdir(), mkdirat()
 *	journal  sd_journal_sendv(), sd_journal_sendv_with_location()
 *
 * Every libc entry point of a family is wrapped, the ones pstored does not
 * call today too, so that a new call site is counted whichever it uses.
 * Read-only opens and writes to pipes, sockets and terminals are not
 * counted: a kill before one of them leaves the same files and journal as a
 * kill before the next counted call. Calls made inside a journal send (its
 * memfd, for a large entry) are not counted either. Only calls that go
 * through the dynamic linker are seen: those of the program and of the
 * libraries it loads, not those that libc makes internally (stdio).
 *
 * Environment:
 *
 *	FAULT_INJECT_KILL=N        SIGKILL the process instead of making the
 *	                           Nth counted call (1 is the first)
 *	FAULT_INJECT_FAIL=FAMILY:N:ERRNO
 *	                           the Nth call of FAMILY fails with ERRNO
 *	                           (a name such as EIO or ENOSPC, or a number);
 *	                           "N+" fails the Nth and every later one
 *	FAULT_INJECT_TRACE=FILE    appends one line per counted call: its
 *	                           number, family, function, path and what was
 *	                           injected, so the number of lines is the
 *	                           number of calls seen
 *	FAULT_INJECT_COUNT=FILE    at exit, writes the number of counted calls
 *
 * A malformed variable aborts the program with a message, so that a test
 * cannot pass by injecting nothing. Calls of several threads are counted
 * one at a time, in the order they reach the shim: pstored's second thread
 * (the store's write-back ahead) only calls syncfs(), each time after the
 * main thread asked it to, so the numbers are the same from run to run.
 */

#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef enum Family {
	FAMILY_OPEN,
	FAMILY_WRITE,
	FAMILY_FSYNC,
	FAMILY_FDATASYNC,
	FAMILY_SYNCFS,
	FAMILY_RENAME,
	FAMILY_UNLINK,
	FAMILY_MKDIR,
	FAMILY_JOURNAL,
	_FAMILY_MAX,
} Family;

static const char *const family_names[_FAMILY_MAX] = {
	[FAMILY_OPEN] = "open",	    [FAMILY_WRITE] = "write",	[FAMILY_FSYNC] = "fsync",
	[FAMILY_FDATASYNC] = "fdatasync", [FAMILY_SYNCFS] = "syncfs",	[FAMILY_RENAME] = "rename",
	[FAMILY_UNLINK] = "unlink", [FAMILY_MKDIR] = "mkdir",	[FAMILY_JOURNAL] = "journal",
};

static struct {
	bool initialised;
	unsigned long kill_at;
	int fail_family; /* -1: none */
	unsigned long fail_at;
	bool fail_later; /* "N+" */
	int fail_errno;
	int trace_fd;
	const char *count_file;
	unsigned long calls;
	unsigned long family_calls[_FAMILY_MAX];
} fi = {.fail_family = -1, .trace_fd = -1};
static pthread_mutex_t fi_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned in_journal; /* this thread is in a journal send */

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("fault-inject: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static unsigned long parse_count(const char *s, const char *var, char **end)
{
	unsigned long n;

	errno = 0;
	n = strtoul(s, end, 10);
	if (errno != 0 || *end == s || n == 0)
		die("%s: '%s' is not a call number (1, 2, ...)", var, s);
	return n;
}

static void parse_fail(const char *v)
{
	const char *colon = strchr(v, ':');
	char *end;
	size_t len = colon ? (size_t)(colon - v) : 0;

	for (int f = 0; colon && f < _FAMILY_MAX; f++)
		if (strlen(family_names[f]) == len && strncmp(v, family_names[f], len) == 0)
			fi.fail_family = f;
	if (fi.fail_family < 0)
		die("FAULT_INJECT_FAIL=%s: expected FAMILY:N:ERRNO with FAMILY one of open, write, "
		    "fsync, fdatasync, syncfs, rename, unlink, mkdir, journal",
		    v);
	fi.fail_at = parse_count(colon + 1, "FAULT_INJECT_FAIL", &end);
	if (*end == '+') {
		fi.fail_later = true;
		end++;
	}
	if (*end != ':')
		die("FAULT_INJECT_FAIL=%s: expected FAMILY:N:ERRNO", v);
	end++;
	for (int e = 1; e < 4096 && fi.fail_errno == 0; e++) {
		const char *name = strerrorname_np(e);

		if (name && strcmp(end, name) == 0)
			fi.fail_errno = e;
	}
	if (fi.fail_errno == 0) {
		char *e;
		long n = strtol(end, &e, 10);

		if (*end == '\0' || *e != '\0' || n <= 0 || n > 4095)
			die("FAULT_INJECT_FAIL=%s: unknown errno '%s'", v, end);
		fi.fail_errno = (int)n;
	}
}

static void fault_inject_init(void)
{
	const char *v;
	char *end;

	if (fi.initialised)
		return;
	fi.initialised = true;
	v = getenv("FAULT_INJECT_KILL");
	if (v && *v) {
		fi.kill_at = parse_count(v, "FAULT_INJECT_KILL", &end);
		if (*end != '\0')
			die("FAULT_INJECT_KILL=%s: not a number", v);
	}
	v = getenv("FAULT_INJECT_FAIL");
	if (v && *v)
		parse_fail(v);
	v = getenv("FAULT_INJECT_TRACE");
	if (v && *v) {
		fi.trace_fd = (int)syscall(SYS_openat, AT_FDCWD, v,
					   O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fi.trace_fd < 0)
			die("FAULT_INJECT_TRACE=%s: %s", v, strerror(errno));
	}
	v = getenv("FAULT_INJECT_COUNT");
	fi.count_file = v && *v ? v : NULL;
}

__attribute__((constructor)) static void fault_inject_constructor(void)
{
	fault_inject_init();
}

__attribute__((destructor)) static void fault_inject_destructor(void)
{
	char buf[32];
	int fd, n;

	if (!fi.count_file)
		return;
	fd = (int)syscall(SYS_openat, AT_FDCWD, fi.count_file,
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%lu\n", fi.calls);
	(void)!syscall(SYS_write, fd, buf, (size_t)n);
	(void)syscall(SYS_close, fd);
}

/* The path of a file descriptor, or of name relative to one, for the trace. */
static void describe(int dir_fd, const char *name, char *buf, size_t size)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	if (dir_fd == AT_FDCWD || (name && name[0] == '/')) {
		snprintf(buf, size, "%s", name ?: "-");
		return;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dir_fd);
	n = readlink(link, dir, sizeof(dir) - 1);
	if (n < 0)
		snprintf(dir, sizeof(dir), "fd %d", dir_fd);
	else
		dir[n] = '\0';
	if (snprintf(buf, size, "%s%s%s", dir, name ? "/" : "", name ?: "") >= (int)size)
		buf[size - 1] = '\0'; /* a trace line may be cut, the call is counted anyway */
}

/*
 * Counts a call; returns the errno it must fail with, or 0 to make it. At
 * the kill point the process dies here, before the call.
 */
static int fault_point(Family family, const char *function, int dir_fd, const char *name,
		       const char *name2)
{
	bool kill_now, fail;
	unsigned long n;
	int saved = errno;

	fault_inject_init();
	if (in_journal > 0)
		return 0;
	pthread_mutex_lock(&fi_lock);
	n = ++fi.calls;
	fi.family_calls[family]++;
	kill_now = fi.kill_at == n;
	fail = (int)family == fi.fail_family &&
	       (fi.family_calls[family] == fi.fail_at ||
		(fi.fail_later && fi.family_calls[family] > fi.fail_at));

	if (fi.trace_fd >= 0) {
		char path[PATH_MAX], line[2 * PATH_MAX + 128];
		int len;

		describe(dir_fd, name, path, sizeof(path));
		len = snprintf(line, sizeof(line), "%lu %s %s %s%s%s%s\n", n, family_names[family],
			       function, path, name2 ? " -> " : "", name2 ?: "",
			       kill_now ? " SIGKILL"
			       : fail	? " FAIL"
					: "");
		if (len > 0)
			(void)!syscall(SYS_write, fi.trace_fd, line,
				       (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	}
	if (kill_now) {
		(void)syscall(SYS_kill, getpid(), SIGKILL);
		abort(); /* not reached */
	}
	pthread_mutex_unlock(&fi_lock);
	errno = saved;
	return fail ? fi.fail_errno : 0;
}

#define REAL(name)                                                                                 \
	static typeof(name) *real_##name;                                                          \
	if (!real_##name) {                                                                        \
		real_##name = (typeof(name) *)dlsym(RTLD_NEXT, #name);                             \
		if (!real_##name)                                                                  \
			die("%s not found", #name);                                                \
	}

#define FAIL_OR(error, call)                                                                       \
	do {                                                                                       \
		int e_ = (error);                                                                  \
		if (e_ != 0) {                                                                     \
			errno = e_;                                                                \
			return -1;                                                                 \
		}                                                                                  \
		return call;                                                                       \
	} while (0)

static bool open_may_write(int flags)
{
	return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) || (flags & O_TMPFILE) == O_TMPFILE;
}

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

/* open() and openat() alike: PARAMS is the function's parameter list, ARGS the real call's. */
#define DEFINE_OPEN(function, params, dir_fd, args)                                               \
	int function params                                                                        \
	{                                                                                          \
		va_list ap;                                                                        \
		mode_t mode;                                                                       \
		int e = 0;                                                                         \
		REAL(function);                                                                    \
		va_start(ap, flags);                                                               \
		mode = open_mode(flags, ap);                                                       \
		va_end(ap);                                                                        \
		if (open_may_write(flags))                                                         \
			e = fault_point(FAMILY_OPEN, #function, dir_fd, path, NULL);               \
		FAIL_OR(e, real_##function args);                                                  \
	}

DEFINE_OPEN(open, (const char *path, int flags, ...), AT_FDCWD, (path, flags, mode))
DEFINE_OPEN(open64, (const char *path, int flags, ...), AT_FDCWD, (path, flags, mode))
DEFINE_OPEN(openat, (int dir_fd, const char *path, int flags, ...), dir_fd,
	    (dir_fd, path, flags, mode))
DEFINE_OPEN(openat64, (int dir_fd, const char *path, int flags, ...), dir_fd,
	    (dir_fd, path, flags, mode))

static bool is_regular_file(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

static int write_point(const char *function, int fd)
{
	return is_regular_file(fd) ? fault_point(FAMILY_WRITE, function, fd, NULL, NULL) : 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	REAL(write);
	FAIL_OR(write_point("write", fd), real_write(fd, buf, len));
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t offset)
{
	REAL(pwrite);
	FAIL_OR(write_point("pwrite", fd), real_pwrite(fd, buf, len, offset));
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t offset)
{
	REAL(pwrite64);
	FAIL_OR(write_point("pwrite64", fd), real_pwrite64(fd, buf, len, offset));
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	REAL(writev);
	FAIL_OR(write_point("writev", fd), real_writev(fd, iov, n));
}

int fsync(int fd)
{
	REAL(fsync);
	FAIL_OR(fault_point(FAMILY_FSYNC, "fsync", fd, NULL, NULL), real_fsync(fd));
}

int fdatasync(int fd)
{
	REAL(fdatasync);
	FAIL_OR(fault_point(FAMILY_FDATASYNC, "fdatasync", fd, NULL, NULL), real_fdatasync(fd));
}

int syncfs(int fd)
{
	REAL(syncfs);
	FAIL_OR(fault_point(FAMILY_SYNCFS, "syncfs", fd, NULL, NULL), real_syncfs(fd));
}

int rename(const char *from, const char *to)
{
	REAL(rename);
	FAIL_OR(fault_point(FAMILY_RENAME, "rename", AT_FDCWD, from, to), real_rename(from, to));
}

int renameat(int from_fd, const char *from, int to_fd, const char *to)
{
	REAL(renameat);
	FAIL_OR(fault_point(FAMILY_RENAME, "renameat", from_fd, from, to),
		real_renameat(from_fd, from, to_fd, to));
}

int renameat2(int from_fd, const char *from, int to_fd, const char *to, unsigned flags)
{
	REAL(renameat2);
	FAIL_OR(fault_point(FAMILY_RENAME, "renameat2", from_fd, from, to),
		real_renameat2(from_fd, from, to_fd, to, flags));
}

int unlink(const char *path)
{
	REAL(unlink);
	FAIL_OR(fault_point(FAMILY_UNLINK, "unlink", AT_FDCWD, path, NULL), real_unlink(path));
}

int unlinkat(int dir_fd, const char *path, int flags)
{
	REAL(unlinkat);
	FAIL_OR(fault_point(FAMILY_UNLINK, "unlinkat", dir_fd, path, NULL),
		real_unlinkat(dir_fd, path, flags));
}

int mkdir(const char *path, mode_t mode)
{
	REAL(mkdir);
	FAIL_OR(fault_point(FAMILY_MKDIR, "mkdir", AT_FDCWD, path, NULL), real_mkdir(path, mode));
}

int mkdirat(int dir_fd, const char *path, mode_t mode)
{
	REAL(mkdirat);
	FAIL_OR(fault_point(FAMILY_MKDIR, "mkdirat", dir_fd, path, NULL),
		real_mkdirat(dir_fd, path, mode));
}

/*
 * libsystemd's, declared here rather than taken from <systemd/sd-journal.h>,
 * which turns sd_journal_sendv() into a macro; they return -errno.
 */
int sd_journal_sendv(const struct iovec *iov, int n);
int sd_journal_sendv_with_location(const char *file, const char *line, const char *func,
				   const struct iovec *iov, int n);

int sd_journal_sendv(const struct iovec *iov, int n)
{
	int e, r;

	REAL(sd_journal_sendv);
	e = fault_point(FAMILY_JOURNAL, "sd_journal_sendv", AT_FDCWD, NULL, NULL);
	if (e != 0)
		return -e;
	in_journal++;
	r = real_sd_journal_sendv(iov, n);
	in_journal--;
	return r;
}

int sd_journal_sendv_with_location(const char *file, const char *line, const char *func,
				   const struct iovec *iov, int n)
{
	int e, r;

	REAL(sd_journal_sendv_with_location);
	e = fault_point(FAMILY_JOURNAL, "sd_journal_sendv_with_location", AT_FDCWD, NULL, NULL);
	if (e != 0)
		return -e;
	in_journal++;
	r = real_sd_journal_sendv_with_location(file, line, func, iov, n);
	in_journal--;
	return r;
}
