/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Symbolization of a kernel call trace: each frame "func+0x2a/0x90 [mod]" to the file and line
 * of its instruction, with the inlined calls there, from the DWARF of the kernel's or the
 * module's debug file (elfutils' libdwfl). Only pstorectl-symbolize links this, and so libdw and
 * libdebuginfod: pstored and pstorectl never load them.
 *
 * The debug file of vmlinux or of a module is looked for, in this order:
 *  1. by its build id through libdebuginfod, when the crash has one (DEBUGINFOD_URLS, its cache
 *     and timeouts, as gdb and eu-stack take them);
 *  2. in the directories given (--debug-dir=): vmlinux-RELEASE or vmlinux, and MODULE.ko
 *     anywhere below;
 *  3. /usr/lib/debug/boot/vmlinux-RELEASE, /usr/lib/debug/lib/modules/RELEASE/.../MODULE.ko
 *     (Debian's linux-image-RELEASE-dbg), and the module's own .ko below
 *     /lib/modules/RELEASE/, which may not be stripped.
 * A file whose build id is not the crash's, or in which a frame's function has another size
 * than the log says (the check of the kernel's scripts/faddr2line), is refused: wrong lines
 * are worse than none.
 */

#include <jansson.h>

#include "macro.h"

typedef struct Symbolizer Symbolizer;

/* release: the crashed kernel's ("6.1.0-18-amd64"), NULL if unknown; build_ids: crash.json's
 * "build_ids" or NULL; debug_dirs: NULL-terminated, or NULL. */
int symbolizer_new(const char *release, json_t *build_ids, char *const *debug_dirs,
		   Symbolizer **ret);
Symbolizer *symbolizer_free(Symbolizer *s);

/*
 * The function of the faulting instruction, analysis.function of crash.json (the RIP or pc
 * line's): a first frame in it is taken as that instruction, every other frame as a return
 * address. Without it, every frame is a return address. function is not copied.
 */
void symbolizer_set_fault_function(Symbolizer *s, const char *function);

/* Called while debuginfod downloads the debug file of what ("vmlinux", a module): done of total
 * bytes, total 0 when not known yet. For a program to show progress; the library prints none. */
typedef void (*SymbolizerProgress)(const char *what, long done, long total, void *userdata);
void symbolizer_set_progress(Symbolizer *s, SymbolizerProgress fn, void *userdata);
DEFINE_TRIVIAL_CLEANUP_FUNC(Symbolizer *, symbolizer_free);

/*
 * The source of frames (analysis.frames of crash.json, innermost first): one object per frame,
 * {"file": "fs/x.c", "line": 812, "inlined": [{"function":..., "file":..., "line":...}, ...]}
 * with the innermost inlined call first, or {"unresolved": "why"}. file is relative to the
 * compilation directory where it lies below it. Returns 0, or -ENOMEM.
 */
int symbolizer_frames(Symbolizer *s, json_t *frames, json_t **ret);
