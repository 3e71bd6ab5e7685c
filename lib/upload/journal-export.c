// SPDX-License-Identifier: GPL-2.0-or-later

#include <endian.h>
#include <stdlib.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "journal-export.h"
#include "macro.h"
#include "store/journal-fields.h"

bool upload_journal_field_name_is_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

int upload_journal_write_field(FILE *f, const char *name, const void *value, size_t len)
{
	if (!upload_journal_field_name_is_valid(name))
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

int upload_journal_write_string(FILE *f, const char *name, const char *value)
{
	return upload_journal_write_field(f, name, value, strlen(value));
}

int upload_journal_end_entry(FILE *f)
{
	return fputc('\n', f) == EOF ? -EIO : 0;
}

int upload_journal_crash(FILE *f, const UploadCrashSource *e)
{
	const char *machine_id = json_string_value(json_object_get(e->crash, "machine_id"));
	json_int_t archived_at = json_integer_value(json_object_get(e->crash, "archived_at"));
	JournalCrashFields fields;
	char ts[32];
	int r;

	/* The local entry was written when the crash was archived: so is this one. */
	snprintf(ts, sizeof(ts), "%" JSON_INTEGER_FORMAT, archived_at);
	r = upload_journal_write_string(f, "__REALTIME_TIMESTAMP", ts);
	if (r == 0 && json_is_string(json_object_get(e->crash, "boot_id")))
		r = upload_journal_write_string(
			f, "_BOOT_ID", json_string_value(json_object_get(e->crash, "boot_id")));
	if (r == 0 && (machine_id || e->machine_id))
		r = upload_journal_write_string(f, "_MACHINE_ID", machine_id ?: e->machine_id);
	if (r == 0 && e->hostname)
		r = upload_journal_write_string(f, "_HOSTNAME", e->hostname);
	if (r < 0)
		return r;

	r = journal_crash_fields(e->crash, &fields);
	if (r < 0)
		return r;
	for (size_t i = 0; r == 0 && i < fields.n; i++) {
		const char *field = fields.iov[i].iov_base;
		const char *eq = memchr(field, '=', fields.iov[i].iov_len);
		_cleanup_free_ char *name = NULL;

		if (!eq) {
			r = -EINVAL;
			break;
		}
		name = strndup(field, (size_t)(eq - field));
		if (!name) {
			r = -ENOMEM;
			break;
		}
		r = upload_journal_write_field(f, name, eq + 1,
					       fields.iov[i].iov_len - (size_t)(eq + 1 - field));
	}
	journal_crash_fields_done(&fields);
	if (r == 0)
		r = upload_journal_write_field(f, JOURNAL_LOG_FIELD_NAME, e->dmesg, e->dmesg_len);
	if (r == 0)
		r = upload_journal_end_entry(f);
	return r;
}
