// SPDX-License-Identifier: GPL-2.0-or-later

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crash-util.h"
#include "log.h"
#include "macro.h"
#include "utf8-util.h"

int log_store_error(int r, const char *what)
{
	if (r == -EACCES || r == -EPERM)
		return log_error_errno(r,
				       "%s: %m (the store is readable by root only, unless the "
				       "administrator granted read access to group '" PSTORE_GROUP
				       "', see pstorectl(1): run as root or join that group)",
				       what);
	if (r == -ENOENT)
		return log_error_errno(
			r,
			"%s: %m (nothing archived here yet; is pstored installed, or "
			"is the store elsewhere? Use --store-dir=DIR)",
			what);
	if (r == -ENOTDIR)
		return log_error_errno(r, "%s: %m (not a crash store; check --store-dir=DIR)",
				       what);
	return log_error_errno(r, "%s: %m", what);
}

int open_store(const char *store_dir, bool writable, Store **ret)
{
	int r;

	r = store_open(store_dir, writable ? 0 : STORE_READONLY, ret);
	if (r == -EPERM)
		return log_error_errno(
			r,
			"%s: refusing an unsafe crash store: it must be owned by root "
			"(or by the user running pstorectl) and not be writable by "
			"group or others; fix it with 'chown root: %s' and 'chmod "
			"go-w %s', see pstored-store(5).",
			store_dir, store_dir, store_dir);
	if (r < 0)
		return log_store_error(r, store_dir);
	return 0;
}

int resolve_crash_id(Store *s, const char *prefix, char **ret_id)
{
	json_auto_t *matches = NULL;
	json_t *m;
	size_t i;
	int r;

	r = store_resolve_id(s, prefix, ret_id, &matches);
	if (r == -EINVAL)
		return log_error_errno(r,
				       "'%s' is not a valid crash id: ids are hexadecimal digits and "
				       "dashes, as 'pstorectl list' shows them, and their start is "
				       "enough.",
				       prefix);
	if (r == -ENOENT)
		return log_error_errno(r,
				       "No crash with id '%s' in %s: see 'pstorectl list' for the "
				       "ids.",
				       prefix, store_path(s));
	if (r == -ENOTUNIQ) {
		log_error("Crash id '%s' is ambiguous, it matches %zu crashes; give more of it:",
			  prefix, json_array_size(matches));
		json_array_foreach(matches, i, m) {
			char buf[FORMAT_TIMESTAMP_MAX];
			const char *t = format_timestamp(buf, crash_time_usec(m, "time"), false);

			log_error("  %s  %s  %s", crash_string(m, "id") ?: "-", t ?: "-",
				  crash_string(m, "reason") ?: "-");
		}
		return r;
	}
	if (r < 0)
		return log_store_error(r, store_path(s));
	return 0;
}

int open_crash(const char *store_dir, const char *prefix, Store **ret_store, char **ret_id)
{
	_cleanup_(store_freep) Store *s = NULL;
	int r;

	r = open_store(store_dir, false, &s);
	if (r < 0)
		return r;
	r = resolve_crash_id(s, prefix, ret_id);
	if (r < 0)
		return r;
	*ret_store = TAKE_PTR(s);
	return 0;
}

usec_t crash_time_usec(json_t *crash, const char *key)
{
	json_int_t t = json_integer_value(json_object_get(crash, key));

	return t > 0 ? (usec_t)t : 0;
}

const char *crash_string(json_t *crash, const char *key)
{
	return json_string_value(json_object_get(crash, key));
}

char *format_bytes(char buf[static FORMAT_BYTES_MAX], uint64_t bytes)
{
	static const char suffixes[] = "KMGTPE";
	double v = (double)bytes;
	size_t i = 0;

	if (bytes < 1024) {
		snprintf(buf, FORMAT_BYTES_MAX, "%" PRIu64 "B", bytes);
		return buf;
	}
	for (v /= 1024; v >= 1024 && i + 1 < sizeof(suffixes) - 1; i++)
		v /= 1024;
	snprintf(buf, FORMAT_BYTES_MAX, "%.1f%c", v, suffixes[i]);
	return buf;
}

void print_field(const char *label, const char *value)
{
	if (!value || !*value)
		return;
	printf("%13s: ", label);
	utf8_escape_fputs(value, stdout);
	putchar('\n');
}

void print_label(const char *name, bool first)
{
	printf("%13s%c ", first ? name : "", first ? ':' : ' ');
}

void print_analysis(json_t *analysis)
{
	_cleanup_free_ char *kernel = NULL, *process = NULL;
	const char *release = crash_string(analysis, "kernel_version"),
		   *package = crash_string(analysis, "kernel_package");

	/* "6.1.0-18-amd64 (Debian 6.1.76-1)": the release, and the package that the task line names */
	if (release && package && asprintf(&kernel, "%s (%s)", release, package) < 0)
		kernel = NULL;
	print_field("Kernel", kernel ?: release ?: package);
	print_field("Message", crash_string(analysis, "message"));
	print_field("Function", crash_string(analysis, "function"));
	print_field("Module", crash_string(analysis, "module"));
	print_field("Taint", crash_string(analysis, "taint"));
	if (crash_string(analysis, "comm")) {
		json_int_t pid = json_integer_value(json_object_get(analysis, "pid"));

		if ((pid > 0 ? asprintf(&process, "%s [%" JSON_INTEGER_FORMAT "]",
					crash_string(analysis, "comm"), pid)
			     : asprintf(&process, "%s", crash_string(analysis, "comm"))) < 0)
			process = NULL;
		print_field("Process", process);
	}
	print_field("Hardware", crash_string(analysis, "hardware"));
	print_field("Signature", crash_string(analysis, "signature"));
}

/* "func+0x2a/0x90 [mod]" of a frame of "frames", as the kernel printed it; what is missing or of
 * another type is left out. */
static void print_frame(json_t *frame)
{
	json_t *offset = json_object_get(frame, "offset"), *size = json_object_get(frame, "size");
	const char *module = crash_string(frame, "module");

	utf8_escape_fputs(crash_string(frame, "function") ?: "?", stdout);
	if (json_is_integer(offset) && json_is_integer(size) && json_integer_value(offset) >= 0 &&
	    json_integer_value(size) >= 0)
		printf("+0x%" PRIx64 "/0x%" PRIx64, (uint64_t)json_integer_value(offset),
		       (uint64_t)json_integer_value(size));
	if (module) {
		fputs(" [", stdout);
		utf8_escape_fputs(module, stdout);
		putchar(']');
	}
}

/* " (fs/x.c:812)" of a frame or an inlined call that pstorectl-symbolize resolved */
static void print_source(json_t *o)
{
	json_t *line = json_object_get(o, "line");

	if (!crash_string(o, "file") || !json_is_integer(line))
		return;
	fputs(" (", stdout);
	utf8_escape_fputs(crash_string(o, "file"), stdout);
	printf(":%" JSON_INTEGER_FORMAT ")", json_integer_value(line));
}

/* The reasons why frames stayed unresolved, each once. */
static void print_unresolved(json_t *frames)
{
	json_t *frame;
	size_t i, n = 0;

	json_array_foreach(frames, i, frame) {
		const char *why = crash_string(frame, "unresolved");
		bool seen = false;

		for (size_t k = 0; why && k < i && !seen; k++)
			seen = streq(crash_string(json_array_get(frames, k), "unresolved") ?: "",
				     why);
		if (!why || seen)
			continue;
		print_label("Unresolved", n++ == 0);
		utf8_escape_fputs(why, stdout);
		putchar('\n');
	}
}

void print_call_trace(json_t *analysis)
{
	json_t *frames = json_object_get(analysis, "frames"), *frame;
	size_t i;

	/* crash.json before "frames" was added has the function names alone */
	if (json_array_size(frames) > 0)
		json_array_foreach(frames, i, frame) {
			json_t *call;
			size_t k;

			print_label("Call trace", i == 0);
			print_frame(frame);
			print_source(frame);
			putchar('\n');
			/* innermost first, as the trace */
			json_array_foreach(json_object_get(frame, "inlined"), k, call) {
				print_label("", false);
				fputs("  inlined ", stdout);
				utf8_escape_fputs(crash_string(call, "function") ?: "?", stdout);
				print_source(call);
				putchar('\n');
			}
		}
	else
		json_array_foreach(json_object_get(analysis, "call_trace"), i, frame) {
			print_label("Call trace", i == 0);
			utf8_escape_fputs(json_string_value(frame) ?: "?", stdout);
			putchar('\n');
		}
	print_unresolved(frames);
}
