// SPDX-License-Identifier: GPL-2.0-or-later
/* The ClickHouse row of a crash (clickhouse.h). */

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
#include "export-parse.h"
#include "macro.h"
#include "store/store.h"

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

/* crash.json's records, without the data that the export document adds to them. */
static char *records_metadata(json_t *records)
{
	json_auto_t *copy = records ? json_deep_copy(records) : json_array();
	json_t *record;
	size_t i;

	if (!copy)
		return NULL;
	json_array_foreach(copy, i, record) {
		(void)json_object_del(record, "data");
		(void)json_object_del(record, "data_omitted");
	}
	return json_dumps(copy, JSON_COMPACT | JSON_ENCODE_ANY);
}

int upload_clickhouse_row(json_t *doc, const char *hostname, const char *machine_id, json_t **ret)
{
	json_t *analysis = json_object_get(doc, "analysis");
	json_t *when = json_object_get(doc, "time");
	json_auto_t *row = NULL, *log = NULL;
	_cleanup_free_ char *records = NULL, *document = NULL;
	json_int_t usec;

	if (!json_is_string(json_object_get(doc, "id")))
		return -EBADMSG;
	if (!json_is_integer(when))
		when = json_object_get(doc, "archived_at");
	usec = MAX(json_integer_value(when), (json_int_t)0);

	/* The log has its column: the document goes without it. */
	log = json_incref(json_object_get(doc, "dmesg"));
	(void)json_object_del(doc, "dmesg");
	records = records_metadata(json_object_get(doc, "records"));
	document = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	if (log && json_object_set(doc, "dmesg", log) < 0)
		return -ENOMEM;
	if (!records || !document)
		return -ENOMEM;

	row = json_pack("{s:I, s:I, s:I, s:s, s:s}", "time", usec / 1000000, "time_usec", usec,
			"archived_at",
			MAX(json_integer_value(json_object_get(doc, "archived_at")), (json_int_t)0),
			"machine_id",
			json_string_value(json_object_get(doc, "machine_id")) ?: machine_id ?: "",
			"hostname", hostname ?: "");
	if (!row)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(text_columns); i++)
		if (json_object_set_new(row, text_columns[i].column,
					text_column(text_columns[i].in_analysis ? analysis : doc,
						    text_columns[i].key)) < 0)
			return -ENOMEM;
	if (add_frames(row, json_object_get(analysis, "frames")) < 0 ||
	    json_object_set_new(row, "dmesg",
				json_is_string(log) ? json_incref(log) : json_string("")) < 0 ||
	    json_object_set_new(row, "records", json_string(records)) < 0 ||
	    json_object_set_new(row, "document", json_string(document)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(row);
	return 0;
}

int upload_clickhouse_select_crash(const char *machine_id, const char *crash_id, char **ret)
{
	if ((*machine_id && !store_machine_id_is_valid(machine_id)) ||
	    !store_crash_id_is_valid(crash_id))
		return -EINVAL;
	if (asprintf(ret,
		     "SELECT crash_id, machine_id, hostname, dmesg, document "
		     "FROM pstored.crashes FINAL WHERE machine_id = '%s' AND crash_id = '%s' "
		     "LIMIT 1 FORMAT JSONEachRow\n",
		     machine_id, crash_id) < 0)
		return -ENOMEM;
	return 0;
}

int upload_clickhouse_read_line(FILE *rows, size_t max, char **buf, size_t *allocated,
				size_t *ret_len)
{
	size_t len = 0;
	bool over = false;
	int c;

	while ((c = getc(rows)) != EOF && c != '\n') {
		if (len >= max) {
			over = true;
			continue;
		}
		if (len + 1 >= *allocated) {
			size_t n = MIN(MAX(*allocated * 2, (size_t)4096), max + 1);
			char *b = realloc(*buf, n);

			if (!b)
				return -ENOMEM;
			*buf = b;
			*allocated = n;
		}
		(*buf)[len++] = (char)c;
	}
	if (ferror(rows))
		return -EIO;
	if (c == EOF && len == 0 && !over)
		return 0;
	if (over)
		return -E2BIG;
	if (!*buf && !(*buf = malloc(*allocated = 1)))
		return -ENOMEM;
	(*buf)[len] = '\0';
	*ret_len = len;
	return 1;
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

/* The row as a JSON object, whose key is pstored's: a crash id, and a machine id or "". */
static int parse_row(const char *line, size_t len, json_t **ret)
{
	json_auto_t *row = NULL;
	const char *machine_id;
	int r;

	r = upload_export_load_buffer(line, len, NULL, &row);
	if (r == -EINVAL)
		return -EBADMSG;
	if (r < 0)
		return r;
	machine_id = json_string_value(json_object_get(row, "machine_id"));
	if (!json_is_object(row) ||
	    !store_crash_id_is_valid(json_string_value(json_object_get(row, "crash_id"))) ||
	    !machine_id || (*machine_id && !store_machine_id_is_valid(machine_id)))
		return -EBADMSG;
	*ret = TAKE_PTR(row);
	return 0;
}

/* The crash.json of a row that parse_row() took, of the columns of UPLOAD_CLICKHOUSE_SELECT. */
static int row_to_crash(json_t *row, json_t **ret)
{
	json_auto_t *crash = json_object(), *analysis = json_object(), *records = NULL;
	const char *records_text;
	json_int_t usec, archived_at;
	int r;

	if (!crash || !analysis)
		return -ENOMEM;
	records_text = json_string_value(json_object_get(row, "records"));
	if (uint64_column(json_object_get(row, "time_usec"), &usec) < 0 ||
	    uint64_column(json_object_get(row, "archived_at"), &archived_at) < 0 || !records_text)
		return -EBADMSG;
	r = upload_export_load_buffer(
		records_text, json_string_length(json_object_get(row, "records")), NULL, &records);
	if (r == -EINVAL || (r >= 0 && !json_is_array(records)))
		return -EBADMSG;
	if (r < 0)
		return r;

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

int upload_clickhouse_row_to_crash(const char *line, size_t len, json_t **ret)
{
	json_auto_t *row = NULL;
	int r;

	r = parse_row(line, len, &row);
	if (r < 0)
		return r;
	return row_to_crash(row, ret);
}

int upload_clickhouse_group_row(const char *line, size_t len, json_t **ret_newest,
				UploadClickhouseGroup *ret)
{
	json_auto_t *row = NULL, *newest = NULL;
	json_int_t crashes, machines, first;
	json_t *kernels, *k;
	size_t i;
	int r;

	r = parse_row(line, len, &row);
	if (r < 0)
		return r;
	kernels = json_object_get(row, "group_kernels");
	if (uint64_column(json_object_get(row, "group_crashes"), &crashes) < 0 ||
	    uint64_column(json_object_get(row, "group_machines"), &machines) < 0 ||
	    uint64_column(json_object_get(row, "group_first"), &first) < 0 ||
	    !json_is_array(kernels))
		return -EBADMSG;
	json_array_foreach(kernels, i, k)
		if (!json_is_string(k))
			return -EBADMSG;
	r = row_to_crash(row, &newest);
	if (r < 0)
		return r;
	*ret_newest = TAKE_PTR(newest);
	*ret = (UploadClickhouseGroup){
		.crashes = (uint64_t)crashes,
		.machines = (uint64_t)machines,
		.first = (uint64_t)first,
		.kernels = json_incref(kernels),
	};
	return 0;
}

int upload_clickhouse_row_to_document(const char *line, size_t len, json_t **ret)
{
	json_auto_t *row = NULL, *doc = NULL;
	json_t *document, *log, *machine_id;
	int r;

	r = parse_row(line, len, &row);
	if (r < 0)
		return r;
	document = json_object_get(row, "document");
	log = json_object_get(row, "dmesg");
	if (!json_is_string(document) || (log && !json_is_string(log)))
		return -EBADMSG;
	r = upload_export_parse_buffer(json_string_value(document), json_string_length(document),
				       NULL, &doc);
	if (r == -EINVAL)
		return -EBADMSG;
	if (r < 0)
		return r;
	/* The document of another crash, or of another machine, is not this one's. */
	machine_id = json_object_get(doc, "machine_id");
	if (!json_equal(json_object_get(doc, "id"), json_object_get(row, "crash_id")) ||
	    (machine_id && !json_equal(machine_id, json_object_get(row, "machine_id"))))
		return -EBADMSG;
	if ((!machine_id && json_string_length(json_object_get(row, "machine_id")) > 0 &&
	     json_object_set(doc, "machine_id", json_object_get(row, "machine_id")) < 0) ||
	    copy_text_column(doc, "hostname", row, "hostname") < 0 ||
	    copy_text_column(doc, "dmesg", row, "dmesg") < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(doc);
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
