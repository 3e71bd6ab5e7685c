/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <sys/mman.h>

/*
 * size (> 0) bytes of zeroed anonymous memory with all its pages mapped at
 * once (MAP_POPULATE), for a large buffer that is filled right away: a page
 * fault for every 4 KiB costs more than that, some 10 µs each in a virtual
 * machine, where a listing of 10,000 crashes took a thousand of them. NULL on
 * failure, errno set. Free it with munmap(p, size).
 */
static inline void *mmap_populated(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}
