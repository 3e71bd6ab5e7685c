// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ELF notes (elf(5), "Notes (Nhdr)"): a sequence of
 *
 *	u32 n_namesz;	owner name with its NUL ("GNU\0": 4)
 *	u32 n_descsz;	descriptor length (NT_GNU_BUILD_ID: the build id's bytes)
 *	u32 n_type;	NT_GNU_BUILD_ID = 3
 *	name, padded to 4 bytes; descriptor, padded to 4 bytes
 *
 * in the byte order of the machine that made them: the kernel's notes are read on the machine
 * that runs it, so in ours. Every size is a claim checked against what is left of the buffer.
 */

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "elf-note.h"

static uint32_t read_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* n rounded up to a multiple of 4, in 64 bits: a 32-bit size_t would wrap */
static uint64_t align4(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

int elf_notes_build_id(const void *buf, size_t len, char hex[static ELF_BUILD_ID_HEX_MAX])
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *p = buf;

	while (len >= 12) {
		uint32_t namesz = read_u32(p), descsz = read_u32(p + 4), type = read_u32(p + 8);
		uint64_t name_len = align4(namesz), desc_len = align4(descsz);
		const uint8_t *name = p + 12, *desc;

		len -= 12;
		if (name_len > len || desc_len > len - name_len)
			return -EBADMSG;
		desc = name + name_len;
		if (type == NT_GNU_BUILD_ID && namesz == sizeof(ELF_NOTE_GNU) &&
		    memcmp(name, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) == 0) {
			if (descsz == 0 || descsz > ELF_BUILD_ID_MAX)
				return -EBADMSG;
			for (uint32_t i = 0; i < descsz; i++) {
				hex[2 * i] = digits[desc[i] >> 4];
				hex[2 * i + 1] = digits[desc[i] & 0xf];
			}
			hex[2 * descsz] = '\0';
			return 0;
		}
		p = desc + desc_len;
		len -= name_len + desc_len;
	}
	return -ENOENT;
}
