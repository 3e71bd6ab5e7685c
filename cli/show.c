// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl show [ID]: everything about one crash (without an id, the newest
 * that the matches select), laid out as coredumpctl info lays out a core dump; with --json the crash.json document plus its path.
 * Text from the crash (record names, the analysis of its log) is escaped.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "symbolize.h"
#include "crash-util.h"
#include "log.h"
#include "match.h"
#include "pager.h"
#include "pstorectl.h"
#include "source.h"
#include "terminal.h"
#include "utf8-util.h"

static void field_time(const char *label, json_t *o, const char *key)
{
	char buf[FORMAT_TIMESTAMP_MAX];

	print_field(label, format_timestamp(buf, crash_time_usec(o, key), false));
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

		print_label("Records", i == 0);
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

		print_label("Upload", first);
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

/* A field coloured by the crash's severity, on a terminal (terminal.h). */
static void print_severity_field(const char *label, const char *value, json_t *crash)
{
	const char *color =
		severity_color(crash_string(crash, "reason"), crash_string(crash, "severity"));

	if (!value || !*value)
		return;
	if (!color || !colors_enabled())
		return print_field(label, value);
	printf("%13s: %s", label, color);
	utf8_escape_fputs(value, stdout);
	fputs(ANSI_NORMAL "\n", stdout);
}

/* When and by which boot the crash was archived: usually the boot after the crash. */
static void print_archived(json_t *crash)
{
	char buf[FORMAT_TIMESTAMP_MAX];
	const char *time = format_timestamp(buf, crash_time_usec(crash, "archived_at"), false),
		   *boot = crash_string(crash, "boot_id");
	_cleanup_free_ char *text = NULL;

	if (!boot || !*boot || asprintf(&text, "%s by boot %s", time, boot) < 0)
		return print_field("Archived", time);
	print_field("Archived", text);
}

/* The boot that crashed, and how to read its log, as coredumpctl info shows its Boot ID. */
static void print_crashed_boot(const char *id)
{
	_cleanup_free_ char *text = NULL;

	if (!id || !*id)
		return;
	if (asprintf(&text, "%s (its log: journalctl -b %s)", id, id) < 0)
		return print_field("Crashed boot", id);
	print_field("Crashed boot", text);
}

/* How crash(8) gets to open a vmcore of the format crash.json names (kdump_vmcore_format()). */
static const char *vmcore_hint(const char *format)
{
	static const struct {
		const char *format, *hint;
	} hints[] = {
		{"flattened",
		 "flattened: 'makedumpfile -R VMCORE < FILE' makes what crash(8) opens"},
		{"kdump-compressed", "open with crash(8)"},
		{"elf", "open with crash(8)"},
	};

	for (size_t i = 0; format && i < ARRAY_SIZE(hints); i++)
		if (streq(format, hints[i].format))
			return hints[i].hint;
	/* KDUMP_COMPRESSION= compresses makedumpfile's flattened output whole. */
	if (format && !streq(format, "unknown"))
		return "compressed: decompress it, then 'makedumpfile -R' it for crash(8)";
	return "for crash(8)";
}

/*
 * The sources of a crash that kdump caught too, pstore being the only one of
 * the others, and the vmcore kdump-tools kept, which crash(8) opens.
 */
static void show_sources(json_t *crash)
{
	json_t *sources = json_object_get(crash, "sources"), *k = json_object_get(crash, "kdump"),
	       *v;
	const char *vmcore = crash_string(k, "vmcore");
	_cleanup_free_ char *text = NULL;
	size_t i;

	json_array_foreach(sources, i, v) {
		if (i == 0)
			print_label("Sources", true);
		printf("%s", i > 0 ? ", " : "");
		utf8_escape_fputs(json_string_value(v) ?: "?", stdout);
		if (i + 1 == json_array_size(sources))
			putchar('\n');
	}
	if (vmcore &&
	    asprintf(&text, "%s (%s)", vmcore, vmcore_hint(crash_string(k, "vmcore_format"))) >= 0)
		print_field("Vmcore", text);
}

static void show_crash(json_t *crash, const char *path)
{
	json_t *a = json_object_get(crash, "analysis"), *reason;
	char buf[32], bbuf[FORMAT_BYTES_MAX];
	json_t *stored = json_object_get(crash, "stored_bytes");
	_cleanup_free_ char *storage = NULL;
	size_t i;

	print_field("ID", crash_string(crash, "id"));
	/* Crashes of other machines, from journal files or documents. */
	print_field("Host", crash_string(crash, "hostname"));
	if (arg_source != SOURCE_STORE)
		print_field("Machine ID", crash_string(crash, "machine_id"));
	field_time("Time", crash, "time");
	print_field("Kind", crash_string(crash, "kind"));
	print_severity_field("Reason", crash_string(crash, "reason"), crash);
	print_field("Pstore reason", crash_string(crash, "pstore_reason"));
	print_severity_field("Severity", crash_string(crash, "severity"), crash);
	print_field("Backend", crash_string(crash, "backend"));
	show_sources(crash);
	print_field("Complete", scalar_text(json_object_get(crash, "complete"), buf));
	/* What a budget of pstored.conf left out: one line per reason. */
	json_array_foreach(json_object_get(crash, "truncated"), i, reason) {
		print_label("Truncated", i == 0);
		utf8_escape_fputs(json_string_value(reason) ?: "?", stdout);
		putchar('\n');
	}
	print_analysis(a);
	print_archived(crash);
	print_crashed_boot(crash_string(crash, "crashed_boot_id"));
	if (json_is_integer(stored) &&
	    asprintf(&storage, "%s (%s)", path, format_bytes(bbuf, json_integer_value(stored))) >=
		    0)
		print_field("Storage", storage);
	else
		print_field("Storage", path);
	show_records(json_object_get(crash, "records"));
	show_upload(json_object_get(crash, "upload"));
	print_call_trace(a);
}

static const OptionSpec show_option_table[] = {SYMBOLIZE_OPTIONS, {}};

static int handle_show_option(int c, const char *arg)
{
	int r = symbolize_parse_option(c, arg);

	return r == -ENOENT ? match_parse_option(c, arg) : r;
}

const VerbOptions show_options = {show_option_table, match_options, handle_show_option};

int verb_show(int argc, char *argv[])
{
	_cleanup_(source_crash_freep) SourceCrash *c = NULL;
	json_t *crash;
	int r;

	r = source_open_crash(argc > 1 ? argv[1] : NULL, &c);
	if (r < 0)
		return r;
	crash = source_crash_json(c);
	r = symbolize_analysis(json_object_get(crash, "analysis"),
			       json_object_get(crash, "build_ids"));
	if (r < 0)
		return r;

	if (arg_json != JSON_OFF) {
		if (c->location && json_object_set_new(crash, "path", json_string(c->location)) < 0)
			return log_oom();
		return print_json(crash);
	}

	pager_open();
	show_crash(crash, c->location);
	return 0;
}
