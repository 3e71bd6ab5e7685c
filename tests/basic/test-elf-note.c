// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "elf-note.h"
#include "macro.h"

/* Appends one note to buf at *len: the header, name and descriptor padded as elf(5) says. */
static void note_add(uint8_t *buf, size_t *len, uint32_t namesz, uint32_t descsz, uint32_t type,
		     const char *name, const void *desc, size_t desc_bytes)
{
	uint32_t h[3] = {namesz, descsz, type};
	size_t name_bytes = name ? strlen(name) + 1 : 0;

	memcpy(buf + *len, h, sizeof(h));
	*len += sizeof(h);
	memset(buf + *len, 0, (name_bytes + 3) & ~3u);
	if (name)
		memcpy(buf + *len, name, name_bytes);
	*len += (name_bytes + 3) & ~3u;
	memset(buf + *len, 0, (desc_bytes + 3) & ~3u);
	memcpy(buf + *len, desc, desc_bytes);
	*len += (desc_bytes + 3) & ~3u;
}

static const uint8_t id[20] = {0x1d, 0xcb, 0x44, 0x18, 0x8b, 0x0a, 0xc1, 0xc6, 0x8b, 0x4b,
			       0x4b, 0x68, 0xae, 0xdf, 0x16, 0x9c, 0x21, 0x54, 0x49, 0xb0};
#define ID_HEX "1dcb44188b0ac1c68b4b4b68aedf169c215449b0"

/* /sys/kernel/notes of a Xen-capable kernel: Xen's notes, then Linux's, then the build id. */
Test(elf_note, build_id_after_other_notes)
{
	uint8_t buf[256], xen[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	size_t len = 0;
	char hex[ELF_BUILD_ID_HEX_MAX];

	note_add(buf, &len, 4, sizeof(xen), 6, "Xen", xen, sizeof(xen));
	note_add(buf, &len, 6, 4, 0x100, "Linux", xen, 4);
	note_add(buf, &len, 4, sizeof(id), 1, "GNU", id, sizeof(id)); /* not a build id */
	cr_assert_eq(elf_notes_build_id(buf, len, hex), -ENOENT);
	note_add(buf, &len, 4, sizeof(id), NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	cr_assert_eq(elf_notes_build_id(buf, len, hex), 0);
	cr_assert_str_eq(hex, ID_HEX);
}

Test(elf_note, hostile)
{
	uint8_t buf[256] = {}, big[ELF_BUILD_ID_MAX + 1] = {};
	size_t len = 0;
	char hex[ELF_BUILD_ID_HEX_MAX];

	cr_assert_eq(elf_notes_build_id(buf, 0, hex), -ENOENT);
	note_add(buf, &len, 4, sizeof(id), NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	/* cut anywhere inside the note */
	for (size_t cut = 12; cut < len; cut++)
		cr_assert_eq(elf_notes_build_id(buf, cut, hex), -EBADMSG, "cut at %zu", cut);
	/* fewer bytes than a header: nothing to read */
	cr_assert_eq(elf_notes_build_id(buf, 11, hex), -ENOENT);

	/* wrong namesz: "GNU" without its NUL, or a name as long as the buffer */
	len = 0;
	note_add(buf, &len, 3, sizeof(id), NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	cr_assert_eq(elf_notes_build_id(buf, len, hex), -ENOENT);
	len = 0;
	note_add(buf, &len, UINT32_MAX, sizeof(id), NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	cr_assert_eq(elf_notes_build_id(buf, len, hex), -EBADMSG);

	/* huge descsz: padding it must not wrap around */
	len = 0;
	note_add(buf, &len, 4, UINT32_MAX, NT_GNU_BUILD_ID, "GNU", id, sizeof(id));
	cr_assert_eq(elf_notes_build_id(buf, len, hex), -EBADMSG);
	len = 0;
	note_add(buf, &len, 4, UINT32_MAX - 2, 0x100, "GNU", id, sizeof(id));
	cr_assert_eq(elf_notes_build_id(buf, len, hex), -EBADMSG);

	/* a build id longer than any ld makes, and an empty one */
	len = 0;
	note_add(buf, &len, 4, sizeof(big), NT_GNU_BUILD_ID, "GNU", big, sizeof(big));
	cr_assert_eq(elf_notes_build_id(buf, len, hex), -EBADMSG);
	len = 0;
	note_add(buf, &len, 4, 0, NT_GNU_BUILD_ID, "GNU", big, 0);
	cr_assert_eq(elf_notes_build_id(buf, len, hex), -EBADMSG);
}
