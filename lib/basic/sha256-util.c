/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdbool.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

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

/* FIPS 180-4 6.2.2: one 512-bit block into the hash value, in portable C. */
static void sha256_block_c(uint32_t h[static 8], const uint8_t block[static SHA256_BLOCK_SIZE])
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


#if defined(__x86_64__)
/*
 * The same with the SHA extensions of x86 CPUs (Intel since Goldmont and Ice
 * Lake, AMD since Zen): several times faster, which counts when pstored
 * hashes every record at boot. The state is kept as ABEF and CDGH, the order
 * sha256rnds2 works on; each step does 4 of the 64 rounds, and from the
 * fifth on computes the next 4 words of the message schedule from the last 16
 * (sha256msg1 adds sigma0, the word 7 back is added by hand, sha256msg2 adds
 * sigma1).
 */
__attribute__((target("sha,sse4.1"))) static void
sha256_block_x86(uint32_t h[static 8], const uint8_t block[static SHA256_BLOCK_SIZE])
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i w[4], abef, cdgh, abef_in, cdgh_in, tmp;

	tmp = _mm_shuffle_epi32(_mm_loadu_si128((const void *)&h[0]), 0xb1);
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const void *)&h[4]), 0x1b);
	abef = _mm_alignr_epi8(tmp, cdgh, 8);
	cdgh = _mm_blend_epi16(cdgh, tmp, 0xf0);
	abef_in = abef;
	cdgh_in = cdgh;

	for (unsigned int i = 0; i < 16; i++) {
		__m128i *x = &w[i % 4], m;

		if (i < 4)
			*x = _mm_shuffle_epi8(_mm_loadu_si128((const void *)(block + 16 * i)), bswap);
		else
			*x = _mm_sha256msg2_epu32(
				_mm_add_epi32(_mm_sha256msg1_epu32(*x, w[(i + 1) % 4]),
					      _mm_alignr_epi8(w[(i + 3) % 4], w[(i + 2) % 4], 4)),
				w[(i + 3) % 4]);
		m = _mm_add_epi32(*x, _mm_loadu_si128((const void *)&K[4 * i]));
		cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
		abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0e));
	}
	abef = _mm_add_epi32(abef, abef_in);
	cdgh = _mm_add_epi32(cdgh, cdgh_in);

	tmp = _mm_shuffle_epi32(abef, 0x1b);
	cdgh = _mm_shuffle_epi32(cdgh, 0xb1);
	_mm_storeu_si128((void *)&h[0], _mm_blend_epi16(tmp, cdgh, 0xf0));
	_mm_storeu_si128((void *)&h[4], _mm_alignr_epi8(cdgh, tmp, 8));
}

static bool cpu_has_sha_extensions(void)
{
	unsigned int a, b, c, d;

	/* CPUID leaf 1: SSSE3 (ECX bit 9), SSE4.1 (ECX bit 19); leaf 7: SHA (EBX bit 29). */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
		return false;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}
#endif

typedef void (*Sha256BlockFn)(uint32_t h[static 8], const uint8_t block[static SHA256_BLOCK_SIZE]);
static Sha256BlockFn sha256_block_fn;

bool sha256_use_cpu_extensions(bool use)
{
#if defined(__x86_64__)
	if (use && cpu_has_sha_extensions()) {
		sha256_block_fn = sha256_block_x86;
		return true;
	}
#endif
	sha256_block_fn = sha256_block_c;
	return false;
}

static void sha256_block(uint32_t h[static 8], const uint8_t block[static SHA256_BLOCK_SIZE])
{
	if (!sha256_block_fn)
		(void)sha256_use_cpu_extensions(true);
	sha256_block_fn(h, block);
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

void sha256_finish_hex(Sha256 *s, char hex[static SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t md[SHA256_DIGEST_SIZE];

	sha256_finish(s, md);
	for (unsigned int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[2 * SHA256_DIGEST_SIZE] = 0;
}

int sha256_hex(const void *buf, size_t len, char hex[static SHA256_HEX_SIZE])
{
	Sha256 s;

	sha256_init(&s);
	sha256_update(&s, buf, len);
	sha256_finish_hex(&s, hex);
	return 0;
}
