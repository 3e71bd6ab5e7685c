// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every section type: decoded bodies compared field by field (json_equal)
 * with tests/cper/expected/, once with every validation bit set and once
 * with every one clear, then cut short at every byte.
 */

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cper-builder.h"
#include "cper-samples.h"
#include "cper.h"
#include "macro.h"

static uint8_t body[CPER_SAMPLE_MAX], rec[CPER_SAMPLE_MAX + 512];

static size_t build(const CperSample *s, bool all_valid, size_t *ret_body_len)
{
	size_t n = s->build(body, all_valid);
	CperSectionSpec sec = {.type = s->type, .severity = 2, .body = body, .body_len = n};
	CperRecordSpec r = {
		.severity = 2,
		.creator_id = GUID_CREATOR_WHEA,
		.notification_type = GUID_NOTIFY_CMC,
		.n_sections = 1,
		.sections = &sec,
	};
	if (ret_body_len)
		*ret_body_len = n;
	return cper_build_record(&r, rec, sizeof(rec));
}

static json_t *load_expected(const char *name, const char *suffix)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	json_error_t err;

	snprintf(path, sizeof(path), "%s/tests/cper/expected/%s.%s.json", top ? top : ".", name,
		 suffix);
	json_t *j = json_load_file(path, 0, &err);
	cr_assert_not_null(j, "%s: %s", path, err.text);
	return j;
}

static void check_sample(const CperSample *s, bool all_valid)
{
	size_t len = build(s, all_valid, NULL);
	json_auto_t *doc = NULL;

	cr_assert_eq(cper_decode_json(rec, len, &doc), 0);
	json_t *errors = json_object_get(doc, "errors");
	_cleanup_free_ char *errs = json_dumps(errors, JSON_COMPACT);
	cr_assert_eq(json_array_size(errors), 0, "%s: %s", s->name, errs);

	json_t *sec = json_array_get(
		json_object_get(json_array_get(json_object_get(doc, "records"), 0), "sections"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(sec, "section_type")), s->type);
	cr_assert_str_eq(json_string_value(json_object_get(sec, "section_type_name")),
			 s->type_name);

	json_t *got = json_object_get(sec, "body");
	json_auto_t *want = load_expected(s->name, all_valid ? "valid" : "invalid");
	_cleanup_free_ char *got_s = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
	_cleanup_free_ char *want_s = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
	cr_assert(json_equal(got, want), "%s (%s):\n got: %s\nwant: %s", s->name,
		  all_valid ? "all valid" : "none valid", got_s, want_s);
}

Test(cper_sections, every_type_all_validation_bits_set)
{
	for (size_t i = 0; i < cper_n_samples; i++)
		check_sample(&cper_samples[i], true);
}

Test(cper_sections, every_type_all_validation_bits_clear)
{
	for (size_t i = 0; i < cper_n_samples; i++)
		check_sample(&cper_samples[i], false);
}

/* The section body cut at every length (the descriptor says so): errors, never a crash. */
Test(cper_sections, every_type_short_section)
{
	for (size_t i = 0; i < cper_n_samples; i++) {
		const CperSample *s = &cper_samples[i];
		size_t full, len = build(s, true, &full);

		/* The 77-byte layout's last byte belongs to no field it claims. */
		size_t needed = strcmp(s->name, "memory-77") == 0 ? 76 : full;

		for (size_t cut = 0; cut < needed; cut++) {
			put_le(rec + 128 + 4, cut, 4);
			put_le(rec + 20, len - full + cut, 4);
			json_auto_t *doc = NULL;
			cr_assert_eq(cper_decode_json(rec, len - full + cut, &doc), 0);
			cr_assert_eq(json_array_size(json_object_get(doc, "records")), 1);
			/* Text and dmesg sections have no fixed part: any length is fine. */
			if (strcmp(s->name, "dmesg") != 0 && strcmp(s->name, "ipf") != 0)
				cr_assert_gt(json_array_size(json_object_get(doc, "errors")), 0,
					     "%s cut to %zu of %zu bytes", s->name, cut, full);
		}
	}
}

/* The buffer cut at every byte, and every byte flipped: no crash, a result always. */
Test(cper_sections, every_type_truncated_buffer_and_flipped_bytes)
{
	for (size_t i = 0; i < cper_n_samples; i++) {
		size_t len = build(&cper_samples[i], true, NULL);

		for (size_t cut = 0; cut < len; cut++) {
			json_auto_t *doc = NULL;
			cr_assert_eq(cper_decode_json(rec, cut, &doc), 0);
			cr_assert_gt(json_array_size(json_object_get(doc, "errors")), 0);
		}
		for (size_t at = 0; at < len; at++) {
			json_auto_t *doc = NULL;
			rec[at] ^= 0xff;
			cr_assert_eq(cper_decode_json(rec, len, &doc), 0);
			rec[at] ^= 0xff;
		}
	}
}

Test(cper_sections, text_output_for_every_type)
{
	for (size_t i = 0; i < cper_n_samples; i++) {
		const CperSample *s = &cper_samples[i];
		size_t len = build(s, true, NULL);
		char *out = NULL;
		size_t out_len = 0;
		FILE *f = open_memstream(&out, &out_len);

		cr_assert_eq(cper_decode_text(rec, len, "{1}[Hardware Error]: ", f), 0);
		fclose(f);
		char want[256];
		snprintf(want, sizeof(want), "{1}[Hardware Error]:   section_type: %s\n",
			 s->type_name);
		cr_assert_not_null(strstr(out, want), "%s:\n%s", s->name, out);
		cr_assert_null(strstr(out, "decode error"), "%s:\n%s", s->name, out);
		free(out);
	}
}

Test(cper_sections, memory_text_matches_kernel_wording)
{
	size_t len = build(&cper_samples[4], true, NULL);
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	cr_assert_str_eq(cper_samples[4].name, "memory");
	cr_assert_eq(cper_decode_text(rec, len, NULL, f), 0);
	fclose(f);
	static const char *const lines[] = {
		"[Hardware Error]: It has been corrected by h/w and requires no further action\n",
		"[Hardware Error]: event severity: corrected\n",
		"[Hardware Error]:  Error 0, type: corrected\n",
		"[Hardware Error]:   section_type: memory error\n",
		"[Hardware Error]:   physical_address: 0x0000000012345000\n",
		"[Hardware Error]:   physical_address_mask: 0xfffffffffffff000\n",
		"[Hardware Error]:   error_type: 2, single-bit ECC\n",
		"[Hardware Error]:   node: 1\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		cr_assert_not_null(strstr(out, lines[i]), "missing %s in:\n%s", lines[i], out);
	free(out);
}

Test(cper_sections, memory_73_bytes_with_bits_beyond_it)
{
	/* UEFI 2.1 layout but claiming the rank and handles: reported, the rest decoded. */
	size_t n = cper_samples[5].build(body, true);
	cr_assert_eq(n, 73);
	put_le(body, 0x3fffff, 8);
	CperSectionSpec sec = {.type = GUID_MEMORY, .body = body, .body_len = n};
	CperRecordSpec r = {.n_sections = 1, .sections = &sec};
	size_t len = cper_build_record(&r, rec, sizeof(rec));
	json_auto_t *doc = NULL;

	cr_assert_eq(cper_decode_json(rec, len, &doc), 0);
	cr_assert_geq(json_array_size(json_object_get(doc, "errors")), 4);
	json_t *b = json_object_get(
		json_array_get(json_object_get(json_array_get(json_object_get(doc, "records"), 0),
					       "sections"),
			       0),
		"body");
	cr_assert_str_eq(json_string_value(json_object_get(b, "physical_address")),
			 "0x0000000012345000");
	cr_assert_null(json_object_get(b, "rank"));
	cr_assert_null(json_object_get(b, "module_handle"));
}

Test(cper_sections, summary_memory)
{
	size_t len = build(&cper_samples[4], true, NULL);
	json_auto_t *doc = NULL;
	_cleanup_free_ char *s = NULL;

	cr_assert_eq(cper_decode_json(rec, len, &doc), 0);
	cr_assert_eq(cper_summary(doc, &s), 0);
	cr_assert_str_eq(
		s, "Corrected memory error: single-bit ECC, address 0x0000000012345000 (CMC)");
}

Test(cper_sections, summary_names_every_section_type)
{
	for (size_t i = 0; i < cper_n_samples; i++) {
		const CperSample *smp = &cper_samples[i];
		size_t len = build(smp, i % 2 == 0, NULL);
		json_auto_t *doc = NULL;
		_cleanup_free_ char *s = NULL;
		char want[256];

		cr_assert_eq(cper_decode_json(rec, len, &doc), 0);
		cr_assert_eq(cper_summary(doc, &s), 0, "%s", smp->name);
		snprintf(want, sizeof(want), "Corrected %s", smp->type_name);
		cr_assert_eq(strncmp(s, want, strlen(want)), 0, "%s: %s", smp->name, s);
	}
}

Test(cper_sections, summary_needs_a_record)
{
	json_auto_t *doc = json_pack("{s:[]}", "records");
	char *s = (char *)"untouched";

	cr_assert_eq(cper_summary(doc, &s), -ENODATA);
	cr_assert_str_eq(s, "untouched");
}

/*
 * libcper's CXL component event with 19 bytes of event log, shorter than its 48-byte header:
 * the bytes that are there, raw, with a note; not a decode error.
 */
Test(cper_sections, cxl_event_log_shorter_than_its_header)
{
	size_t n = cper_sample_cxl_short_event_log(body);
	CperSectionSpec sec = {.type = GUID_CXL_GEN_MEDIA, .body = body, .body_len = n};
	CperRecordSpec r = {.n_sections = 1, .sections = &sec};
	size_t len = cper_build_record(&r, rec, sizeof(rec));
	json_auto_t *doc = NULL;

	cr_assert_eq(len, 128 + 72 + 51);
	cr_assert_eq(cper_decode_json(rec, len, &doc), 0);
	json_t *errors = json_object_get(doc, "errors");
	_cleanup_free_ char *errs = json_dumps(errors, JSON_COMPACT);
	cr_assert_eq(json_array_size(errors), 0, "%s", errs);
	json_t *record = json_array_get(json_object_get(doc, "records"), 0);
	json_t *body_json =
		json_object_get(json_array_get(json_object_get(record, "sections"), 0), "body");
	cr_assert_str_eq(json_string_value(json_object_get(body_json, "event_log_dump")),
			 "0e7594920893e2316e6d2eab109589ff3e1401");
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(body_json, "device_id"), "bdf")),
		"0fad:9e:0f.f1");
	json_t *note = json_array_get(json_object_get(record, "notes"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(note, "message")),
			 "component event log: 19 bytes, shorter than the 48-byte event record "
			 "header; shown raw");
}
