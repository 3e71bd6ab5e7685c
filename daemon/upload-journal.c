// SPDX-License-Identifier: GPL-2.0-or-later

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
#include "store/message-ids.h"
#include "upload-journal.h"

bool journal_field_name_is_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

int journal_export_write_field(FILE *f, const char *name, const void *value, size_t len)
{
	if (!journal_field_name_is_valid(name))
		return -EINVAL;

	if (!memchr(value, '\n', len)) {
		if (fputs(name, f) == EOF || fputc('=', f) == EOF ||
		    fwrite(value, 1, len, f) != len || fputc('\n', f) == EOF)
			return -EIO;
		return 0;
	}

	/* Binary-safe: the name, a newline, the size as little-endian 64 bit, the value. */
	uint64_t le = htole64((uint64_t)len);

	if (fputs(name, f) == EOF || fputc('\n', f) == EOF || fwrite(&le, sizeof(le), 1, f) != 1 ||
	    fwrite(value, 1, len, f) != len || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

int journal_export_write_string(FILE *f, const char *name, const char *value)
{
	return journal_export_write_field(f, name, value, strlen(value));
}

int journal_export_end_entry(FILE *f)
{
	return fputc('\n', f) == EOF ? -EIO : 0;
}

/* crash.json string fields sent as they are, and the analysis fields. */
static const struct {
	const char *field, *key;
} crash_fields[] =
	{
		{"PSTORE_CRASH_ID", "id"},     {"PSTORE_KIND", "kind"},
		{"PSTORE_REASON", "reason"},   {"PSTORE_DUMP_REASON", "pstore_reason"},
		{"PSTORE_BACKEND", "backend"}, {"PSTORE_SEVERITY", "severity"},
},
  analysis_fields[] = {
	  {"KERNEL_VERSION", "kernel_version"},
	  {"CRASH_SIGNATURE", "signature"},
	  {"CRASH_FUNCTION", "function"},
	  {"CRASH_MODULE", "module"},
};

static const char *message_id_of_kind(const char *kind)
{
	if (kind && streq(kind, "hardware-error"))
		return PSTORED_MESSAGE_HARDWARE_ERROR_STR;
	if (kind && streq(kind, "previous-boot-log"))
		return PSTORED_MESSAGE_PREVIOUS_BOOT_LOG_STR;
	return PSTORED_MESSAGE_KERNEL_CRASH_STR;
}

/* crit for a kernel crash or a fatal hardware error, warning for other errors, info for logs. */
static const char *priority_of(json_t *crash)
{
	const char *kind = json_string_value(json_object_get(crash, "kind")) ?: "";
	const char *severity = json_string_value(json_object_get(crash, "severity")) ?: "";

	if (streq(kind, "previous-boot-log"))
		return "6";
	if (streq(kind, "hardware-error") && !streq(severity, "fatal"))
		return "4";
	return "2";
}

static int write_json_string(FILE *f, const char *field, json_t *v)
{
	if (!json_is_string(v))
		return 0;
	return journal_export_write_field(f, field, json_string_value(v), json_string_length(v));
}

/* "dmesg-erst-1 dmesg-erst-2": the names of the records, as PSTORE_RECORDS. */
static int write_record_names(FILE *f, json_t *records)
{
	_cleanup_free_ char *names = NULL;
	size_t len = 0, i;
	json_t *rec;
	FILE *m;

	if (json_array_size(records) == 0)
		return 0;
	m = open_memstream(&names, &len);
	if (!m)
		return -ENOMEM;
	json_array_foreach(records, i, rec) {
		const char *name = json_string_value(json_object_get(rec, "name"));

		if (name)
			fprintf(m, "%s%s", i > 0 ? " " : "", name);
	}
	if (fclose(m) != 0)
		return -ENOMEM;
	return journal_export_write_field(f, "PSTORE_RECORDS", names, len);
}

int journal_export_crash(FILE *f, const JournalCrashEntry *e)
{
	json_t *crash = e->crash, *analysis = json_object_get(crash, "analysis");
	const char *kind = json_string_value(json_object_get(crash, "kind"));
	const char *machine_id = json_string_value(json_object_get(crash, "machine_id"));
	json_int_t archived_at = json_integer_value(json_object_get(crash, "archived_at"));
	char ts[32];
	int r = 0;

	snprintf(ts, sizeof(ts), "%" JSON_INTEGER_FORMAT, archived_at);
	r = journal_export_write_string(f, "__REALTIME_TIMESTAMP", ts);
	if (r == 0)
		r = write_json_string(f, "_BOOT_ID", json_object_get(crash, "boot_id"));
	if (r == 0 && (machine_id || e->machine_id))
		r = journal_export_write_string(f, "_MACHINE_ID", machine_id ?: e->machine_id);
	if (r == 0 && e->hostname)
		r = journal_export_write_string(f, "_HOSTNAME", e->hostname);
	if (r == 0)
		r = journal_export_write_string(f, "SYSLOG_IDENTIFIER", "pstored");
	if (r == 0)
		r = journal_export_write_string(f, "MESSAGE_ID", message_id_of_kind(kind));
	if (r == 0)
		r = journal_export_write_string(f, "PRIORITY", priority_of(crash));
	if (r == 0)
		r = journal_export_write_string(f, "MESSAGE", e->message);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(crash_fields); i++)
		r = write_json_string(f, crash_fields[i].field,
				      json_object_get(crash, crash_fields[i].key));
	for (size_t i = 0; r == 0 && json_is_object(analysis) && i < ARRAY_SIZE(analysis_fields);
	     i++)
		r = write_json_string(f, analysis_fields[i].field,
				      json_object_get(analysis, analysis_fields[i].key));
	if (r == 0)
		r = write_record_names(f, json_object_get(crash, "records"));
	if (r == 0 && e->dmesg)
		r = journal_export_write_field(f, "PSTORE_DMESG", e->dmesg, e->dmesg_len);
	if (r == 0)
		r = journal_export_end_entry(f);
	return r;
}
