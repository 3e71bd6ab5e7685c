// SPDX-License-Identifier: GPL-2.0-or-later
/* The fields of a crash's journal entry (journal-fields.h). */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/uio.h>

#include "elf-note.h"
#include "journal-fields.h"
#include "macro.h"
#include "message-ids.h"
#include "parse-util.h"
#include "store.h"
#include "utf8-util.h"

static const char *json_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* syslog priority from the reason of a kernel crash or the severity of a hardware error. */
static int crash_priority(json_t *crash)
{
	static const struct {
		const char *value;
		int priority;
	} table[] = {
		{"panic", LOG_CRIT},	     {"emergency", LOG_CRIT},  {"hard-lockup", LOG_CRIT},
		{"mce", LOG_CRIT},	     {"oops", LOG_ERR},	       {"bug", LOG_ERR},
		{"soft-lockup", LOG_ERR},    {"hung-task", LOG_ERR},   {"warning", LOG_WARNING},
		{"fatal", LOG_CRIT},	     {"recoverable", LOG_ERR}, {"corrected", LOG_WARNING},
		{"informational", LOG_INFO}, {"shutdown", LOG_INFO},
	};
	const char *kind = json_str(crash, "kind") ?: "";
	const char *key = streq(kind, "hardware-error") ? json_str(crash, "severity")
							: json_str(crash, "reason");

	if (streq(kind, "previous-boot-log"))
		return LOG_INFO;
	for (size_t i = 0; key && i < ARRAY_SIZE(table); i++)
		if (streq(key, table[i].value))
			return table[i].priority;
	return LOG_ERR;
}

static const char *message_id(const char *kind)
{
	if (streq(kind, "hardware-error"))
		return PSTORED_MESSAGE_HARDWARE_ERROR_STR;
	if (streq(kind, "previous-boot-log"))
		return PSTORED_MESSAGE_PREVIOUS_BOOT_LOG_STR;
	return PSTORED_MESSAGE_KERNEL_CRASH_STR;
}

/*
 * What journalctl shows of the crash, escaped: the backend is part of a
 * record's name and the analysis comes from its log.
 */
static char *crash_message(json_t *crash)
{
	json_t *analysis = json_object_get(crash, "analysis");
	const char *kind = json_str(crash, "kind") ?: "", *id = json_str(crash, "id");
	const char *backend = json_str(crash, "backend") ?: "unknown";
	const char *reason = json_str(crash, "reason") ?: "unknown";
	const char *what = json_str(analysis, "message");
	const char *function = json_str(analysis, "function");
	const char *kdump_dir = json_str(json_object_get(crash, "kdump"), "directory");
	size_t n = json_array_size(json_object_get(crash, "records"));
	char *m, *escaped;
	int r;

	if (streq(kind, "hardware-error"))
		r = asprintf(
			&m,
			"Hardware error (%s, %s) of a previous boot%s%s, saved from %s pstore; "
			"see 'pstorectl show %.8s'",
			reason, json_str(crash, "severity") ?: "unknown severity", what ? ": " : "",
			what ?: "", backend, id);
	else if (streq(kind, "previous-boot-log"))
		r = asprintf(&m,
			     "Log of a previous boot (%s) saved from %s pstore; see "
			     "'pstorectl show %.8s'",
			     reason, backend, id);
	else if (!json_object_get(crash, "backend") && kdump_dir)
		r = asprintf(&m,
			     "Kernel %s in a previous boot%s%s%s%s, saved by kdump in %s; see "
			     "'pstorectl show %.8s'",
			     reason, what ? ": " : "", what ?: "", function ? " in " : "",
			     function ?: "", kdump_dir, id);
	else
		r = asprintf(&m,
			     "Kernel %s in a previous boot%s%s%s%s, saved from %s pstore (%zu "
			     "record%s); see 'pstorectl show %.8s'",
			     reason, what ? ": " : "", what ?: "", function ? " in " : "",
			     function ?: "", backend, n, n == 1 ? "" : "s", id);
	if (r < 0)
		return NULL;
	escaped = utf8_escape(m, strlen(m), 0);
	free(m);
	return escaped;
}

static void field_add(JournalCrashFields *f, const char *name, const char *value)
{
	char *s;

	if (!value || f->error < 0)
		return;
	if (f->n >= JOURNAL_CRASH_FIELDS_MAX || asprintf(&s, "%s=%s", name, value) < 0) {
		f->error = -ENOMEM;
		return;
	}
	f->iov[f->n++] = (struct iovec){.iov_base = s, .iov_len = strlen(s)};
}

void journal_crash_fields_done(JournalCrashFields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->iov[i].iov_base);
	f->n = 0;
}

/*
 * "a b c" from an array of record objects (key "name"), of strings (with sep between them),
 * or of part numbers and [first, last] ranges of them ("2 5-9").
 */
static char *join_array(json_t *array, const char *key, const char *sep)
{
	char *s = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&s, &size);
	json_t *v;

	if (!f)
		return NULL;
	json_array_foreach(array, i, v) {
		if (i > 0)
			fputs(sep, f);
		if (key)
			fputs(json_str(v, key) ?: "", f);
		else if (json_is_string(v))
			fputs(json_string_value(v), f);
		else if (json_is_array(v) && json_integer_value(json_array_get(v, 0)) !=
						     json_integer_value(json_array_get(v, 1)))
			fprintf(f, "%" JSON_INTEGER_FORMAT "-%" JSON_INTEGER_FORMAT,
				json_integer_value(json_array_get(v, 0)),
				json_integer_value(json_array_get(v, 1)));
		else
			fprintf(f, "%" JSON_INTEGER_FORMAT,
				json_integer_value(json_is_array(v) ? json_array_get(v, 0) : v));
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* "mod=buildid mod2=buildid" of crash["build_ids"]["modules"]; NULL when it holds none. */
static char *join_module_build_ids(json_t *modules, int *error)
{
	char *s = NULL;
	size_t size = 0;
	const char *name;
	json_t *v;
	FILE *f;

	if (json_object_size(modules) == 0)
		return NULL;
	f = open_memstream(&s, &size);
	if (!f) {
		*error = -ENOMEM;
		return NULL;
	}
	json_object_foreach(modules, name, v)
		fprintf(f, "%s%s=%s", s && size > 0 ? " " : "", name, json_string_value(v) ?: "");
	if (fclose(f) != 0) {
		free(s);
		*error = -ENOMEM;
		return NULL;
	}
	return s;
}

int journal_crash_fields(json_t *crash, JournalCrashFields *ret)
{
	_cleanup_free_ char *message = NULL, *records = NULL, *missing = NULL, *truncated = NULL,
			    *module_ids = NULL, *sources = NULL;
	json_t *analysis = json_object_get(crash, "analysis");
	json_t *build_ids = json_object_get(crash, "build_ids");
	const char *kind = json_str(crash, "kind") ?: "kernel-crash";
	char priority[4], time[24];
	JournalCrashFields f = {};

	message = crash_message(crash);
	records = join_array(json_object_get(crash, "records"), "name", " ");
	missing = json_array_size(json_object_get(crash, "parts_missing")) > 0
			  ? join_array(json_object_get(crash, "parts_missing"), NULL, " ")
			  : NULL;
	truncated = json_array_size(json_object_get(crash, "truncated")) > 0
			    ? join_array(json_object_get(crash, "truncated"), NULL, "; ")
			    : NULL;
	module_ids = join_module_build_ids(json_object_get(build_ids, "modules"), &f.error);
	/* Absent: pstore alone, as before kdump was a source. */
	sources = json_object_get(crash, "sources")
			  ? join_array(json_object_get(crash, "sources"), NULL, " ")
			  : NULL;
	if (!message || !records || f.error < 0 || (json_object_get(crash, "sources") && !sources))
		return -ENOMEM;

	snprintf(priority, sizeof(priority), "%d", crash_priority(crash));
	snprintf(time, sizeof(time), "%" JSON_INTEGER_FORMAT,
		 json_integer_value(json_object_get(crash, "time")));

	field_add(&f, "MESSAGE", message);
	field_add(&f, "MESSAGE_ID", message_id(kind));
	field_add(&f, "PRIORITY", priority);
	field_add(&f, "SYSLOG_IDENTIFIER", "pstored");
	field_add(&f, "PSTORE_CRASH_ID", json_str(crash, "id"));
	field_add(&f, "PSTORE_KIND", kind);
	field_add(&f, "PSTORE_REASON", json_str(crash, "reason"));
	field_add(&f, "PSTORE_DUMP_REASON", json_str(crash, "pstore_reason"));
	field_add(&f, "PSTORE_BACKEND", json_str(crash, "backend"));
	field_add(&f, "PSTORE_SOURCES", sources);
	field_add(&f, "PSTORE_VMCORE", json_str(json_object_get(crash, "kdump"), "vmcore"));
	field_add(&f, "PSTORE_VMCORE_FORMAT",
		  json_str(json_object_get(crash, "kdump"), "vmcore_format"));
	field_add(&f, "PSTORE_RECORDS", records);
	field_add(&f, "PSTORE_PARTS_MISSING", missing);
	field_add(&f, "PSTORE_TRUNCATED", truncated);
	field_add(&f, "PSTORE_SEVERITY", json_str(crash, "severity"));
	field_add(&f, "PSTORE_CRASH_TIMESTAMP", time);
	field_add(&f, "PSTORE_CRASHED_BOOT_ID", json_str(crash, "crashed_boot_id"));
	field_add(&f, "KERNEL_VERSION", json_str(analysis, "kernel_version"));
	field_add(&f, "KERNEL_PACKAGE", json_str(analysis, "kernel_package"));
	field_add(&f, "KERNEL_BUILD_ID", json_str(build_ids, "vmlinux"));
	field_add(&f, "KERNEL_MODULE_BUILD_IDS", module_ids);
	field_add(&f, "CRASH_SIGNATURE", json_str(analysis, "signature"));
	field_add(&f, "CRASH_FUNCTION", json_str(analysis, "function"));
	field_add(&f, "CRASH_MODULE", json_str(analysis, "module"));
	field_add(&f, "CRASH_MESSAGE", json_str(analysis, "message"));
	if (f.error < 0) {
		journal_crash_fields_done(&f);
		return f.error;
	}
	*ret = f;
	return 0;
}

/*
 * The reader of the entry: what pstorectl makes of the fields of an entry that another machine
 * sent (journal_crash_add_field()).
 */

typedef enum FieldAction {
	FIELD_ID,		/* crash.json's "id": exactly a crash id, and only one */
	FIELD_MACHINE,		/* "machine_id": a machine id, else none */
	FIELD_CRASH,		/* a string of crash.json */
	FIELD_ANALYSIS,		/* a string of crash.json's "analysis" */
	FIELD_TIME,		/* crash.json's "time", decimal */
	FIELD_RECORDS,		/* "records": [{"name": ...}], the names separated by spaces */
	FIELD_WORDS,		/* an array of strings, separated by spaces */
	FIELD_LOG,		/* the export document's "dmesg", read for one crash only */
	FIELD_BUILD_ID,		/* crash.json's "build_ids": "vmlinux" */
	FIELD_MODULE_BUILD_IDS, /* its "modules", as "name=id name=id" */
	FIELD_KDUMP,		/* a string of crash.json's "kdump" */
} FieldAction;

/* The journal fields of a crash (lib/store/journal-fields.c) and the keys they carry. */
static const struct {
	const char *field;
	const char *key;
	FieldAction action;
} crash_fields[] = {
	{"PSTORE_CRASH_ID", "id", FIELD_ID},
	{"PSTORE_KIND", "kind", FIELD_CRASH},
	{"PSTORE_REASON", "reason", FIELD_CRASH},
	{"PSTORE_DUMP_REASON", "pstore_reason", FIELD_CRASH},
	{"PSTORE_BACKEND", "backend", FIELD_CRASH},
	{"PSTORE_SOURCES", "sources", FIELD_WORDS},
	{"PSTORE_VMCORE", "vmcore", FIELD_KDUMP},
	{"PSTORE_VMCORE_FORMAT", "vmcore_format", FIELD_KDUMP},
	{"PSTORE_SEVERITY", "severity", FIELD_CRASH},
	{"_BOOT_ID", "boot_id", FIELD_CRASH},
	{"PSTORE_CRASHED_BOOT_ID", "crashed_boot_id", FIELD_CRASH},
	{"_MACHINE_ID", "machine_id", FIELD_MACHINE},
	{"_HOSTNAME", "hostname", FIELD_CRASH},
	{"KERNEL_VERSION", "kernel_version", FIELD_ANALYSIS},
	{"KERNEL_PACKAGE", "kernel_package", FIELD_ANALYSIS},
	{"KERNEL_BUILD_ID", "vmlinux", FIELD_BUILD_ID},
	{"KERNEL_MODULE_BUILD_IDS", "modules", FIELD_MODULE_BUILD_IDS},
	{"CRASH_SIGNATURE", "signature", FIELD_ANALYSIS},
	{"CRASH_FUNCTION", "function", FIELD_ANALYSIS},
	{"CRASH_MODULE", "module", FIELD_ANALYSIS},
	{"CRASH_MESSAGE", "message", FIELD_ANALYSIS},
	{"PSTORE_CRASH_TIMESTAMP", "time", FIELD_TIME},
	{"PSTORE_RECORDS", "records", FIELD_RECORDS},
	{JOURNAL_LOG_FIELD_NAME, "dmesg", FIELD_LOG},
};

/* The value as a JSON string, invalid UTF-8 replaced; NULL on OOM. */
static json_t *json_text(const char *v, size_t len)
{
	_cleanup_free_ char *text = utf8_sanitize(v, len, &len);

	return text ? json_stringn_nocheck(text, len) : NULL;
}

/* The words of v, separated by spaces, as strings, or as records {"name": word}. */
static json_t *json_words(const char *v, size_t len, bool records)
{
	json_auto_t *words = json_array();

	if (!words)
		return NULL;
	for (const char *end = v + len; v < end;) {
		const char *space = memchr(v, ' ', end - v) ?: end;
		json_t *word = json_text(v, space - v);

		if (json_array_append_new(words, records && word ? json_pack("{s:o}", "name", word)
								 : word) < 0)
			return NULL;
		v = space + 1;
	}
	return TAKE_PTR(words);
}

/* µs since the epoch, in decimal; 0 (unknown) for anything else, or past JSON's integers. */
static json_t *json_time(const char *v, size_t len)
{
	char buf[24];
	uint64_t t;

	if (len >= sizeof(buf))
		return json_integer(0);
	memcpy(buf, v, len);
	buf[len] = '\0';
	if (parse_uint64(buf, &t) < 0 || t > INT64_MAX)
		t = 0;
	return json_integer((json_int_t)t);
}

/*
 * The crash id, byte for byte: sanitising would make another id of a value that is none,
 * one that no match on the field finds. Null for anything else, and for a second id in
 * the entry: an entry of two crashes is neither.
 */
static json_t *json_crash_id(json_t *crash, const char *v, size_t len)
{
	char id[STORE_CRASH_ID_LEN + 1];

	if (json_object_get(crash, "id") || len != STORE_CRASH_ID_LEN)
		return json_null();
	memcpy(id, v, len);
	id[len] = '\0';
	return store_crash_id_is_valid(id) ? json_string(id) : json_null();
}

static bool is_lowercase_hex(const char *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return false;
	return true;
}

/*
 * A machine id tells the crashes of machines apart: whatever list and show read of the field,
 * however long (sd_journal_set_data_threshold() cuts what list reads), they must tell the
 * same machine. Null for anything that is not one.
 */
static json_t *json_machine_id(const char *v, size_t len)
{
	char id[STORE_MACHINE_ID_LEN + 1];

	if (len != STORE_MACHINE_ID_LEN)
		return NULL;
	memcpy(id, v, len);
	id[len] = '\0';
	return store_machine_id_is_valid(id) ? json_string(id) : NULL;
}

/* A GNU build id as pstored records it: lowercase hex of 1 to ELF_BUILD_ID_MAX bytes. */
static bool is_build_id(const char *v, size_t len)
{
	return len >= 2 && len <= 2 * ELF_BUILD_ID_MAX && len % 2 == 0 && is_lowercase_hex(v, len);
}

/*
 * "name=id name=id" of KERNEL_MODULE_BUILD_IDS as {"name": "id", ...}: the build ids of the
 * modules of the trace, which symbolization looks debug files up by. A pair that is not a
 * module name and a build id is left out: the name goes into a file name, the id into a URL.
 */
static json_t *json_module_build_ids(const char *v, size_t len)
{
	json_auto_t *modules = json_object();

	if (!modules)
		return NULL;
	for (const char *end = v + len; v < end;) {
		const char *space = memchr(v, ' ', end - v) ?: end, *eq = memchr(v, '=', space - v);
		char name[64]; /* more than a module name's 55 */

		if (eq && (size_t)(eq - v) < sizeof(name) && is_build_id(eq + 1, space - eq - 1)) {
			memcpy(name, v, eq - v);
			name[eq - v] = '\0';
			if (kernel_module_name_is_valid(name) &&
			    json_object_set_new(modules, name,
						json_stringn(eq + 1, space - eq - 1)) < 0)
				return NULL;
		}
		v = space + 1;
	}
	return TAKE_PTR(modules);
}

/* The object crash[key] ("build_ids", "kdump"), made if it is not there yet; NULL on OOM. */
static json_t *crash_object(json_t *crash, const char *key)
{
	json_t *o = json_object_get(crash, key);

	if (o)
		return o;
	o = json_object();
	return json_object_set_new(crash, key, o) < 0 ? NULL : o;
}

int journal_crash_add_field(json_t *crash, json_t *analysis, const void *field, size_t len,
			    bool with_log)
{
	const char *data = field, *eq = memchr(data, '=', len), *v;
	size_t n, vlen;
	json_t *value, *target;

	if (!eq)
		return 0;
	n = eq - data;
	v = eq + 1;
	vlen = len - n - 1;
	for (size_t i = 0; i < ARRAY_SIZE(crash_fields); i++) {
		if (strlen(crash_fields[i].field) != n ||
		    memcmp(data, crash_fields[i].field, n) != 0)
			continue;
		switch (crash_fields[i].action) {
		case FIELD_ID:
			value = json_crash_id(crash, v, vlen);
			break;
		case FIELD_MACHINE:
			value = json_machine_id(v, vlen);
			if (!value)
				return 0;
			break;
		case FIELD_TIME:
			value = json_time(v, vlen);
			break;
		case FIELD_RECORDS:
		case FIELD_WORDS:
			value = json_words(v, vlen, crash_fields[i].action == FIELD_RECORDS);
			break;
		case FIELD_LOG:
			if (!with_log)
				return 0;
			value = json_text(v, vlen);
			break;
		case FIELD_BUILD_ID:
			if (!is_build_id(v, vlen))
				return 0;
			value = json_stringn(v, vlen);
			break;
		case FIELD_MODULE_BUILD_IDS:
			value = json_module_build_ids(v, vlen);
			break;
		default:
			value = json_text(v, vlen);
		}
		switch (crash_fields[i].action) {
		case FIELD_ANALYSIS:
			target = analysis;
			break;
		case FIELD_BUILD_ID:
		case FIELD_MODULE_BUILD_IDS:
		case FIELD_KDUMP:
			target = crash_object(crash, crash_fields[i].action == FIELD_KDUMP
							     ? "kdump"
							     : "build_ids");
			if (!target) {
				json_decref(value);
				return -ENOMEM;
			}
			break;
		default:
			target = crash;
		}
		return json_object_set_new(target, crash_fields[i].key, value) < 0 ? -ENOMEM : 0;
	}
	return 0;
}
