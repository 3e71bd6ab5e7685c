/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Little-endian numbers at any address, as systemd's unaligned.h reads them. */

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t unaligned_read_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t unaligned_read_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void unaligned_write_le32(void *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void unaligned_write_le64(void *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}
