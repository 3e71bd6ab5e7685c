/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The signature of a crash: the same for the same bug on another boot, machine or kernel build,
 * different for different bugs. Stores and collectors group crashes by it, so it is a
 * compatibility contract: any change to what it hashes (the generic frames, how names are
 * shortened, how messages are normalized) regroups every stored crash.
 * tests/analyse/test-signature.c pins it with golden values.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyse-internal.h"
#include "sha256-util.h"

/*
 * Frames that every report of a kind shares: the reporting machinery, not the
 * bug (is_generic_frame()).
 */
static const char *const generic_frames[] = {
	/* printing the report */
	"dump_stack",
	"dump_stack_lvl",
	"dump_backtrace",
	"show_stack",
	"show_trace_log_lvl",
	"panic",
	"vpanic",
	"nmi_panic",
	"check_panic_on_warn",
	/* a WARNING, a BUG() trap, an oops */
	"__warn",
	"warn_slowpath_fmt",
	"warn_slowpath_null",
	"warn_slowpath_common",
	"report_bug",
	"handle_bug",
	"exc_invalid_op",
	"asm_exc_invalid_op",
	"do_invalid_op",
	"invalid_op",
	"do_error_trap",
	"do_trap",
	"die",
	"__die",
	"__die_body",
	"oops_end",
	"bug_handler",
	"call_break_hook",
	"brk_handler",
	"do_debug_exception",
	/* arm64 exception entry */
	"el1_dbg",
	"el1h_64_sync_handler",
	"el1h_64_sync",
	"arm64_notify_die",
	"arm64_serror_panic", /* an SError: the frames after el1h_64_error tell where */
	"arm64_is_fatal_ras_serror",
	"do_serror",
	"el1h_64_error_handler",
	"el1h_64_error",
	/* noreturn calls end a function: the return address is the next one */
	"abort",
	/* what a report calls on its way */
	"add_taint",
	"mce_panic",
	/* scheduling while atomic, sleeping where it must not, being asleep */
	"__schedule_bug",
	"__might_sleep", /* "BUG: sleeping function called from invalid context" */
	"___might_sleep",
	"__might_fault",
	"might_fault",
	"__schedule",
	"schedule",
	"schedule_timeout",
	"schedule_preempt_disabled",
	"io_schedule",
	"io_schedule_timeout",
	/* where a hung task sleeps: the function that took the lock is the answer */
	"rwsem_down_read_failed",
	"rwsem_down_read_slowpath",
	"call_rwsem_down_read_failed",
	"rwsem_down_write_failed",
	"rwsem_down_write_slowpath",
	"call_rwsem_down_write_failed",
	"__down_read_common", /* 5.15 and later */
	"__down_write_common",
	"percpu_rwsem_wait", /* a per-CPU rwsem: sb_start_write() and the like */
	"__percpu_down_read",
	"percpu_down_read",
	"percpu_down_write",
	"down_read",
	"down_write",
	"__mutex_lock",
	"__mutex_lock_common",
	"__mutex_lock_slowpath",
	"mutex_lock",
	"mutex_lock_nested",
	"__down", /* a semaphore */
	"down",
	"wait_for_completion",
	"__wait_for_common",
	"wait_for_common",
};

bool is_generic_frame(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(generic_frames); i++)
		if (strlen(generic_frames[i]) == len && memcmp(generic_frames[i], name, len) == 0)
			return true;
	return false;
}

/* The name a function has in every build: without ".isra.0", ".cold", ".constprop.0", ... */
size_t function_base_len(const char *name, size_t len)
{
	const char *dot = memchr(name, '.', len);
	return dot ? (size_t)(dot - name) : len;
}

/* Numbers and hex words, which differ between boots, become "#". */
static char *normalize_message(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *t = malloc(len + 1);

	if (!t)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		bool digit = false;

		while (j < len && (is_hex(s[j]) || s[j] == 'x')) {
			digit = digit || is_digit(s[j]);
			j++;
		}
		if (j > i && digit) {
			t[o++] = '#';
			i = j;
		} else if (j > i) {
			memcpy(t + o, s + i, j - i);
			o += j - i;
			i = j;
		} else
			t[o++] = s[i++];
	}
	t[o] = '\0';
	return t;
}

int dmesg_analysis_sign(DmesgAnalysis *a)
{
	_cleanup_free_ char *input = NULL, *normalized = NULL;
	char hex[SHA256_HEX_SIZE];
	size_t len = 0, frames = 0;
	FILE *f;
	int r;

	if (streq(a->reason, "unknown") && !a->function && !a->call_trace[0])
		return 0;

	f = open_memstream(&input, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n", a->reason);
	if (a->function)
		fprintf(f, "%.*s\n", (int)function_base_len(a->function, strlen(a->function)),
			a->function);
	for (char **p = a->call_trace; *p && frames < DMESG_SIGNATURE_FRAMES; p++) {
		size_t n = function_base_len(*p, strlen(*p));

		if (is_generic_frame(*p, n))
			continue;
		fprintf(f, "%.*s\n", (int)n, *p);
		frames++;
	}
	if (!a->function && frames == 0 && a->message) {
		normalized = normalize_message(a->message);
		if (!normalized) {
			fclose(f);
			return -ENOMEM;
		}
		fprintf(f, "%s\n", normalized);
	}
	if (fclose(f) != 0 || !input)
		return -ENOMEM;

	r = sha256_hex(input, len, hex);
	if (r < 0)
		return r;
	a->signature = strndup(hex, 32);
	return a->signature ? 0 : -ENOMEM;
}
