/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Reading the dumps that Debian's kdump-tools (1.8, /usr/sbin/kdump-config,
 * kdump_save_core()) leaves in its directory, /var/crash by default
 * (KDUMP_COREDIR), one directory per crash:
 *
 *	<root>/<STAMP>/dmesg.<STAMP>          the kernel log, "[time] text" lines,
 *	                                      oldest first, up to the crash
 *	<root>/<STAMP>/dump.<STAMP>[.<ext>]   the vmcore, by makedumpfile
 *	<root>/<STAMP>/vmcore.<STAMP>         the vmcore, copied when makedumpfile failed
 *	<root>/kexec_cmd                      the kexec command line that armed kdump
 *
 * STAMP is "date +%Y%m%d%H%M" (local time, minute resolution) in the
 * capture kernel; the directory of a dump sent over the network is
 * "<host>-<STAMP>". The capture kernel writes the dmesg in place and syncs it,
 * then the vmcore as "dump-incomplete[.<ext>]" (or "vmcore-incomplete"),
 * renamed to its final name once whole. A directory is complete when it has
 * its dmesg, a vmcore of its final name and no "*-incomplete*" file: until
 * then the capture is writing it (or was cut short, and it stays incomplete).
 *
 * /var/crash may be writable by others (Ubuntu's apport makes it 3777), so
 * what it holds is a claim: a dump counts only if its directory and its dmesg
 * are owned by root (or by the user reading them); links and special files
 * are never followed or opened; the dmesg is read bounded.
 *
 * Library code: returns 0 or a negative errno, never logs; output parameters
 * are untouched on failure.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

#define KDUMP_DEFAULT_DIR "/var/crash"

typedef struct KdumpDump {
	char *name;	   /* of the directory, below the root */
	uint64_t dev, ino; /* of the directory: who it is, whatever its name */
	char *dmesg_name;  /* "dmesg.<STAMP>" */
	uint64_t dmesg_ino;
	uint64_t dmesg_size;
	uint64_t time;	   /* the dmesg's mtime, µs since the epoch: when it was captured */
	char *vmcore_name; /* "dump.<STAMP>[.<ext>]" or "vmcore.<STAMP>" */
} KdumpDump;

/* Why a directory of the root is not a dump to take (now). */
typedef enum KdumpSkip {
	KDUMP_SKIP_INCOMPLETE, /* a "*-incomplete*" file, or no vmcore yet: the capture goes on */
	KDUMP_SKIP_NO_DMESG,   /* no dmesg.<STAMP> (KDUMP_DUMP_DMESG=0, or not a dump) */
	KDUMP_SKIP_LINK,       /* the directory or its dmesg is a symbolic link */
	KDUMP_SKIP_SPECIAL,    /* the dmesg is not a regular file, or has other names */
	KDUMP_SKIP_OWNER,      /* not owned by root (nor by the user reading) */
	KDUMP_SKIP_NAME,       /* a name that is not valid UTF-8, or holds a control character */
	KDUMP_SKIP_UNREADABLE, /* the directory cannot be opened or listed */
	_KDUMP_SKIP_MAX,
} KdumpSkip;

const char *kdump_skip_to_string(KdumpSkip s);

typedef struct KdumpSkipped {
	char *name;
	KdumpSkip reason;
	int error; /* KDUMP_SKIP_UNREADABLE: why */
} KdumpSkipped;

/* The skipped directories a scan names; it counts the others. */
#define KDUMP_SKIPPED_MAX 16

typedef struct KdumpScan {
	KdumpDump *dumps; /* complete ones, by name */
	size_t n_dumps;
	size_t n_dumps_seen; /* complete ones in all: more than n_dumps past max_dumps */
	KdumpSkipped skipped[KDUMP_SKIPPED_MAX];
	size_t n_skipped;
	size_t n_skipped_seen;
} KdumpScan;

/*
 * Lists the dumps below the open directory root_fd: the complete ones, the
 * first max_dumps by name (kdump-tools' names sort by time), and the first
 * KDUMP_SKIPPED_MAX directories skipped, with why. Entries that are not
 * directories (kexec_cmd, apport's *.crash files) and hidden ones are not
 * dumps and are passed over in silence. Reads no file; memory grows with
 * max_dumps, not with the entries.
 */
int kdump_scan(int root_fd, size_t max_dumps, KdumpScan **ret);
KdumpScan *kdump_scan_free(KdumpScan *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(KdumpScan *, kdump_scan_free);

/*
 * Reads the dmesg of a dump that kdump_scan() listed: -ESTALE if its directory
 * or its dmesg is no longer the one listed (replaced, renamed away), the
 * checks of kdump_scan() again otherwise. At most max bytes, the newest: of a
 * larger file (the log buffer can be large, and a planted file huge) the last
 * max bytes from their first whole line, and *ret_cut is set. NUL-terminated.
 */
int kdump_dmesg_read(int root_fd, const KdumpDump *d, size_t max, char **ret, size_t *ret_len,
		     bool *ret_cut);

/*
 * What the vmcore is, from its first bytes, for what opens it: makedumpfile's
 * flattened format ("makedumpfile" then NULs: kdump-config always pipes its
 * output, -F, and crash(8) needs it rebuilt with makedumpfile -R first), its
 * kdump-compressed format ("KDUMP   "), an ELF core (/proc/vmcore copied),
 * or compressed whole by KDUMP_COMPRESSION= (gzip, bzip2, xz, lz4).
 */
typedef enum KdumpVmcoreFormat {
	KDUMP_VMCORE_UNKNOWN,
	KDUMP_VMCORE_FLATTENED,
	KDUMP_VMCORE_KDUMP_COMPRESSED,
	KDUMP_VMCORE_ELF,
	KDUMP_VMCORE_GZIP,
	KDUMP_VMCORE_BZIP2,
	KDUMP_VMCORE_XZ,
	KDUMP_VMCORE_LZ4,
	_KDUMP_VMCORE_FORMAT_MAX,
} KdumpVmcoreFormat;

/* "flattened", "kdump-compressed", "elf", "gzip", "bzip2", "xz", "lz4", "unknown". */
const char *kdump_vmcore_format_to_string(KdumpVmcoreFormat f);
/* Reads the first bytes of a regular file of one name, as kdump_dmesg_read() opens it. */
int kdump_vmcore_format(int root_fd, const KdumpDump *d, KdumpVmcoreFormat *ret);

/*
 * The printk time (µs since boot) of the first line of log that holds text,
 * as both a kdump dmesg and a pstore record print it: "[  42.000001] text",
 * after a "<N>" level if there is one. -ENOENT if no line holds text, or that
 * line has no time. With the analysis's report line as text, the time and
 * the text name one event of one boot: what kdump and pstore both caught.
 */
int kdump_line_time(const char *log, size_t len, const char *text, uint64_t *ret);
