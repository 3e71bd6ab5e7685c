/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "macro.h"
#include "sha256-util.h"

/*
 * FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes.
 */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* FIPS 180-4 6.2.2: one 512-bit block into the hash value. */
static void sha256_block(uint32_t h[static 8], const uint8_t block[static SHA256_BLOCK_SIZE])
{
	uint32_t w[64], v[8];

	for (unsigned int t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (unsigned int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = s1 + w[t - 7] + s0 + w[t - 16];
	}

	memcpy(v, h, sizeof(v));
	for (unsigned int t = 0; t < 64; t++) {
		/* v[0..7] are a..h of the standard. */
		uint32_t S1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + S1 + ch + K[t] + w[t];
		uint32_t S0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + S0 + maj;
	}
	for (unsigned int i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_init(Sha256 *s)
{
	/*
	 * FIPS 180-4 5.3.3: the first 32 bits of the fractional parts of the
	 * square roots of the first 8 primes.
	 */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->n_bytes = 0;
}

void sha256_update(Sha256 *s, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t used = s->n_bytes % SHA256_BLOCK_SIZE;

	s->n_bytes += len;
	if (used > 0) {
		size_t n = MIN(len, SHA256_BLOCK_SIZE - used);

		memcpy(s->block + used, p, n);
		p += n;
		len -= n;
		if (used + n < SHA256_BLOCK_SIZE)
			return;
		sha256_block(s->h, s->block);
	}
	for (; len >= SHA256_BLOCK_SIZE; p += SHA256_BLOCK_SIZE, len -= SHA256_BLOCK_SIZE)
		sha256_block(s->h, p);
	if (len > 0)
		memcpy(s->block, p, len);
}

/*
 * FIPS 180-4 5.1.1: the message, a 1 bit, zeros up to 448 bits modulo 512,
 * then the message length in bits as 64-bit big-endian.
 */
void sha256_finish(Sha256 *s, uint8_t ret_digest[static SHA256_DIGEST_SIZE])
{
	uint64_t n_bits = s->n_bytes * 8;
	size_t used = s->n_bytes % SHA256_BLOCK_SIZE;

	s->block[used++] = 0x80;
	if (used > SHA256_BLOCK_SIZE - 8) {
		memset(s->block + used, 0, SHA256_BLOCK_SIZE - used);
		sha256_block(s->h, s->block);
		used = 0;
	}
	memset(s->block + used, 0, SHA256_BLOCK_SIZE - 8 - used);
	store_be32(s->block + 56, n_bits >> 32);
	store_be32(s->block + 60, (uint32_t)n_bits);
	sha256_block(s->h, s->block);

	for (unsigned int i = 0; i < 8; i++)
		store_be32(ret_digest + 4 * i, s->h[i]);
}

int sha256_hex(const void *buf, size_t len, char hex[static SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t md[SHA256_DIGEST_SIZE];
	Sha256 s;

	sha256_init(&s);
	sha256_update(&s, buf, len);
	sha256_finish(&s, md);
	for (unsigned int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[2 * SHA256_DIGEST_SIZE] = 0;
	return 0;
}
