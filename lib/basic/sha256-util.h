/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * SHA-256 as FIPS 180-4 specifies it (sections 5.1.1, 5.3.3 and 6.2), on its
 * own so that programs which hash, pstorectl among them, need not load
 * libcrypto.
 */

#define SHA256_DIGEST_SIZE 32
#define SHA256_BLOCK_SIZE 64
#define SHA256_HEX_SIZE (2 * SHA256_DIGEST_SIZE + 1)

typedef struct Sha256 {
	uint32_t h[8];
	uint64_t n_bytes; /* hashed so far: the message length the padding ends with */
	uint8_t block[SHA256_BLOCK_SIZE]; /* the first n_bytes % 64 bytes of the next block */
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *buf, size_t len);
void sha256_finish(Sha256 *s, uint8_t ret_digest[static SHA256_DIGEST_SIZE]);

/*
 * Whether blocks are hashed with the CPU's SHA extensions (x86-64 CPUs that
 * have them) or in portable C; the first hash chooses the extensions where
 * there are any. Both give the same digests: the tests run every vector
 * through each. Returns whether the extensions are used now.
 */
bool sha256_use_cpu_extensions(bool use);

/* sha256_finish(), the digest as lower-case hex, NUL-terminated. */
void sha256_finish_hex(Sha256 *s, char hex[static SHA256_HEX_SIZE]);

/* Lower-case hex SHA-256 of buf, NUL-terminated, into hex[SHA256_HEX_SIZE]. Returns 0. */
int sha256_hex(const void *buf, size_t len, char hex[static SHA256_HEX_SIZE]);
