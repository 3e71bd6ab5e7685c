// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "sha256-util.h"

/*
 * The SHA-256 examples of NIST (csrc.nist.gov, "Cryptographic Standards and
 * Guidelines: Examples with Intermediate Values", and the one-block,
 * two-block and long-message vectors of the FIPS 180 validation system).
 */
static const struct {
	const char *msg;
	const char *digest;
} vectors[] = {
	{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	{"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
	 "mnopqrsmnopqrstnopqrstu",
	 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
};

static void nist_vectors(void)
{
	char hex[SHA256_HEX_SIZE];

	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		cr_assert_eq(sha256_hex(vectors[i].msg, strlen(vectors[i].msg), hex), 0);
		cr_assert_str_eq(hex, vectors[i].digest, "vector %zu", i);
	}
}

/* One million 'a', fed in pieces that do not line up with the 64-byte blocks. */
static void million_a(void)
{
	static const uint8_t expected[SHA256_DIGEST_SIZE] = {
		0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7,
		0xe2, 0x84, 0xd7, 0x3e, 0x67, 0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97,
		0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0,
	};
	uint8_t md[SHA256_DIGEST_SIZE];
	char a[1000];
	Sha256 s;

	memset(a, 'a', sizeof(a));
	sha256_init(&s);
	for (size_t done = 0, n = 1; done < 1000000; done += n, n = n % 997 + 1)
		sha256_update(&s, a, MIN(n, 1000000 - done));
	sha256_finish(&s, md);
	cr_assert_arr_eq(md, expected, sizeof(md));
}

/*
 * Where the padding takes one block or two: messages of 55, 56, 63, 64, 65,
 * 119 and 120 bytes 0, 1, 2, ...; digests from Python's hashlib.
 */
static void padding_boundaries(void)
{
	static const struct {
		size_t len;
		const char *digest;
	} cases[] = {
		{55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"},
		{56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"},
		{63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"},
		{64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"},
		{65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"},
		{119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"},
		{120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"},
	};
	uint8_t msg[120];
	char hex[SHA256_HEX_SIZE];

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		sha256_hex(msg, cases[i].len, hex);
		cr_assert_str_eq(hex, cases[i].digest, "%zu bytes", cases[i].len);
	}
}

/* Every check above, in portable C and with the CPU's SHA extensions. */
static void run_all(bool cpu_extensions)
{
	if (sha256_use_cpu_extensions(cpu_extensions) != cpu_extensions)
		cr_skip_test("this CPU has no SHA extensions");
	nist_vectors();
	million_a();
	padding_boundaries();
}

Test(sha256_util, portable)
{
	run_all(false);
}

Test(sha256_util, cpu_extensions)
{
	run_all(true);
}

/* Both block functions agree on every length up to four blocks and a long message. */
Test(sha256_util, implementations_agree)
{
	char portable[SHA256_HEX_SIZE], cpu[SHA256_HEX_SIZE];
	uint8_t msg[4096];

	srand(1);
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)rand();
	if (!sha256_use_cpu_extensions(true))
		cr_skip_test("this CPU has no SHA extensions");
	for (size_t len = 0; len <= sizeof(msg); len = len < 256 ? len + 1 : len * 2) {
		(void)sha256_use_cpu_extensions(false);
		sha256_hex(msg, len, portable);
		(void)sha256_use_cpu_extensions(true);
		sha256_hex(msg, len, cpu);
		cr_assert_str_eq(cpu, portable, "%zu bytes", len);
	}
}
