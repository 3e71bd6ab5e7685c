/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

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

/* Lower-case hex SHA-256 of buf, NUL-terminated, into hex[SHA256_HEX_SIZE]. Returns 0. */
int sha256_hex(const void *buf, size_t len, char hex[static SHA256_HEX_SIZE]);
