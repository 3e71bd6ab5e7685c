/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <openssl/evp.h>

#include "sha256-util.h"

int sha256_hex(const void *buf, size_t len, char hex[static SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;

	if (EVP_Digest(buf, len, md, &md_len, EVP_sha256(), NULL) != 1 || md_len != 32)
		return -EIO;
	for (unsigned int i = 0; i < md_len; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[64] = 0;
	return 0;
}
