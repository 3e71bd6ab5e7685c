/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#define SHA256_HEX_SIZE 65

/* Lower-case hex SHA-256 of buf, NUL-terminated, into hex[SHA256_HEX_SIZE]. */
int sha256_hex(const void *buf, size_t len, char hex[static SHA256_HEX_SIZE]);
