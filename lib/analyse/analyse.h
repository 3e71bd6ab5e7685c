/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Analysis of a kernel log (the dmesg text of a crash): what kind of crash
 * it was, its first report line, where it happened, and a signature that is
 * the same for the same bug on another boot or machine.
 *
 * The log may come with or without printk prefixes ("<4>", "[   12.345678]",
 * caller ids "[  T123]"/"[    C0]") and may be truncated anywhere; any input
 * is accepted, in time linear in its length.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* The most call trace functions kept in DmesgAnalysis.call_trace. */
#define DMESG_CALL_TRACE_MAX 64
/* How many call trace functions the signature hashes. */
#define DMESG_SIGNATURE_FRAMES 5

/* A call trace frame as the kernel printed it: "func+0x2a/0x90 [mod]". */
typedef struct DmesgFrame {
	char *function;
	char *module; /* NULL for the kernel proper */
	/* where in function, and its size, when the log says ("+0x2a/0x90") */
	bool have_offset;
	uint64_t offset, size;
} DmesgFrame;

typedef struct DmesgAnalysis {
	/* panic, oops, bug, warning, hung-task, soft-lockup, hard-lockup, rcu-stall, mce,
	 * emergency, shutdown or unknown; never NULL */
	char *reason;
	/* The first line of the report: "Kernel panic - not syncing: ...",
	 * "BUG: kernel NULL pointer dereference, address: 0000000000000000", ... */
	char *message;
	char *function; /* where it happened: "sysrq_handle_crash" */
	char *module;	/* the module of function, NULL for the kernel proper */
	/* The reliable frames of the report's call trace, innermost first, without
	 * offsets and "?" frames; NULL-terminated, never NULL. */
	char **call_trace;
	/* The same frames whole, n_frames of them. */
	DmesgFrame *frames;
	size_t n_frames;
	/* Taint flags as letters ("GDWO"), "" for "Not tainted", NULL if not in the log. */
	char *taint;
	char *kernel_version; /* "6.1.0-18-amd64" */
	char *kernel_package; /* the distribution's package version: "Debian 6.1.76-1" */
	char *comm;	      /* the task that crashed */
	int pid;	      /* its PID, -1 when unknown */
	char *hardware;	      /* "QEMU Standard PC (i440FX + PIIX, 1996), BIOS ..." */
	/* 32 hex digits: a hash of reason, function and the top DMESG_SIGNATURE_FRAMES
	 * call trace functions that are not the reporting machinery (dump_stack, panic,
	 * __warn, ...), without offsets and compiler suffixes (".isra.0", ".cold");
	 * with neither function nor trace, of reason and the message with its numbers
	 * removed. NULL when the log holds no report at all. */
	char *signature;
} DmesgAnalysis;

/* Returns 0 and *ret (also for an empty or unrecognised log), or -ENOMEM. */
int dmesg_analyse(const char *log, size_t len, DmesgAnalysis **ret);

DmesgAnalysis *dmesg_analysis_free(DmesgAnalysis *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(DmesgAnalysis *, dmesg_analysis_free);

/*
 * {"reason":..., "message":..., "function":..., "module":..., "call_trace":[...],
 *  "frames":[{"function":..., "offset":..., "size":..., "module":...}, ...],
 *  "taint":..., "kernel_version":..., "kernel_package":..., "comm":..., "pid":..., "hardware":...,
 *  "signature":...}, with null for what is unknown.
 */
int dmesg_analysis_to_json(const DmesgAnalysis *a, json_t **ret);

/* dmesg_analyse() of log, as JSON (dmesg_analysis_to_json()): 0 and *ret, or -ENOMEM. */
int dmesg_analyse_json(const char *log, size_t len, json_t **ret);
