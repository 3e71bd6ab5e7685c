/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/* A GNU build id is 20 bytes (SHA-1, ld's default) or 16 (md5, uuid); ld allows up to 64. */
#define ELF_BUILD_ID_MAX 64
#define ELF_BUILD_ID_HEX_MAX (2 * ELF_BUILD_ID_MAX + 1)

/*
 * The GNU build id (NT_GNU_BUILD_ID, owner "GNU") among the ELF notes in buf, as the kernel
 * shows them in /sys/kernel/notes and /sys/module/NAME/notes/.note.gnu.build-id: in lower-case
 * hex into hex. Returns 0, -ENOENT when the notes hold none, -EBADMSG when they are malformed
 * (a note that runs past the end, a build id of 0 or more than ELF_BUILD_ID_MAX bytes).
 */
int elf_notes_build_id(const void *buf, size_t len, char hex[static ELF_BUILD_ID_HEX_MAX]);
