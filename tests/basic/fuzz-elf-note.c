// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for elf_notes_build_id(): any bytes. A build id found is lower-case hex of
 * an even length up to 2 * ELF_BUILD_ID_MAX. Built with ./configure --enable-fuzzing CC=clang;
 * seeds: /sys/kernel/notes, /sys/module/\*\/notes/.note.gnu.build-id.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf-note.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char hex[ELF_BUILD_ID_HEX_MAX];
	size_t n;
	int r = elf_notes_build_id(data, size, hex);

	if (r == -ENOENT || r == -EBADMSG)
		return 0;
	if (r != 0)
		abort();
	n = strlen(hex);
	if (n == 0 || n % 2 != 0 || n > 2 * ELF_BUILD_ID_MAX ||
	    strspn(hex, "0123456789abcdef") != n)
		abort();
	return 0;
}
