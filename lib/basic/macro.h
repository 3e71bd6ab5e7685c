/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Small helpers shared by every part of the suite: cleanup attributes in
 * the style of systemd's alloc-util.h/fd-util.h, and compile-time checks.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _unused_ __attribute__((__unused__))
#define _printf_(a, b) __attribute__((__format__(printf, a, b)))
#define _noreturn_ __attribute__((__noreturn__))
#define _pure_ __attribute__((__pure__))
#define _cleanup_(f) __attribute__((__cleanup__(f)))
#define _likely_(x) (__builtin_expect(!!(x), 1))
#define _unlikely_(x) (__builtin_expect(!!(x), 0))

/* Fails to compile when handed a pointer instead of an array. */
#define ARRAY_SIZE(a)                                                                              \
	(sizeof(a) / sizeof((a)[0]) +                                                              \
	 sizeof(struct { int _x : !__builtin_types_compatible_p(typeof(a), typeof(&(a)[0])); }) *  \
		 0)

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

/*
 * Defines "const char *name##_to_string(type i)": table[i], or NULL for a value out of range.
 * The table has designated initialisers and must name every value below max: its size is
 * checked at compile time, as the kernel's fs/pstore/platform.c checks pstore_type_names[],
 * so a value added at the end of the enum without a name fails the build.
 */
#define _DEFINE_STRING_TABLE_TO_STRING(name, type, table, max, scope)                              \
	BUILD_BUG_ON(ARRAY_SIZE(table) != (max));                                                  \
	scope const char *name##_to_string(type i)                                                 \
	{                                                                                          \
		return (size_t)i < ARRAY_SIZE(table) ? table[i] : NULL;                            \
	}
#define DEFINE_STRING_TABLE_TO_STRING(name, type, table, max)                                      \
	_DEFINE_STRING_TABLE_TO_STRING(name, type, table, max, )
/* The same for a file's own table: a static function. */
#define DEFINE_PRIVATE_STRING_TABLE_TO_STRING(name, type, table, max)                              \
	_DEFINE_STRING_TABLE_TO_STRING(name, type, table, max, static)

/* Ours rather than those of <sys/param.h> (which <resolv.h> includes), if it came first. */
#undef MIN
#undef MAX
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define SWAP_TWO(x, y)                                                                             \
	do {                                                                                       \
		__typeof__(x) _swap_ = (x);                                                        \
		(x) = (y);                                                                         \
		(y) = _swap_;                                                                      \
	} while (0)

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)

/* Hand an owned pointer or fd over and leave NULL or -1 behind. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		typeof(p) _p = (p);                                                                \
		(p) = NULL;                                                                        \
		_p;                                                                                \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_fd;                                                                               \
	})

/* Defines a NULL-safe foop(type **) for _cleanup_(foop). */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                    \
	static inline void func##p(type *p)                                                        \
	{                                                                                          \
		if (*p)                                                                            \
			func(*p);                                                                  \
	}

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Returns a negative errno, never 0, even where errno was not set. */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
