// SPDX-License-Identifier: GPL-2.0-or-later
/* The ClickHouse row of a crash (clickhouse.h). */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
#include "macro.h"
#include "utf8-util.h"

/* A String column: the member's text, "" when it is absent or not a string. */
static json_t *text_column(json_t *o, const char *key)
{
	return json_string(json_string_value(json_object_get(o, key)) ?: "");
}

/* An Int64 array element: the member's value, -1 when it is absent or null. */
static json_t *integer_column(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_integer(json_is_integer(v) ? json_integer_value(v) : -1);
}

/* The frames as four arrays of the same length: one Array column a field. */
static int add_frames(json_t *row, json_t *frames)
{
	json_t *function = json_array(), *offset = json_array(), *size = json_array(),
	       *module = json_array(), *frame;
	size_t i;

	if (json_object_set_new(row, "frame_function", function) < 0 ||
	    json_object_set_new(row, "frame_offset", offset) < 0 ||
	    json_object_set_new(row, "frame_size", size) < 0 ||
	    json_object_set_new(row, "frame_module", module) < 0)
		return -ENOMEM;
	json_array_foreach(frames, i, frame)
		if (json_array_append_new(function, text_column(frame, "function")) < 0 ||
		    json_array_append_new(offset, integer_column(frame, "offset")) < 0 ||
		    json_array_append_new(size, integer_column(frame, "size")) < 0 ||
		    json_array_append_new(module, text_column(frame, "module")) < 0)
			return -ENOMEM;
	return 0;
}

/* The String columns taken from crash.json as they are: its members, or its analysis' members. */
static const struct {
	const char *column;
	bool in_analysis;
	const char *key;
} text_columns[] = {
	{"crash_id", false, "id"},	  {"boot_id", false, "boot_id"},
	{"kind", false, "kind"},	  {"reason", false, "reason"},
	{"backend", false, "backend"},	  {"pstore_reason", false, "pstore_reason"},
	{"message", true, "message"},	  {"function", true, "function"},
	{"module", true, "module"},	  {"kernel", true, "kernel_version"},
	{"signature", true, "signature"}, {"taint", true, "taint"},
	{"comm", true, "comm"},
};

int upload_clickhouse_row(const UploadCrashSource *r, json_t **ret)
{
	json_t *analysis = json_object_get(r->crash, "analysis");
	json_t *when = json_object_get(r->crash, "time"), *records;
	const char *machine_id = json_string_value(json_object_get(r->crash, "machine_id"));
	_cleanup_free_ char *records_text = NULL, *log = NULL;
	json_auto_t *row = NULL;
	json_int_t usec;
	size_t log_len = 0;

	if (!json_is_string(json_object_get(r->crash, "id")))
		return -EBADMSG;
	if (!json_is_integer(when))
		when = json_object_get(r->crash, "archived_at");
	usec = MAX(json_integer_value(when), (json_int_t)0);

	records = json_object_get(r->crash, "records");
	records_text = records ? json_dumps(records, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("[]");
	if (r->dmesg)
		log = utf8_sanitize(r->dmesg, r->dmesg_len, &log_len);
	if (!records_text || (r->dmesg && !log))
		return -ENOMEM;

	row = json_pack("{s:I, s:I, s:I, s:s, s:s}", "time", usec / 1000000, "time_usec", usec,
			"archived_at",
			MAX(json_integer_value(json_object_get(r->crash, "archived_at")),
			    (json_int_t)0),
			"machine_id", machine_id ?: r->machine_id ?: "", "hostname",
			r->hostname ?: "");
	if (!row)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(text_columns); i++)
		if (json_object_set_new(
			    row, text_columns[i].column,
			    text_column(text_columns[i].in_analysis ? analysis : r->crash,
					text_columns[i].key)) < 0)
			return -ENOMEM;
	if (add_frames(row, json_object_get(analysis, "frames")) < 0 ||
	    json_object_set_new(row, "dmesg", json_stringn(log ?: "", log_len)) < 0 ||
	    json_object_set_new(row, "records", json_string(records_text)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(row);
	return 0;
}

/* A UInt64 column: a JSON number, or the decimal string ClickHouse quotes it in. */
static int uint64_column(json_t *v, json_int_t *ret)
{
	const char *s = json_string_value(v);
	char *end;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*ret = json_integer_value(v);
		return 0;
	}
	if (!s || *s < '0' || *s > '9')
		return -EBADMSG;
	errno = 0;
	unsigned long long u = strtoull(s, &end, 10);
	if (errno != 0 || *end || u > INT64_MAX)
		return -EBADMSG;
	*ret = (json_int_t)u;
	return 0;
}

/* crash[key] = row[column], when that is a string that is not empty. */
static int copy_text_column(json_t *crash, const char *key, json_t *row, const char *column)
{
	json_t *v = json_object_get(row, column);

	if (!json_is_string(v) || json_string_length(v) == 0)
		return 0;
	return json_object_set(crash, key, v) < 0 ? -ENOMEM : 0;
}

int upload_clickhouse_row_to_crash(json_t *row, json_t **ret)
{
	json_auto_t *crash = json_object(), *analysis = json_object(), *records = NULL;
	const char *records_text = json_string_value(json_object_get(row, "records"));
	json_int_t usec, archived_at;
	int r;

	if (!crash || !analysis)
		return -ENOMEM;
	if (!json_is_string(json_object_get(row, "crash_id")) ||
	    json_string_length(json_object_get(row, "crash_id")) == 0 ||
	    uint64_column(json_object_get(row, "time_usec"), &usec) < 0 ||
	    uint64_column(json_object_get(row, "archived_at"), &archived_at) < 0 || !records_text)
		return -EBADMSG;
	records = json_loads(records_text, 0, NULL);
	if (!json_is_array(records))
		return -EBADMSG;

	r = copy_text_column(crash, "machine_id", row, "machine_id");
	if (r >= 0)
		r = copy_text_column(crash, "hostname", row, "hostname");
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(text_columns); i++)
		r = copy_text_column(text_columns[i].in_analysis ? analysis : crash,
				     text_columns[i].key, row, text_columns[i].column);
	if (r < 0 || json_object_set_new(crash, "time", json_integer(usec)) < 0 ||
	    json_object_set_new(crash, "archived_at", json_integer(archived_at)) < 0 ||
	    json_object_set(crash, "records", records) < 0 ||
	    json_object_set(crash, "analysis", analysis) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(crash);
	return 0;
}

int upload_clickhouse_group_row(json_t *row, json_t **ret_newest, UploadClickhouseGroup *ret)
{
	json_t *kernels = json_object_get(row, "group_kernels"), *k;
	json_int_t crashes, machines, first;
	json_auto_t *newest = NULL;
	size_t i;
	int r;

	if (uint64_column(json_object_get(row, "group_crashes"), &crashes) < 0 ||
	    uint64_column(json_object_get(row, "group_machines"), &machines) < 0 ||
	    uint64_column(json_object_get(row, "group_first"), &first) < 0 ||
	    !json_is_array(kernels))
		return -EBADMSG;
	json_array_foreach(kernels, i, k)
		if (!json_is_string(k))
			return -EBADMSG;
	r = upload_clickhouse_row_to_crash(row, &newest);
	if (r < 0)
		return r;
	*ret_newest = TAKE_PTR(newest);
	*ret = (UploadClickhouseGroup){
		.crashes = (uint64_t)crashes,
		.machines = (uint64_t)machines,
		.first = (uint64_t)first,
		.kernels = kernels,
	};
	return 0;
}

bool upload_clickhouse_table_missing(long status, const char *body)
{
	static const char *const codes[] = {"Code: 60,", "Code: 60.", "Code: 81,", "Code: 81."};

	if (status == 404)
		return true;
	for (size_t i = 0; body && i < ARRAY_SIZE(codes); i++)
		if (strncmp(body, codes[i], strlen(codes[i])) == 0)
			return true;
	return false;
}
