// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The uploader's pure parts: the journal export serializer (checked against
 * systemd's own reader in test-upload-journal.sh as well), the ClickHouse
 * row (against a real server in test-upload-clickhouse.sh as well), the
 * response rules, backoff, daily limits and URL templates.
 */
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
#include "upload/clickhouse.h"
#include "upload/journal-export.h"
#include "upload/policy.h"
#include "upload/url.h"

static char *export_fields(const char *const *pairs, size_t n, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i += 2)
		cr_assert_eq(upload_journal_write_string(f, pairs[i], pairs[i + 1]), 0);
	cr_assert_eq(upload_journal_end_entry(f), 0);
	cr_assert_eq(fclose(f), 0);
	*ret_len = len;
	return buf;
}

Test(journal_export, text_fields)
{
	const char *pairs[] = {"MESSAGE", "Kernel panic", "PRIORITY", "2", "EMPTY", ""};
	_cleanup_free_ char *buf = NULL;
	size_t len;

	buf = export_fields(pairs, ARRAY_SIZE(pairs), &len);
	cr_assert_eq(len, strlen("MESSAGE=Kernel panic\nPRIORITY=2\nEMPTY=\n\n"));
	cr_expect_eq(memcmp(buf, "MESSAGE=Kernel panic\nPRIORITY=2\nEMPTY=\n\n", len), 0);
}

Test(journal_export, newline_values_are_binary_safe)
{
	const char *pairs[] = {"PSTORE_DMESG", "line 1\nline 2\n"};
	static const char expected[] = "PSTORE_DMESG\n"
				       "\x0e\0\0\0\0\0\0\0"
				       "line 1\nline 2\n"
				       "\n\n";
	_cleanup_free_ char *buf = NULL;
	size_t len;

	buf = export_fields(pairs, ARRAY_SIZE(pairs), &len);
	cr_assert_eq(len, sizeof(expected) - 1);
	cr_expect_eq(memcmp(buf, expected, len), 0);
}

Test(journal_export, binary_value_with_nul)
{
	static const char value[] = {'a', '\0', '\n', 'b'};
	static const char expected[] = "DATA\n\x04\0\0\0\0\0\0\0a\0\nb\n";
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(upload_journal_write_field(f, "DATA", value, sizeof(value)), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(len, sizeof(expected) - 1);
	cr_expect_eq(memcmp(buf, expected, len), 0);
}

Test(journal_export, field_names)
{
	cr_expect(upload_journal_field_name_is_valid("MESSAGE"));
	cr_expect(upload_journal_field_name_is_valid("_HOSTNAME"));
	cr_expect(upload_journal_field_name_is_valid("__REALTIME_TIMESTAMP"));
	cr_expect(upload_journal_field_name_is_valid("A1"));
	cr_expect_not(upload_journal_field_name_is_valid(""));
	cr_expect_not(upload_journal_field_name_is_valid("1A"));
	cr_expect_not(upload_journal_field_name_is_valid("message"));
	cr_expect_not(upload_journal_field_name_is_valid("A=B"));
	cr_expect_not(upload_journal_field_name_is_valid(
		"A23456789012345678901234567890123456789012345678901234567890123456"));
	cr_expect_eq(upload_journal_write_string(stderr, "bad name", "x"), -EINVAL);
}

Test(upload_policy, outcomes)
{
	cr_expect_eq(upload_outcome_from_status(200, true), UPLOAD_SENT);
	cr_expect_eq(upload_outcome_from_status(201, true), UPLOAD_SENT);
	cr_expect_eq(upload_outcome_from_status(204, false), UPLOAD_SENT);
	cr_expect_eq(upload_outcome_from_status(409, true), UPLOAD_SENT);
	cr_expect_eq(upload_outcome_from_status(409, false), UPLOAD_FAILED);
	cr_expect_eq(upload_outcome_from_status(429, true), UPLOAD_THROTTLED);
	cr_expect_eq(upload_outcome_from_status(503, false), UPLOAD_THROTTLED);
	cr_expect_eq(upload_outcome_from_status(408, true), UPLOAD_RETRY);
	cr_expect_eq(upload_outcome_from_status(500, true), UPLOAD_RETRY);
	cr_expect_eq(upload_outcome_from_status(502, true), UPLOAD_RETRY);
	cr_expect_eq(upload_outcome_from_status(400, true), UPLOAD_FAILED);
	cr_expect_eq(upload_outcome_from_status(403, true), UPLOAD_FAILED);
	cr_expect_eq(upload_outcome_from_status(413, false), UPLOAD_FAILED);
	cr_expect_eq(upload_outcome_from_status(301, true), UPLOAD_RETRY);
	cr_expect_eq(upload_outcome_from_status(308, false), UPLOAD_RETRY);
	cr_expect_eq(upload_outcome_from_status(399, true), UPLOAD_RETRY);
	cr_expect_eq(upload_outcome_from_status(404, true), UPLOAD_FAILED);
}

Test(upload_policy, backoff_doubles_and_caps)
{
	cr_expect_eq(upload_backoff_usec(1), UPLOAD_BACKOFF_FIRST_USEC);
	cr_expect_eq(upload_backoff_usec(2), 2 * UPLOAD_BACKOFF_FIRST_USEC);
	cr_expect_eq(upload_backoff_usec(3), 4 * UPLOAD_BACKOFF_FIRST_USEC);
	cr_expect_eq(upload_backoff_usec(100), UPLOAD_BACKOFF_MAX_USEC);
	cr_expect_eq(upload_backoff_usec(UINT32_MAX), UPLOAD_BACKOFF_MAX_USEC);
	for (unsigned i = 1; i < 40; i++)
		cr_expect_leq(upload_backoff_usec(i), upload_backoff_usec(i + 1));
}

Test(upload_policy, retry_after_wins_over_backoff)
{
	cr_expect_eq(upload_next_attempt(1000, 1, 0), 1000 + UPLOAD_BACKOFF_FIRST_USEC);
	cr_expect_eq(upload_next_attempt(1000, 0, 0), 1000 + UPLOAD_BACKOFF_FIRST_USEC);
	cr_expect_eq(upload_next_attempt(1000, 5, 7 * USEC_PER_SEC), 1000 + 7 * USEC_PER_SEC);
	cr_expect_eq(upload_next_attempt(1000, 1, 10 * UPLOAD_QUOTA_WINDOW_USEC),
		     1000 + UPLOAD_QUOTA_WINDOW_USEC);
	cr_expect_eq(upload_next_attempt(1000, 1, UINT64_MAX), 1000 + UPLOAD_QUOTA_WINDOW_USEC);
}

Test(upload_policy, quota_counts_the_last_day)
{
	const uint64_t now = 10 * UPLOAD_QUOTA_WINDOW_USEC;
	UploadQuota q;

	upload_quota_init(&q, 2, 1000);
	upload_quota_count(&q, now, now - UPLOAD_QUOTA_WINDOW_USEC, 400); /* a day ago: out */
	upload_quota_count(&q, now, now + 60, 400);			  /* future: ignored */
	cr_expect_eq(q.crashes, 0);
	cr_expect(upload_quota_allows(&q, 1000));
	cr_expect_not(upload_quota_allows(&q, 1001));

	upload_quota_count(&q, now, now - 100, 600);
	cr_expect(upload_quota_allows(&q, 400));
	cr_expect_not(upload_quota_allows(&q, 401));
	cr_expect_eq(upload_quota_frees_at(&q), now - 100 + UPLOAD_QUOTA_WINDOW_USEC);

	upload_quota_count(&q, now, now - 200, 1);
	cr_expect_eq(q.crashes, 2);
	cr_expect_not(upload_quota_allows(&q, 1));
	cr_expect_eq(upload_quota_frees_at(&q), now - 200 + UPLOAD_QUOTA_WINDOW_USEC);
}

Test(upload_policy, quota_unlimited)
{
	UploadQuota q;

	upload_quota_init(&q, UINT64_MAX, UINT64_MAX);
	for (int i = 0; i < 1000; i++)
		upload_quota_count(&q, 5000, 4000, UINT64_MAX / 2000);
	cr_expect(upload_quota_allows(&q, UINT64_MAX));
	cr_expect_eq(upload_quota_frees_at(&q), 4000 + UPLOAD_QUOTA_WINDOW_USEC);
}

Test(upload_url, expand)
{
	UploadUrlValues v = {.id = "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
			     .hostname = "web 01/x",
			     .machine_id = "0123456789abcdef0123456789abcdef"};
	_cleanup_free_ char *url = NULL, *plain = NULL;
	char *bad = NULL;

	cr_assert_eq(
		upload_url_expand("https://c.example/{hostname}/{machine_id}/{id}.json", &v, &url),
		0);
	cr_expect_str_eq(url, "https://c.example/web%2001%2Fx/0123456789abcdef0123456789abcdef/"
			      "1b4e28ba-2fa1-11d2-883f-0016d3cca427.json");
	cr_assert_eq(upload_url_expand("http://h/upload", &v, &plain), 0);
	cr_expect_str_eq(plain, "http://h/upload");
	cr_expect_eq(upload_url_expand("http://h/{nope}", &v, &bad), -EINVAL);
	cr_expect_eq(upload_url_expand("http://h/{id", &v, &bad), -EINVAL);
	cr_expect_null(bad);
}

Test(upload_url, mask)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"https://user:secret@c.example/x?token=abc", "https://user:***@c.example/x"},
		{"https://tok3n@c.example:8443/x", "https://***@c.example:8443/x"},
		{"http://127.0.0.1:1234/upload", "http://127.0.0.1:1234/upload"},
		{"::not a url", "(invalid URL)"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *m = NULL;

		cr_assert_eq(upload_url_mask(cases[i].in, &m), 0);
		cr_expect_str_eq(m, cases[i].out);
	}
}

/* As systemd-journal-upload takes --url=: a port and /upload added where there is none. */
Test(upload_url, journal_remote)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"https://collector:19532", "https://collector:19532/upload"},
		{"https://collector:19532/", "https://collector:19532/upload"},
		{"https://collector", "https://collector:19532/upload"},
		{"http://10.0.0.1:8080", "http://10.0.0.1:8080/upload"},
		{"https://[fe80::1]:19532", "https://[fe80::1]:19532/upload"},
		/* A path says where the collector listens, behind a proxy for one. */
		{"https://proxy.example/journal/upload",
		 "https://proxy.example:19532/journal/upload"},
		{"https://collector:19532/upload", "https://collector:19532/upload"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *u = NULL;

		cr_assert_eq(upload_journal_remote_url(cases[i].in, &u), 0, "%s", cases[i].in);
		cr_expect_str_eq(u, cases[i].out);
	}
	cr_assert_eq(upload_journal_remote_url("::not a url", &(char *){NULL}), -EINVAL);
}

#define C1 "c1c1c1c1-0000-5000-8000-000000000001"
#define M1 "11111111111111111111111111111111"

/*
 * The row of a crash, whole, made of its export document: frames with and without offsets
 * and modules; the log in its own column, the records' data only in the document.
 */
Test(clickhouse_row, whole)
{
	json_auto_t *doc = NULL, *row = NULL, *document = NULL;
	_cleanup_free_ char *text = NULL, *document_text = NULL;

	doc = json_loads(
		"{\"export_version\": 1, \"id\": \"" C1 "\", \"kind\": \"kernel-crash\", "
		"\"reason\": \"oops\", \"time\": 1700000000123456, \"archived_at\": 1, "
		"\"boot_id\": \"b1\", \"dmesg\": \"<0>panic\\n\", "
		"\"records\": [{\"name\": \"dmesg-erst-1\", \"size\": 5, \"data\": \"cGFuaWM=\"}], "
		"\"analysis\": {\"message\": \"BUG: x\", \"function\": \"f\", \"module\": null, "
		"\"taint\": \"G\", \"signature\": \"s\", \"kernel_version\": \"6.1\", "
		"\"frames\": [{\"function\": \"f\", \"offset\": 26, \"size\": 144, "
		"\"module\": null}, {\"function\": \"g\", \"offset\": null, \"size\": null, "
		"\"module\": \"ext4\"}]}}",
		0, NULL);
	cr_assert_not_null(doc);
	cr_assert_eq(upload_clickhouse_row(doc, "h1", M1, &row), 0);
	/* The document is left as it was. */
	cr_assert_str_eq(json_string_value(json_object_get(doc, "dmesg")), "<0>panic\n");

	document = json_loads(json_string_value(json_object_get(row, "document")), 0, NULL);
	cr_assert_not_null(document);
	cr_assert_eq(json_object_set(document, "dmesg", json_object_get(doc, "dmesg")), 0);
	cr_assert(json_equal(document, doc), "the document column is not the document");
	cr_assert_eq(json_object_del(row, "document"), 0);
	text = json_dumps(row, JSON_COMPACT);
	cr_assert_str_eq(
		text,
		"{\"time\":1700000000,\"time_usec\":1700000000123456,\"archived_at\":1,"
		"\"machine_id\":\"" M1 "\",\"hostname\":\"h1\",\"crash_id\":\"" C1 "\","
		"\"boot_id\":\"b1\",\"kind\":\"kernel-crash\",\"reason\":\"oops\",\"backend\":\"\","
		"\"pstore_reason\":\"\",\"message\":\"BUG: x\",\"function\":\"f\",\"module\":\"\","
		"\"kernel\":\"6.1\",\"signature\":\"s\",\"taint\":\"G\",\"comm\":\"\","
		"\"frame_function\":[\"f\",\"g\"],\"frame_offset\":[26,-1],\"frame_size\":[144,-1],"
		"\"frame_module\":[\"\",\"ext4\"],\"dmesg\":\"<0>panic\\n\","
		"\"records\":\"[{\\\"name\\\":\\\"dmesg-erst-1\\\",\\\"size\\\":5}]\"}");
}

/* Without a time, the time it was archived; without an id, no row; without a log, "". */
Test(clickhouse_row, fallbacks)
{
	json_auto_t *doc = json_pack("{s:I}", "archived_at", (json_int_t)2500000);
	json_auto_t *row = NULL;

	cr_assert_eq(upload_clickhouse_row(doc, NULL, NULL, &row), -EBADMSG);
	cr_assert_eq(json_object_set_new(doc, "id", json_string("c2")), 0);
	cr_assert_eq(upload_clickhouse_row(doc, NULL, NULL, &row), 0);
	cr_assert_eq(json_integer_value(json_object_get(row, "time")), 2);
	cr_assert_eq(json_integer_value(json_object_get(row, "time_usec")), 2500000);
	cr_assert_str_eq(json_string_value(json_object_get(row, "dmesg")), "");
	cr_assert_str_eq(json_string_value(json_object_get(row, "records")), "[]");
	cr_assert_eq(json_array_size(json_object_get(row, "frame_function")), 0);
}

/* As ClickHouse writes a row of the listing: the 64-bit integers quoted. */
#define LIST_ROW(crash_id, machine_id, time_usec, records)                                         \
	"{\"crash_id\":\"" crash_id "\",\"machine_id\":\"" machine_id "\",\"hostname\":\"h1\","    \
	"\"boot_id\":\"\",\"kind\":\"kernel-crash\",\"reason\":\"oops\","                          \
	"\"backend\":\"erst\",\"pstore_reason\":\"Oops\","                                         \
	"\"time_usec\":" time_usec ",\"archived_at\":\"1700000001000000\","                        \
	"\"message\":\"BUG: x\",\"function\":\"f\",\"module\":\"\",\"kernel\":\"6.1\","            \
	"\"signature\":\"s\",\"taint\":\"\",\"comm\":\"sh\",\"records\":" records "}"

/* What "pstorectl --clickhouse=" lists: the row's columns as crash.json's keys. */
Test(clickhouse_row, read_back)
{
	const char *row = LIST_ROW(C1, M1, "\"1700000000123456\"",
				   "\"[{\\\"name\\\":\\\"dmesg-erst-1\\\"}]\"");
	json_auto_t *crash = NULL;
	_cleanup_free_ char *text = NULL;

	cr_assert_eq(upload_clickhouse_row_to_crash(row, strlen(row), &crash), 0);
	text = json_dumps(crash, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(text,
			 "{\"analysis\":{\"comm\":\"sh\",\"function\":\"f\","
			 "\"kernel_version\":\"6.1\",\"message\":\"BUG: x\",\"signature\":\"s\"},"
			 "\"archived_at\":1700000001000000,\"backend\":\"erst\",\"hostname\":"
			 "\"h1\",\"id\":\"" C1 "\",\"kind\":\"kernel-crash\",\"machine_id\":\"" M1
			 "\",\"pstore_reason\":\"Oops\",\"reason\":\"oops\",\"records\":[{\"name\":"
			 "\"dmesg-erst-1\"}],\"time\":1700000000123456}");
}

/* A row of the groups ClickHouse counts: the newest crash, and the counts. */
Test(clickhouse_row, group_row)
{
	const char *row = "{\"crash_id\":\"" C1 "\",\"machine_id\":\"" M1 "\",\"hostname\":\"h1\","
			  "\"kind\":\"kernel-crash\",\"time_usec\":\"1700000000123456\","
			  "\"archived_at\":\"1700000001000000\",\"signature\":\"s\","
			  "\"records\":\"[]\",\"group_crashes\":\"12\",\"group_machines\":\"3\","
			  "\"group_first\":\"1600000000000000\","
			  "\"group_kernels\":[\"6.1.0-17-amd64\",\"6.1.0-18-amd64\"]}";
	json_auto_t *newest = NULL;
	_cleanup_free_ char *text = NULL;
	UploadClickhouseGroup g;

	cr_assert_eq(upload_clickhouse_group_row(row, strlen(row), &newest, &g), 0);
	text = json_dumps(newest, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(text,
			 "{\"analysis\":{\"signature\":\"s\"},\"archived_at\":1700000001000000,"
			 "\"hostname\":\"h1\",\"id\":\"" C1 "\",\"kind\":\"kernel-crash\","
			 "\"machine_id\":\"" M1 "\",\"records\":[],\"time\":1700000000123456}");
	cr_assert_eq(g.crashes, 12);
	cr_assert_eq(g.machines, 3);
	cr_assert_eq(g.first, 1600000000000000);
	cr_assert_eq(json_array_size(g.kernels), 2);
	json_decref(g.kernels);
}

/* Not group rows: a count that is no number, kernels that are not strings, no crash. */
Test(clickhouse_row, hostile_group_rows)
{
#define CRASH                                                                                      \
	"\"crash_id\":\"" C1 "\",\"machine_id\":\"\",\"time_usec\":1,\"archived_at\":1,"           \
	"\"records\":\"[]\""
	const char *const hostile[] = {
		"{" CRASH ",\"group_machines\":1,\"group_first\":1,\"group_kernels\":[]}",
		"{" CRASH ",\"group_crashes\":\"-1\",\"group_machines\":1,\"group_first\":1,"
		"\"group_kernels\":[]}",
		"{" CRASH ",\"group_crashes\":1,\"group_machines\":\"x\",\"group_first\":1,"
		"\"group_kernels\":[]}",
		"{" CRASH ",\"group_crashes\":1,\"group_machines\":1,\"group_kernels\":[]}",
		"{" CRASH ",\"group_crashes\":1,\"group_machines\":1,\"group_first\":1,"
		"\"group_kernels\":\"6.1\"}",
		"{" CRASH ",\"group_crashes\":1,\"group_machines\":1,\"group_first\":1,"
		"\"group_kernels\":[1]}",
		"{\"group_crashes\":1,\"group_machines\":1,\"group_first\":1,\"group_kernels\":[]}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		json_t *newest = NULL;
		UploadClickhouseGroup g = {};

		cr_assert_eq(
			upload_clickhouse_group_row(hostile[i], strlen(hostile[i]), &newest, &g),
			-EBADMSG, "%s", hostile[i]);
		cr_assert_null(newest);
		cr_assert_null(g.kernels);
	}
#undef CRASH
}

/*
 * Not rows of ours: no id, an id or machine id that is none (they go into the query of one
 * crash), a time that is no number or too big, records not an array, not JSON, not an object.
 */
Test(clickhouse_row, hostile_rows)
{
	const char *const hostile[] = {
		"{\"time_usec\":1,\"archived_at\":1,\"records\":\"[]\",\"machine_id\":\"\"}",
		LIST_ROW("", M1, "1", "\"[]\""),
		LIST_ROW("c1", M1, "1", "\"[]\""),
		LIST_ROW(C1 "' OR '1", M1, "1", "\"[]\""),
		LIST_ROW(C1, "m1", "1", "\"[]\""),
		LIST_ROW(C1, "' OR 1 = 1 --", "1", "\"[]\""),
		LIST_ROW(C1, M1, "\"-1\"", "\"[]\""),
		LIST_ROW(C1, M1, "\"1x\"", "\"[]\""),
		LIST_ROW(C1, M1, "\"18446744073709551615\"", "\"[]\""),
		LIST_ROW(C1, M1, "null", "\"[]\""),
		LIST_ROW(C1, M1, "1", "\"{}\""),
		LIST_ROW(C1, M1, "1", "\"[\""),
		LIST_ROW(C1, M1, "1", "[]"),
		"{\"crash_id\":\"" C1 "\",\"machine_id\":\"\",\"time_usec\":1,\"archived_at\":1}",
		"[]",
		"{\"crash_id\":",
		"",
	};

	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		json_t *crash = NULL;

		cr_assert_eq(upload_clickhouse_row_to_crash(hostile[i], strlen(hostile[i]), &crash),
			     -EBADMSG, "%s", hostile[i]);
		cr_assert_null(crash);
	}
}

/* As ClickHouse writes the row of one crash. */
#define CRASH_ROW(crash_id, machine_id, dmesg, document)                                           \
	"{\"crash_id\":\"" crash_id "\",\"machine_id\":\"" machine_id "\",\"hostname\":\"h1\","    \
	"\"dmesg\":" dmesg ",\"document\":" document "}"

/* What show, dmesg and export read: the document, with the host name and the log of the row. */
Test(clickhouse_row, document)
{
	const char *row = CRASH_ROW(C1, M1, "\"<0>panic\\n\"",
				    "\"{\\\"export_version\\\":1,\\\"id\\\":\\\"" C1 "\\\"}\"");
	const char *hostile[] = {
		/* The document of another crash, or of another machine. */
		CRASH_ROW(C1, M1, "\"\"",
			  "\"{\\\"export_version\\\":1,\\\"id\\\":"
			  "\\\"c1c1c1c1-0000-5000-8000-000000000002\\\"}\""),
		CRASH_ROW(C1, M1, "\"\"",
			  "\"{\\\"export_version\\\":1,\\\"id\\\":\\\"" C1 "\\\","
			  "\\\"machine_id\\\":\\\"22222222222222222222222222222222\\\"}\""),
		/* Not a document, no document, a log that is no text. */
		CRASH_ROW(C1, M1, "\"\"", "\"{\\\"id\\\":\\\"" C1 "\\\"}\""),
		CRASH_ROW(C1, M1, "\"\"", "\"{\""),
		CRASH_ROW(C1, M1, "\"\"", "null"),
		CRASH_ROW(C1, M1, "1", "\"{\\\"export_version\\\":1,\\\"id\\\":\\\"" C1 "\\\"}\""),
		CRASH_ROW("c1", M1, "\"\"", "\"{\\\"export_version\\\":1,\\\"id\\\":\\\"c1\\\"}\""),
	};
	json_auto_t *doc = NULL;
	_cleanup_free_ char *text = NULL;

	cr_assert_eq(upload_clickhouse_row_to_document(row, strlen(row), &doc), 0);
	text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	cr_assert_str_eq(text,
			 "{\"dmesg\":\"<0>panic\\n\",\"export_version\":1,\"hostname\":\"h1\","
			 "\"id\":\"" C1 "\",\"machine_id\":\"" M1 "\"}");
	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		json_t *d = NULL;

		cr_assert_eq(upload_clickhouse_row_to_document(hostile[i], strlen(hostile[i]), &d),
			     -EBADMSG, "%s", hostile[i]);
		cr_assert_null(d);
	}
}

/* Lines past the bound are read past, whole, and never kept; the next one is read. */
Test(clickhouse_row, read_line)
{
	char input[] = "short\n0123456789\n\nlast";
	const char *expected[] = {"short", NULL, "", "last"};
	FILE *f = fmemopen(input, strlen(input), "r");
	_cleanup_free_ char *line = NULL;
	size_t allocated = 0, len;

	cr_assert_not_null(f);
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
		int r = upload_clickhouse_read_line(f, 8, &line, &allocated, &len);

		if (!expected[i]) {
			cr_assert_eq(r, -E2BIG);
			continue;
		}
		cr_assert_eq(r, 1);
		cr_assert_eq(len, strlen(expected[i]));
		cr_assert_str_eq(line, expected[i]);
		cr_assert_leq(allocated, 9);
	}
	cr_assert_eq(upload_clickhouse_read_line(f, 8, &line, &allocated, &len), 0);
	fclose(f);
}

/* The query of one crash takes only ids of pstored. */
Test(clickhouse_row, select_crash)
{
	_cleanup_free_ char *q = NULL;

	cr_assert_eq(upload_clickhouse_select_crash(M1, C1, &q), 0);
	cr_assert_str_eq(q, "SELECT crash_id, machine_id, hostname, dmesg, document "
			    "FROM pstored.crashes FINAL WHERE machine_id = '" M1 "' AND "
			    "crash_id = '" C1 "' LIMIT 1 FORMAT JSONEachRow\n");
	free(TAKE_PTR(q));
	cr_assert_eq(upload_clickhouse_select_crash("", C1, &q), 0);
	cr_assert_eq(upload_clickhouse_select_crash("' OR 1 = 1 --", C1, &(char *){NULL}), -EINVAL);
	cr_assert_eq(upload_clickhouse_select_crash(M1, C1 "'", &(char *){NULL}), -EINVAL);
}
