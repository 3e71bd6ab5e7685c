/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <resolv.h>
#include <string.h>

#include "export.h"
#include "fs-util.h"
#include "macro.h"
#include "utf8-util.h"

/* Reads a whole file of the crash directory, refusing links and giants. */
static int read_crash_file(Store *s, const char *id, const char *file, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = store_crash_path(s, id, file, &path);
	if (r < 0)
		return r;
	return read_full_file_at(AT_FDCWD, path, UPLOAD_EXPORT_FILE_MAX, ret, ret_len);
}

static bool record_name_is_valid(const char *name)
{
	return name && *name && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..");
}

static int add_record_data(Store *s, const char *id, json_t *record)
{
	const char *name = json_string_value(json_object_get(record, "name"));
	_cleanup_free_ char *file = NULL, *b64 = NULL;
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	if (!record_name_is_valid(name))
		return -EBADMSG;
	if (asprintf(&file, "records/%s", name) < 0)
		return -ENOMEM;
	r = read_crash_file(s, id, file, &data, &len);
	if (r < 0)
		return r;

	/* b64_ntop() writes 4 bytes per 3 started, and a NUL; no line breaks. */
	if (len > SIZE_MAX / 4 - 1)
		return -EFBIG;
	b64 = malloc(4 * ((len + 2) / 3) + 1);
	if (!b64)
		return -ENOMEM;
	if (b64_ntop((const unsigned char *)data, len, b64, 4 * ((len + 2) / 3) + 1) < 0)
		return -EFBIG;
	return json_object_set_new(record, "data", json_string(b64)) < 0 ? -ENOMEM : 0;
}

int upload_export_json(Store *s, const char *id, json_t **ret)
{
	json_auto_t *doc = NULL;
	_cleanup_free_ char *log = NULL, *text = NULL;
	json_t *records, *rec;
	size_t len, i;
	int r;

	r = store_load_crash(s, id, &doc);
	if (r < 0)
		return r;

	records = json_object_get(doc, "records");
	if (records && !json_is_array(records))
		return -EBADMSG;
	json_array_foreach(records, i, rec) {
		if (!json_is_object(rec))
			return -EBADMSG;
		r = add_record_data(s, id, rec);
		if (r < 0)
			return r;
	}

	r = read_crash_file(s, id, "dmesg.txt", &log, &len);
	if (r < 0 && r != -ENOENT)
		return r;
	if (r >= 0) {
		text = utf8_sanitize(log, len, &len);
		if (!text || json_object_set_new(doc, "dmesg", json_stringn(text, len)) < 0)
			return -ENOMEM;
	}

	if (json_object_set_new(doc, "export_version", json_integer(UPLOAD_EXPORT_VERSION)) < 0)
		return -ENOMEM;

	*ret = TAKE_PTR(doc);
	return 0;
}
