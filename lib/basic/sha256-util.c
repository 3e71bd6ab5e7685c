/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * With libgcrypt, which libsystemd links already, not libcrypto: pstored
 * hashes each record at boot, and OpenSSL 3 spent 8.4 million of pstored
 * archive's 12.9 million instructions for one crash in loading libcrypto and
 * setting up its providers for the first digest (callgrind); libgcrypt
 * takes 0.2 million.
 */

#include <errno.h>
#include <gcrypt.h>
#include <pthread.h>

#include "sha256-util.h"

/* libgcrypt wants its version checked once, before any other call. */
static void gcrypt_init(void)
{
	(void)gcry_check_version(NULL);
	(void)gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	(void)gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
}

int sha256_hex(const void *buf, size_t len, char hex[static SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	gcry_buffer_t iov = {.size = len, .len = len, .data = (void *)buf};
	unsigned char md[32];

	(void)pthread_once(&once, gcrypt_init);
	if (gcry_md_hash_buffers(GCRY_MD_SHA256, 0, md, &iov, 1) != 0)
		return -EIO;
	for (size_t i = 0; i < sizeof(md); i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[64] = 0;
	return 0;
}
