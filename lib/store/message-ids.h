/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * MESSAGE_IDs of the journal entries pstored writes, one per kind of crash.
 * units/pstored.catalog explains each for "journalctl -x"; the upload
 * journal-remote target sends entries with the same ids and fields:
 *
 *	PSTORE_CRASH_ID   crash id (the store directory name)
 *	PSTORE_KIND       kernel-crash | hardware-error | previous-boot-log
 *	PSTORE_REASON     analysed reason (panic, oops, bug, warning, ...)
 *	PSTORE_DUMP_REASON the kmsg_dump reason of the header (Panic, Oops, ...)
 *	PSTORE_BACKEND    erst, efi, ramoops, ...
 *	PSTORE_SOURCES    "kdump" or "pstore kdump" (absent: pstore alone)
 *	PSTORE_VMCORE     the vmcore kdump-tools kept, for crash(8)
 *	PSTORE_VMCORE_FORMAT  flattened, kdump-compressed, elf, gzip, ... (kdump.h)
 *	PSTORE_RECORDS    space-separated pstore file names
 *	PSTORE_PARTS_MISSING  part numbers absent from pstore, if any
 *	PSTORE_SEVERITY   fatal | recoverable | corrected | informational (hardware errors)
 *	PSTORE_CRASHED_BOOT_ID  the boot that crashed, where the journal knows it
 *	KERNEL_VERSION, CRASH_SIGNATURE, CRASH_FUNCTION, CRASH_MODULE
 *	KERNEL_PACKAGE    the distribution's package of the kernel ("Debian 6.1.76-1")
 *	KERNEL_BUILD_ID   the crashed kernel's build id, when it is the running one
 *	KERNEL_MODULE_BUILD_IDS  "mod=build-id ..." of the modules in the call trace
 *	CRASH_MESSAGE     the analysed message ("Kernel panic - not syncing: ...")
 *	PSTORE_DMESG      the whole reassembled log (or decoded record)
 */

/* A kernel crash (panic, oops, BUG, ...) whose log survived in pstore. */
#define PSTORED_MESSAGE_KERNEL_CRASH_STR "c55ba87f78104684bc1951566a609be3"
/* A hardware error event: x86 machine check or UEFI CPER record. */
#define PSTORED_MESSAGE_HARDWARE_ERROR_STR "ca7a7c717ad840c59aed31ea301d3f63"
/* The log of the previous boot (console, pmsg, ftrace, or a clean shutdown dump). */
#define PSTORED_MESSAGE_PREVIOUS_BOOT_LOG_STR "ecb218b009524843b5f7e5aa27d20e51"
