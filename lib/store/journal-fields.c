// SPDX-License-Identifier: GPL-2.0-or-later
/* The fields of a crash's journal entry (journal-fields.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/uio.h>

#include "journal-fields.h"
#include "macro.h"
#include "message-ids.h"
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
