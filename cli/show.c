// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl show ID: everything about one crash, laid out as coredumpctl info
 * lays out a core dump; with --json the crash.json document plus its path.
 * Text from the crash (record names, the analysis of its log) is escaped.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "crash-util.h"
#include "log.h"
#include "pager.h"
#include "pstorectl.h"
#include "utf8-util.h"

static void field(const char *label, const char *value)
{
	if (!value || !*value)
		return;
	printf("%13s: ", label);
	utf8_escape_fputs(value, stdout);
	putchar('\n');
}

/* The label of a field of several lines, for the first of them; blank for the others. */
static void label(const char *name, bool first)
{
	printf("%13s%c ", first ? name : "", first ? ':' : ' ');
}

static void field_time(const char *label, json_t *o, const char *key)
{
	char buf[FORMAT_TIMESTAMP_MAX];

	field(label, format_timestamp(buf, crash_time_usec(o, key), false));
}

/* A JSON scalar as text: strings as they are, numbers in decimal; NULL for anything else. */
static const char *scalar_text(json_t *v, char buf[static 32])
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, 32, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	if (json_is_boolean(v))
		return json_is_true(v) ? "yes" : "no";
	return NULL;
}

static void show_records(json_t *records)
{
	json_t *rec;
	size_t i;

	json_array_foreach(records, i, rec) {
		char tbuf[FORMAT_TIMESTAMP_MAX], sbuf[FORMAT_BYTES_MAX], ibuf[32];
		json_t *size = json_object_get(rec, "size");
		const char *t = format_timestamp(tbuf, crash_time_usec(rec, "time"), false);
		const char *rid = scalar_text(json_object_get(rec, "record_id"), ibuf);

		label("Records", i == 0);
		utf8_escape_fputs(crash_string(rec, "name") ?: "-", stdout);
		if (json_is_integer(size))
			printf(", %s", format_bytes(sbuf, json_integer_value(size)));
		if (rid) {
			fputs(", record id ", stdout);
			utf8_escape_fputs(rid, stdout);
		}
		if (t)
			printf(", %s", t);
		putchar('\n');
		if (crash_string(rec, "sha256")) {
			printf("%15s  sha256 ", "");
			utf8_escape_fputs(crash_string(rec, "sha256"), stdout);
			putchar('\n');
		}
	}
}

static void show_upload(json_t *upload)
{
	const char *target;
	json_t *u;
	bool first = true;

	json_object_foreach(upload, target, u) {
		char nbuf[FORMAT_TIMESTAMP_MAX], sbuf[FORMAT_TIMESTAMP_MAX];
		const char *next =
			format_timestamp(nbuf, crash_time_usec(u, "next_attempt"), false);
		const char *sent = format_timestamp(sbuf, crash_time_usec(u, "sent_at"), false);
		json_int_t attempts = json_integer_value(json_object_get(u, "attempts"));

		label("Upload", first);
		utf8_escape_fputs(target, stdout);
		fputs(": ", stdout);
		utf8_escape_fputs(crash_string(u, "state") ?: "unknown", stdout);
		if (sent)
			printf(" at %s", sent);
		if (attempts > 0)
			printf(", %" JSON_INTEGER_FORMAT " attempt%s", attempts,
			       attempts == 1 ? "" : "s");
		if (next && !sent)
			printf(", next %s", next);
		putchar('\n');
		if (crash_string(u, "last_error")) {
			printf("%15s  last error: ", "");
			utf8_escape_fputs(crash_string(u, "last_error"), stdout);
			putchar('\n');
		}
		first = false;
	}
}

static void show_crash(json_t *crash, const char *path)
{
	json_t *a = json_object_get(crash, "analysis"), *trace, *frame, *reason;
	char buf[32], bbuf[FORMAT_BYTES_MAX];
	json_t *stored = json_object_get(crash, "stored_bytes");
	_cleanup_free_ char *process = NULL, *storage = NULL;
	size_t i;

	field("ID", crash_string(crash, "id"));
	field_time("Time", crash, "time");
	field("Kind", crash_string(crash, "kind"));
	field("Reason", crash_string(crash, "reason"));
	field("Pstore reason", crash_string(crash, "pstore_reason"));
	field("Severity", crash_string(crash, "severity"));
	field("Backend", crash_string(crash, "backend"));
	field("Complete", scalar_text(json_object_get(crash, "complete"), buf));
	/* What a budget of pstored.conf left out: one line per reason. */
	json_array_foreach(json_object_get(crash, "truncated"), i, reason) {
		label("Truncated", i == 0);
		utf8_escape_fputs(json_string_value(reason) ?: "?", stdout);
		putchar('\n');
	}
	field("Kernel", crash_string(a, "kernel_version"));
	field("Message", crash_string(a, "message"));
	field("Function", crash_string(a, "function"));
	field("Module", crash_string(a, "module"));
	field("Taint", crash_string(a, "taint"));
	if (crash_string(a, "comm")) {
		json_int_t pid = json_integer_value(json_object_get(a, "pid"));

		if ((pid > 0 ? asprintf(&process, "%s [%" JSON_INTEGER_FORMAT "]",
					crash_string(a, "comm"), pid)
			     : asprintf(&process, "%s", crash_string(a, "comm"))) < 0)
			process = NULL;
		field("Process", process);
	}
	field("Hardware", crash_string(a, "hardware"));
	field("Signature", crash_string(a, "signature"));
	field_time("Archived", crash, "archived_at");
	field("Boot ID", crash_string(crash, "boot_id"));
	if (json_is_integer(stored) &&
	    asprintf(&storage, "%s (%s)", path, format_bytes(bbuf, json_integer_value(stored))) >=
		    0)
		field("Storage", storage);
	else
		field("Storage", path);
	show_records(json_object_get(crash, "records"));
	show_upload(json_object_get(crash, "upload"));

	trace = json_object_get(a, "call_trace");
	json_array_foreach(trace, i, frame) {
		label("Call trace", i == 0);
		utf8_escape_fputs(json_string_value(frame) ?: "?", stdout);
		putchar('\n');
	}
}

int verb_show(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *id = NULL, *path = NULL;
	json_auto_t *crash = NULL;
	int r;

	r = open_crash(arg_store_dir, argv[1], &s, &id);
	if (r < 0)
		return r;
	r = store_load_crash(s, id, &crash);
	if (r < 0)
		return log_store_error(r, id);
	r = store_crash_path(s, id, NULL, &path);
	if (r < 0)
		return log_oom();

	if (arg_json != JSON_OFF) {
		if (json_object_set_new(crash, "path", json_string(path)) < 0)
			return log_oom();
		return print_json(crash);
	}

	pager_open();
	show_crash(crash, path);
	return 0;
}
