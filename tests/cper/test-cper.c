// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Record level tests: header round trip, the three timestamp encodings, the
 * Linux pstore sections, struct mce, and malformed input of every kind.
 */

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>

#include "case-dirs.h"
#include "cper-builder.h"
#include "cper.h"
#include "fs-util.h"
#include "macro.h"
#include "zlib-util.h"

static uint8_t buf[64 * 1024];

static json_t *decode_ok(const void *p, size_t len)
{
	json_t *doc = NULL;

	cr_assert_eq(cper_decode_json(p, len, &doc), 0);
	cr_assert_not_null(doc);
	cr_assert_eq(json_integer_value(json_object_get(doc, "schema_version")), 1);
	return doc;
}

static size_t n_errors(const json_t *doc)
{
	return json_array_size(json_object_get(doc, "errors"));
}

static const char *errors_str(const json_t *doc)
{
	static char s[4096];
	char *d = json_dumps(json_object_get(doc, "errors"), JSON_COMPACT);
	snprintf(s, sizeof(s), "%s", d ? d : "?");
	free(d);
	return s;
}

static const char *sget(const json_t *o, const char *path)
{
	const char *s = json_string_value(json_object_get(o, path));
	cr_assert_not_null(s, "missing string '%s'", path);
	return s;
}

static json_t *record0(const json_t *doc)
{
	json_t *r = json_array_get(json_object_get(doc, "records"), 0);
	cr_assert_not_null(r);
	return r;
}

static json_t *section(const json_t *rec, size_t i)
{
	json_t *s = json_array_get(json_object_get(rec, "sections"), i);
	cr_assert_not_null(s);
	return s;
}

Test(cper, header_round_trip)
{
	static const uint8_t body[16] = {1, 2, 3};
	CperSectionSpec sec = {
		.type = "01234567-89ab-cdef-0123-456789abcdef",
		.severity = 2,
		.flags = 0x21,
		.validation = 0x3,
		.fru_id = "11111111-2222-3333-4444-555555555555",
		.fru_text = "DIMM_A1",
		.body = body,
		.body_len = sizeof(body),
	};
	CperRecordSpec rec = {
		.severity = 2,
		.validation = 0x7,
		.platform_id = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
		.partition_id = "12345678-1234-5678-9abc-def012345678",
		.creator_id = GUID_CREATOR_WHEA,
		.notification_type = GUID_NOTIFY_CMC,
		.record_id = UINT64_C(0x8000000012345678),
		.flags = 0x5,
		.persistence = UINT64_C(0x5245),
		.n_sections = 1,
		.sections = &sec,
	};
	timestamp_bcd(rec.timestamp, 2024, 2, 29, 23, 59, 58, 1);
	size_t len = cper_build_record(&rec, buf, sizeof(buf));
	cr_assert(cper_looks_like_record(buf, len));

	json_auto_t *doc = decode_ok(buf, len);
	cr_assert_eq(n_errors(doc), 0, "%s", errors_str(doc));
	json_t *r = record0(doc);
	cr_assert_eq(json_integer_value(json_object_get(r, "offset")), 0);
	cr_assert_eq(json_integer_value(json_object_get(r, "length")), (json_int_t)len);
	cr_assert_str_eq(sget(r, "revision"), "1.0");
	cr_assert_str_eq(sget(r, "severity"), "corrected");
	cr_assert_eq(json_integer_value(json_object_get(r, "section_count")), 1);
	cr_assert_str_eq(sget(r, "platform_id"), "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
	cr_assert_str_eq(sget(r, "partition_id"), "12345678-1234-5678-9abc-def012345678");
	cr_assert_str_eq(sget(r, "creator_id"), GUID_CREATOR_WHEA);
	cr_assert_str_eq(sget(r, "creator_id_name"), "Microsoft WHEA");
	cr_assert_str_eq(sget(r, "notification_type"), GUID_NOTIFY_CMC);
	cr_assert_str_eq(sget(r, "notification_type_name"), "CMC");
	cr_assert_str_eq(sget(r, "record_id"), "9223372037160195704");
	cr_assert_str_eq(sget(r, "flags"), "0x00000005");
	json_t *fl = json_object_get(r, "flags_names");
	cr_assert_eq(json_array_size(fl), 2);
	cr_assert_str_eq(json_string_value(json_array_get(fl, 0)), "recovered");
	cr_assert_str_eq(json_string_value(json_array_get(fl, 1)), "simulated");
	cr_assert_str_eq(sget(r, "persistence_information"), "0x0000000000005245");

	json_t *ts = json_object_get(r, "timestamp");
	cr_assert_str_eq(sget(ts, "encoding"), "bcd");
	cr_assert_str_eq(sget(ts, "time"), "2024-02-29 23:59:58");
	cr_assert(json_is_true(json_object_get(ts, "precise")));

	json_t *s = section(r, 0);
	cr_assert_eq(json_integer_value(json_object_get(s, "offset")), 200);
	cr_assert_eq(json_integer_value(json_object_get(s, "length")), 16);
	cr_assert_str_eq(sget(s, "severity"), "corrected");
	cr_assert_str_eq(sget(s, "fru_id"), "11111111-2222-3333-4444-555555555555");
	cr_assert_str_eq(sget(s, "fru_text"), "DIMM_A1");
	cr_assert_str_eq(sget(s, "flags"), "0x00000021");
	json_t *sf = json_object_get(s, "flags_names");
	cr_assert_str_eq(json_string_value(json_array_get(sf, 0)), "primary");
	cr_assert_str_eq(json_string_value(json_array_get(sf, 1)), "latent_error");
	/* Unknown section: GUID, length and a dump, never dropped. */
	cr_assert_str_eq(sget(s, "section_type"), "01234567-89ab-cdef-0123-456789abcdef");
	cr_assert_str_eq(sget(s, "section_type_name"), "unknown");
	cr_assert_str_eq(sget(json_object_get(s, "body"), "data_dump"),
			 "01020300000000000000000000000000");
}

Test(cper, header_validation_bits_clear)
{
	CperSectionSpec sec = {
		.type = GUID_DMESG, .fru_text = "ignored", .body = "x", .body_len = 1};
	CperRecordSpec rec = {.n_sections = 1, .sections = &sec};
	timestamp_bcd(rec.timestamp, 2024, 1, 1, 0, 0, 0, 0);
	rec.platform_id = rec.partition_id = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
	size_t len = cper_build_record(&rec, buf, sizeof(buf));

	json_auto_t *doc = decode_ok(buf, len);
	cr_assert_eq(n_errors(doc), 0, "%s", errors_str(doc));
	json_t *r = record0(doc);
	cr_assert_null(json_object_get(r, "timestamp"));
	cr_assert_null(json_object_get(r, "platform_id"));
	cr_assert_null(json_object_get(r, "partition_id"));
	cr_assert_str_eq(sget(r, "severity"), "recoverable");
	json_t *s = section(r, 0);
	cr_assert_null(json_object_get(s, "fru_id"));
	cr_assert_null(json_object_get(s, "fru_text"));
}

static json_t *timestamp_of(const uint8_t t[8], json_t **ret_doc)
{
	CperRecordSpec rec = {.validation = 0x2};
	memcpy(rec.timestamp, t, 8);
	size_t len = cper_build_record(&rec, buf, sizeof(buf));
	*ret_doc = decode_ok(buf, len);
	return json_object_get(record0(*ret_doc), "timestamp");
}

Test(cper, timestamp_encodings)
{
	uint8_t t[8];
	json_t *doc, *ts;

	timestamp_bcd(t, 2019, 12, 31, 8, 30, 5, 0);
	ts = timestamp_of(t, &doc);
	cr_assert_str_eq(sget(ts, "encoding"), "bcd");
	cr_assert_str_eq(sget(ts, "time"), "2019-12-31 08:30:05");
	cr_assert(json_is_false(json_object_get(ts, "precise")));
	json_decref(doc);

	/* Windows WHEA: binary bytes; century 20 is 0x14, which BCD would read as 14. */
	timestamp_binary(t, 2023, 7, 14, 17, 45, 59, 1);
	ts = timestamp_of(t, &doc);
	cr_assert_str_eq(sget(ts, "encoding"), "binary");
	cr_assert_str_eq(sget(ts, "time"), "2023-07-14 17:45:59");
	cr_assert(json_is_true(json_object_get(ts, "precise")));
	json_decref(doc);

	/* Values below 10 read the same in BCD and binary; the century decides. */
	timestamp_binary(t, 2001, 2, 3, 4, 5, 6, 0);
	ts = timestamp_of(t, &doc);
	cr_assert_str_eq(sget(ts, "encoding"), "binary");
	cr_assert_str_eq(sget(ts, "time"), "2001-02-03 04:05:06");
	json_decref(doc);

	/* Linux pstore: u64 Unix seconds. */
	timestamp_unix(t, 1700000000);
	ts = timestamp_of(t, &doc);
	cr_assert_str_eq(sget(ts, "encoding"), "unix_seconds");
	cr_assert_str_eq(sget(ts, "time"), "2023-11-14 22:13:20 UTC");
	cr_assert_eq(json_integer_value(json_object_get(ts, "unix_seconds")), 1700000000);
	json_decref(doc);

	/* Garbage: a note, never printed as a date; the record is decoded all the same. */
	const uint8_t junk[8] = {0x99, 0x99, 0x99, 0, 0x99, 0x99, 0x99, 0x99};
	ts = timestamp_of(junk, &doc);
	cr_assert_str_eq(sget(ts, "encoding"), "unknown");
	cr_assert_null(json_object_get(ts, "time"));
	cr_assert_eq(n_errors(doc), 0, "%s", errors_str(doc));
	json_t *notes = json_object_get(record0(doc), "notes");
	cr_assert_eq(json_array_size(notes), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(notes, 0), "offset")), 24);
	json_decref(doc);
}

static const char panic_log[] = "Panic#1 Part1\n<0>[   12.345678] Kernel panic - not syncing: "
				"sysrq triggered crash\n<4>[   12.345700] CPU: 0 PID: 1 Comm: sh\n";

Test(cper, linux_pstore_dmesg)
{
	size_t len = cper_build_pstore_record(GUID_DMESG, panic_log, strlen(panic_log), 1700000000,
					      UINT64_C(7301419813404409857), buf, sizeof(buf));
	cr_assert_eq(len, 200 + strlen(panic_log));
	json_auto_t *doc = decode_ok(buf, len);
	cr_assert_eq(n_errors(doc), 0, "%s", errors_str(doc));
	json_t *r = record0(doc);
	cr_assert_str_eq(sget(r, "severity"), "fatal");
	cr_assert_str_eq(sget(r, "creator_id_name"), "Linux pstore/MCE");
	cr_assert_str_eq(sget(r, "record_id"), "7301419813404409857");
	cr_assert_str_eq(sget(json_object_get(r, "timestamp"), "encoding"), "unix_seconds");
	json_t *s = section(r, 0);
	cr_assert_str_eq(sget(s, "section_type_name"), "Linux pstore dmesg");
	cr_assert_str_eq(sget(json_object_get(s, "body"), "text"), panic_log);
}

Test(cper, linux_pstore_dmesg_compressed)
{
	uint8_t z[1024];
	ssize_t zlen = zlib_deflate_buffer(panic_log, strlen(panic_log), -15, z, sizeof(z));
	cr_assert_gt(zlen, 0);
	size_t len = cper_build_pstore_record(GUID_DMESG_Z, z, (size_t)zlen, 1700000000, 1, buf,
					      sizeof(buf));

	json_auto_t *doc = decode_ok(buf, len);
	cr_assert_eq(n_errors(doc), 0, "%s", errors_str(doc));
	json_t *body = json_object_get(section(record0(doc), 0), "body");
	cr_assert_str_eq(sget(body, "text"), panic_log);
	cr_assert_eq(json_integer_value(json_object_get(body, "compressed_length")),
		     (json_int_t)zlen);

	/* Corrupt deflate data: an error and a dump, the record still decoded. */
	buf[200] ^= 0xff;
	buf[201] ^= 0xff;
	json_auto_t *bad = decode_ok(buf, len);
	cr_assert_eq(n_errors(bad), 1, "%s", errors_str(bad));
	cr_assert_not_null(
		json_object_get(json_object_get(section(record0(bad), 0), "body"), "data_dump"));
}

/* Sums the inflated text of a document's sections. */
static size_t text_bytes(const json_t *doc)
{
	const json_t *s;
	size_t i, n = 0;

	json_array_foreach(json_object_get(record0(doc), "sections"), i, s)
		n += strlen(json_string_value(json_object_get(json_object_get(s, "body"), "text"))
				    ?: "");
	return n;
}

/*
 * 20 section descriptors that all point at one blob inflating to 1 MiB: the
 * budget bounds what the record decodes in total, not per section.
 */
Test(cper, shared_blob_within_budget)
{
	static uint8_t log[1 << 20], z[8192], big[32768];
	CperSectionSpec secs[20];
	CperRecordSpec spec = {.severity = 1,
			       .creator_id = GUID_CREATOR_LINUX,
			       .n_sections = 20,
			       .sections = secs};
	size_t len, first;
	ssize_t zlen;

	memset(log, 'x', sizeof(log));
	zlen = zlib_deflate_buffer(log, sizeof(log), -15, z, sizeof(z));
	cr_assert_gt(zlen, 0);
	for (size_t i = 0; i < ARRAY_SIZE(secs); i++)
		secs[i] = (CperSectionSpec){
			.type = GUID_DMESG_Z, .body = z, .body_len = (size_t)zlen};
	len = cper_build_record(&spec, big, sizeof(big));
	cr_assert_gt(len, 0);
	/* Every descriptor at the first section's bytes. */
	first = big[128] | (size_t)big[129] << 8;
	for (size_t i = 1; i < ARRAY_SIZE(secs); i++)
		put_le(big + 128 + 72 * i, first, 4);

	json_auto_t *doc = NULL;
	cr_assert_eq(cper_decode_json_budget(big, len, 3 << 20, &doc), 1);
	cr_assert_leq(text_bytes(doc), 3 << 20);
	cr_assert_gt(text_bytes(doc), 2 << 20);
	cr_assert_not_null(strstr(errors_str(doc), "decoding budget"), "%s", errors_str(doc));

	/* The default budget holds less than 16 sections' worth, not 20. */
	json_auto_t *dflt = decode_ok(big, len);
	cr_assert_lt(text_bytes(dflt), CPER_DECODE_BUDGET);
	cr_assert_gt(text_bytes(dflt), CPER_DECODE_BUDGET - (1 << 20));

	/* Within budget: all of it, and 0. */
	json_auto_t *all = NULL;
	cr_assert_eq(cper_decode_json_budget(big, len, 32 << 20, &all), 0);
	cr_assert_eq(text_bytes(all), 20 << 20);
}

Test(cper, dmesg_invalid_utf8_is_replaced)
{
	const char log[] = "ok \xff\xfe end\0\0";
	size_t len =
		cper_build_pstore_record(GUID_DMESG, log, sizeof(log) - 1, 1, 1, buf, sizeof(buf));
	json_auto_t *doc = decode_ok(buf, len);
	cr_assert_str_eq(sget(json_object_get(section(record0(doc), 0), "body"), "text"),
			 "ok \xef\xbf\xbd\xef\xbf\xbd end");
}

/* A struct mce as the kernel of 5.8+ lays it out (128 bytes). */
static void build_mce(uint8_t m[128], uint64_t status)
{
	memset(m, 0, 128);
	put_le(m + 0, status, 8);
	put_le(m + 8, 0x86, 8);		       /* misc */
	put_le(m + 16, 0x12345000, 8);	       /* addr */
	put_le(m + 24, 0x5, 8);		       /* mcgstatus: RIPV, MCIP */
	put_le(m + 32, 0xffffffff81000000, 8); /* ip */
	put_le(m + 40, 123456789, 8);	       /* tsc */
	put_le(m + 48, 1700000000, 8);	       /* time */
	m[56] = 0;			       /* Intel */
	put_le(m + 60, 0x000306c3, 4);	       /* cpuid: family 6 model 0x3c */
	m[64] = 0x10;			       /* cs */
	m[65] = 4;			       /* bank */
	put_le(m + 68, 2, 4);		       /* extcpu */
	put_le(m + 72, 1, 4);		       /* socketid */
	put_le(m + 76, 0x22, 4);	       /* apicid */
	put_le(m + 80, 0x1c09, 8);	       /* mcgcap */
	put_le(m + 112, 0x28, 4);	       /* microcode */
}

Test(cper, mce_severity)
{
	static const struct {
		uint64_t status;
		const char *severity;
	} cases[] = {
		{0, "informational"},
		{UINT64_C(0x3e00000000800092), "informational"}, /* UC PCC, but not VAL */
		{UINT64_C(0x8c00004000010090), "corrected"},
		{UINT64_C(0xbd80000000100134), "recoverable"}, /* UC S AR, no PCC */
		{UINT64_C(0xbe00000000800092) | (UINT64_C(1) << 61), "fatal"},
	};
	uint8_t m[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		build_mce(m, cases[i].status);
		cr_assert_str_eq(cper_mce_severity(m, sizeof(m)), cases[i].severity,
				 "status 0x%016" PRIx64, cases[i].status);
	}
	cr_assert_str_eq(cper_mce_severity(m, 8), "fatal", "MCi_STATUS alone is enough");
	cr_assert_null(cper_mce_severity(m, 7));
	cr_assert_null(cper_mce_severity(NULL, 0));
}

Test(cper, mce_raw)
{
	uint8_t m[128];
	/* VAL UC EN MISCV ADDRV PCC, memory controller read error on channel 2 */
	build_mce(m, UINT64_C(0xbe00000000800092) | (UINT64_C(1) << 61));
	json_auto_t *doc = NULL;
	cr_assert_eq(cper_mce_decode_json(m, sizeof(m), &doc), 0);
	cr_assert_eq(json_array_size(json_object_get(doc, "errors")), 0);
	json_t *mce = json_object_get(doc, "mce");
	cr_assert_str_eq(sget(mce, "status"), "0xbe00000000800092");
	json_t *names = json_object_get(mce, "status_names");
	char *s = json_dumps(names, JSON_COMPACT);
	cr_assert_str_eq(s, "[\"PCC\",\"ADDRV\",\"MISCV\",\"EN\",\"UC\",\"VAL\"]");
	free(s);
	cr_assert_eq(json_integer_value(json_object_get(mce, "bank")), 4);
	cr_assert_str_eq(sget(mce, "addr"), "0x0000000012345000");
	cr_assert_str_eq(sget(mce, "misc"), "0x0000000000000086");
	cr_assert_str_eq(sget(mce, "cpuvendor_name"), "Intel");
	cr_assert_eq(json_integer_value(json_object_get(mce, "family")), 6);
	cr_assert_eq(json_integer_value(json_object_get(mce, "model")), 0x3c);
	cr_assert_eq(json_integer_value(json_object_get(mce, "extcpu")), 2);
	cr_assert_eq(json_integer_value(json_object_get(mce, "socketid")), 1);
	cr_assert_str_eq(sget(mce, "apicid"), "0x00000022");
	cr_assert_str_eq(sget(mce, "time_utc"), "2023-11-14 22:13:20 UTC");
	cr_assert_str_eq(sget(mce, "microcode"), "0x00000028");
	json_t *mca = json_object_get(mce, "mca_error");
	cr_assert_str_eq(sget(mca, "class"), "memory controller");
	cr_assert_str_eq(sget(mca, "request"), "memory read error");
	cr_assert_eq(json_integer_value(json_object_get(mca, "channel")), 2);
	cr_assert_str_eq(sget(mce, "model_specific_error_code"), "0x0080");
}

Test(cper, mce_summary)
{
	uint8_t m[128];
	json_auto_t *doc = NULL, *corrected = NULL;
	_cleanup_free_ char *s = NULL, *c = NULL;

	/* VAL UC EN ADDRV PCC, memory controller read error */
	build_mce(m, UINT64_C(0xb60000000000009f));
	cr_assert_eq(cper_mce_decode_json(m, sizeof(m), &doc), 0);
	cr_assert_eq(cper_summary(doc, &s), 0);
	cr_assert_str_eq(s, "Uncorrected machine check on CPU 2, bank 4: memory controller, memory "
			    "read error, processor context corrupt, address 0x0000000012345000");

	build_mce(m, UINT64_C(0x9000000000000135));
	cr_assert_eq(cper_mce_decode_json(m, sizeof(m), &corrected), 0);
	cr_assert_eq(cper_summary(corrected, &c), 0);
	cr_assert_str_eq(c, "Corrected machine check on CPU 2, bank 4: cache, data read");
}

Test(cper, mce_addr_misc_absent_without_status_bits)
{
	uint8_t m[128];
	/* VAL EN, corrected cache error: data read, L1 data */
	build_mce(m, UINT64_C(0x9000000000000135));
	json_auto_t *doc = NULL;
	cr_assert_eq(cper_mce_decode_json(m, sizeof(m), &doc), 0);
	json_t *mce = json_object_get(doc, "mce");
	cr_assert_null(json_object_get(mce, "addr"));
	cr_assert_null(json_object_get(mce, "misc"));
	json_t *mca = json_object_get(mce, "mca_error");
	cr_assert_str_eq(sget(mca, "class"), "cache");
	cr_assert_str_eq(sget(mca, "request"), "data read");
	cr_assert_str_eq(sget(mca, "transaction_type"), "data");
	cr_assert_str_eq(sget(mca, "level"), "L1");
}

Test(cper, mce_classes)
{
	static const struct {
		uint16_t code;
		const char *cls;
	} cases[] = {
		{0x0000, "no error"},
		{0x0005, "internal parity error"},
		{0x0400, "internal timer error"},
		{0x0401, "internal unclassified"},
		{0x0e0b, "I/O error"},
		{0x000f, "generic cache hierarchy"},
		{0x0014, "TLB"},
		{0x1014, "TLB"},
		{0x009f, "memory controller"},
		{0x0176, "cache"},
		{0x0e0f, "bus/interconnect"},
		{0x0008, "unknown"},
	};
	uint8_t m[128];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		build_mce(m, UINT64_C(0x8000000000000000) | cases[i].code);
		json_auto_t *doc = NULL;
		cr_assert_eq(cper_mce_decode_json(m, sizeof(m), &doc), 0);
		cr_assert_str_eq(
			sget(json_object_get(json_object_get(doc, "mce"), "mca_error"), "class"),
			cases[i].cls, "code %#x", cases[i].code);
	}
}

Test(cper, mce_old_layout_and_truncation)
{
	uint8_t m[128];
	build_mce(m, UINT64_C(0x8000000000000000));
	/* 2.6.39's struct mce ended with mcgcap: 88 bytes, no ppin/microcode. */
	json_auto_t *doc = NULL;
	cr_assert_eq(cper_mce_decode_json(m, 88, &doc), 0);
	json_t *mce = json_object_get(doc, "mce");
	cr_assert_eq(json_array_size(json_object_get(doc, "errors")), 0);
	cr_assert_not_null(json_object_get(mce, "mcgcap"));
	cr_assert_null(json_object_get(mce, "microcode"));

	for (size_t n = 0; n < 80; n++) {
		json_auto_t *d = NULL;
		cr_assert_eq(cper_mce_decode_json(m, n, &d), 0);
		cr_assert_gt(json_array_size(json_object_get(d, "errors")), 0, "length %zu", n);
	}
}

Test(cper, mce_section_in_record)
{
	uint8_t m[128];
	build_mce(m, UINT64_C(0xbe00000000800092));
	size_t len =
		cper_build_pstore_record(GUID_MCE, m, sizeof(m), 1700000000, 5, buf, sizeof(buf));
	json_auto_t *doc = decode_ok(buf, len);
	cr_assert_eq(n_errors(doc), 0, "%s", errors_str(doc));
	json_t *s = section(record0(doc), 0);
	cr_assert_str_eq(sget(s, "section_type_name"), "Linux x86 machine check");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(s, "body"), "bank")), 4);
}

Test(cper, two_concatenated_records)
{
	size_t a =
		cper_build_pstore_record(GUID_DMESG, "first\n", 6, 1700000000, 1, buf, sizeof(buf));
	size_t b = cper_build_pstore_record(GUID_DMESG, "second\n", 7, 1700000001, 2, buf + a,
					    sizeof(buf) - a);
	json_auto_t *doc = decode_ok(buf, a + b);
	cr_assert_eq(n_errors(doc), 0, "%s", errors_str(doc));
	json_t *recs = json_object_get(doc, "records");
	cr_assert_eq(json_array_size(recs), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(recs, 1), "offset")),
		     (json_int_t)a);
	cr_assert_str_eq(sget(json_object_get(section(json_array_get(recs, 1), 0), "body"), "text"),
			 "second\n");
	cr_assert_str_eq(sget(json_array_get(recs, 1), "record_id"), "2");
}

Test(cper, truncated_at_every_offset)
{
	size_t a = cper_build_pstore_record(GUID_DMESG, panic_log, strlen(panic_log), 1700000000, 1,
					    buf, sizeof(buf));
	for (size_t cut = 0; cut < a; cut++) {
		json_auto_t *doc = decode_ok(buf, cut);
		cr_assert_gt(n_errors(doc), 0, "cut at %zu", cut);
		if (cut >= 128) {
			cr_assert_eq(json_array_size(json_object_get(doc, "records")), 1);
			json_t *err = json_array_get(json_object_get(doc, "errors"), 0);
			cr_assert_eq(json_integer_value(json_object_get(err, "offset")), 20,
				     "cut at %zu: %s", cut, errors_str(doc));
		}
	}
	/* A truncated first record followed by a whole one: the second still decodes. */
	for (size_t cut = 128; cut < a; cut += 7) {
		size_t b = cper_build_pstore_record(GUID_DMESG, "next\n", 5, 1, 2, buf + cut,
						    sizeof(buf) - cut);
		json_auto_t *doc = decode_ok(buf, cut + b);
		json_t *recs = json_object_get(doc, "records");
		cr_assert_eq(json_array_size(recs), 2, "cut at %zu", cut);
		cr_assert_str_eq(
			sget(json_object_get(section(json_array_get(recs, 1), 0), "body"), "text"),
			"next\n");
		cper_build_pstore_record(GUID_DMESG, panic_log, strlen(panic_log), 1700000000, 1,
					 buf, sizeof(buf));
	}
}

Test(cper, lengths_that_overflow)
{
	size_t a = cper_build_pstore_record(GUID_DMESG, panic_log, strlen(panic_log), 1, 1, buf,
					    sizeof(buf));
	uint8_t *d = buf + 128;

	/* Section offset + length wrap around 32 bits. */
	put_le(d, 0xfffffff0, 4);
	put_le(d + 4, 0x20, 4);
	json_auto_t *doc1 = decode_ok(buf, a);
	cr_assert_eq(n_errors(doc1), 1, "%s", errors_str(doc1));
	cr_assert_null(json_object_get(section(record0(doc1), 0), "body"));

	put_le(d, 200, 4);
	put_le(d + 4, 0xffffffff, 4);
	json_auto_t *doc2 = decode_ok(buf, a);
	cr_assert_eq(n_errors(doc2), 1, "%s", errors_str(doc2));
	json_t *s = section(record0(doc2), 0);
	cr_assert(json_is_true(json_object_get(s, "truncated")));
	cr_assert_str_eq(sget(json_object_get(s, "body"), "text"), panic_log);

	/* Record length far beyond the buffer, and below the header size. */
	put_le(d + 4, strlen(panic_log), 4);
	put_le(buf + 20, 0xffffffff, 4);
	json_auto_t *doc3 = decode_ok(buf, a);
	cr_assert_eq(n_errors(doc3), 1, "%s", errors_str(doc3));
	put_le(buf + 20, 3, 4);
	json_auto_t *doc4 = decode_ok(buf, a);
	cr_assert_eq(n_errors(doc4), 1, "%s", errors_str(doc4));
	cr_assert_eq(json_array_size(json_object_get(doc4, "records")), 1);
}

Test(cper, section_count_larger_than_record)
{
	size_t a = cper_build_pstore_record(GUID_DMESG, panic_log, strlen(panic_log), 1, 1, buf,
					    sizeof(buf));
	put_le(buf + 10, 0xffff, 2);
	cr_assert_not(cper_looks_like_record(buf, a));
	json_auto_t *doc = decode_ok(buf, a);
	json_t *r = record0(doc);
	/* The descriptors that fit are decoded; the first is the real one. */
	cr_assert_eq(json_array_size(json_object_get(r, "sections")), (a - 128) / 72);
	cr_assert_str_eq(sget(json_object_get(section(r, 0), "body"), "text"), panic_log);
	json_t *err = json_array_get(json_object_get(doc, "errors"), 0);
	cr_assert_eq(json_integer_value(json_object_get(err, "offset")), 10);
}

Test(cper, garbage_and_empty_input)
{
	json_auto_t *empty = decode_ok("", 0);
	cr_assert_eq(n_errors(empty), 1);
	cr_assert_eq(json_array_size(json_object_get(empty, "records")), 0);

	memset(buf, 'A', 300);
	size_t a = cper_build_pstore_record(GUID_DMESG, "x", 1, 1, 1, buf + 300, 1000);
	memset(buf + 300 + a, 'B', 50);
	json_auto_t *doc = decode_ok(buf, 300 + a + 50);
	cr_assert_eq(json_array_size(json_object_get(doc, "records")), 1);
	cr_assert_eq(n_errors(doc), 2, "%s", errors_str(doc));
	json_t *e0 = json_array_get(json_object_get(doc, "errors"), 0);
	cr_assert_eq(json_integer_value(json_object_get(e0, "offset")), 0);
	json_t *e1 = json_array_get(json_object_get(doc, "errors"), 1);
	cr_assert_eq(json_integer_value(json_object_get(e1, "offset")), (json_int_t)(300 + a));
	cr_assert_not(cper_looks_like_record(buf, 300));
	cr_assert(cper_looks_like_record(buf + 300, a));
}

Test(cper, text_output_kernel_style)
{
	size_t a = cper_build_pstore_record(GUID_DMESG, panic_log, strlen(panic_log), 1700000000, 1,
					    buf, sizeof(buf));
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	cr_assert_not_null(f);
	cr_assert_eq(cper_decode_text(buf, a, NULL, f), 0);
	fclose(f);
	cr_assert_not_null(strstr(out, "[Hardware Error]: event severity: fatal\n"), "%s", out);
	cr_assert_not_null(strstr(out, "[Hardware Error]:  Error 0, type: fatal\n"), "%s", out);
	cr_assert_not_null(strstr(out, "[Hardware Error]:   section_type: Linux pstore dmesg\n"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "timestamp: 2023-11-14 22:13:20 UTC (unix_seconds)"), "%s",
			   out);
	cr_assert_not_null(strstr(out, panic_log), "%s", out);
	free(out);
}

Test(cper, streaming_decoder)
{
	size_t off = 0;
	for (int i = 0; i < 50; i++)
		off += cper_build_pstore_record(GUID_DMESG, "log\n", 4, 1, (uint64_t)i, buf + off,
						sizeof(buf) - off);
	_cleanup_(cper_decoder_freep) CperDecoder *d = NULL;
	cr_assert_eq(cper_decoder_new(buf, off, &d), 0);
	int n = 0;
	json_t *rec, *errs;
	while (cper_decoder_next(d, &rec, &errs) > 0) {
		cr_assert_not_null(rec);
		cr_assert_eq(json_array_size(errs), 0);
		char id[16];
		snprintf(id, sizeof(id), "%d", n++);
		cr_assert_str_eq(sget(rec, "record_id"), id);
		json_decref(rec);
		json_decref(errs);
	}
	cr_assert_eq(n, 50);
	cr_assert_eq(cper_decoder_next(d, &rec, &errs), 0);
}

/*
 * Records that other producers wrote (Windows WHEA, libcper's test vectors), one directory each
 * under tests/cper/real-world/ (see its MANIFEST): record.cper, its SOURCE, and expected.json,
 * the decoded fields checked by hand against the specification, which must be a subset of the
 * decoder's document. A record whose expected fields have no "notes" must decode without any.
 */
ParameterizedTestParameters(cper, real_world)
{
	return test_case_dirs_in("cper", "real-world");
}

ParameterizedTest(struct test_case *c, cper, real_world)
{
	_cleanup_free_ char *dir = test_suite_path("cper", "real-world"), *case_dir = NULL,
			    *expected_path = NULL, *raw = NULL, *where = NULL;
	_cleanup_close_ int dfd = -1;
	json_auto_t *expected = NULL, *doc = NULL;
	json_error_t jerr;
	json_t *want;
	size_t len, i;

	cr_assert(asprintf(&case_dir, "%s/%s", dir, c->name) >= 0);
	cr_assert(asprintf(&expected_path, "%s/expected.json", case_dir) >= 0);
	dfd = open(case_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0, "%s: %m", case_dir);
	cr_assert_eq(read_full_file_at(dfd, "record.cper", sizeof(buf), &raw, &len), 0, "%s",
		     c->name);
	expected = json_load_file(expected_path, 0, &jerr);
	cr_assert_not_null(expected, "%s: %d: %s", c->name, jerr.line, jerr.text);

	doc = decode_ok(raw, len);
	cr_assert(test_json_subset(expected, doc, &where), "%s: %s\nactual: %s", c->name, where,
		  json_dumps(doc, JSON_INDENT(2)));
	json_array_foreach(json_object_get(expected, "records"), i, want) {
		json_t *got = json_array_get(json_object_get(doc, "records"), i);

		cr_assert(json_object_get(want, "notes") || !json_object_get(got, "notes"),
			  "%s: record %zu has unexpected notes: %s", c->name, i,
			  json_dumps(json_object_get(got, "notes"), JSON_COMPACT));
	}
}

/* A missing or emptied real-world directory would otherwise pass silently. */
Test(cper, real_world_exists)
{
	size_t n = test_case_count_in("cper", "real-world");

	cr_assert_geq(n, 15, "only %zu real-world records", n);
}
