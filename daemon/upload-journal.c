// SPDX-License-Identifier: GPL-2.0-or-later

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
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
