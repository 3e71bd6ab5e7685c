// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "upload/redact.h"

/* Criterion runs each case in a new process: the strings must be in the struct. */
typedef struct RedactCase {
	char in[64];
	char out[64];
} RedactCase;

/* The built-in rules: addresses are redacted, look-alikes in a kernel log are not. */
static const RedactCase builtin_cases[] = {
	{"e1000e: eth0 10.1.2.3 up", "e1000e: eth0 [IPv4] up"},
	{"from 192.168.0.254.", "from [IPv4]."},
	{"peer 10.0.0.1:22 closed", "peer [IPv4]:22 closed"},
	{"Linux version 6.1.0.17.3 (gcc)", "Linux version 6.1.0.17.3 (gcc)"},
	{"not an address 300.1.2.3", "not an address 300.1.2.3"},
	{"addr fe80::5054:ff:fe12:3456: link up", "addr [IPv6]: link up"},
	{"2001:db8:0:0:1:0:0:1 and ::1", "[IPv6] and [IPv6]"},
	{"mapped ::ffff:10.0.0.1", "mapped ::ffff:[IPv4]"},
	{"pci 0000:00:1f.2: [8086:2922] type 00", "pci 0000:00:1f.2: [8086:2922] type 00"},
	{"RIP: 0010:sysrq_handle_crash+0x16/0x20", "RIP: 0010:sysrq_handle_crash+0x16/0x20"},
	{"[   12.345678] time 12:34:56", "[   12.345678] time 12:34:56"},
	{"rust kernel::fmt::write", "rust kernel::fmt::write"},
	{"ether 52:54:00:12:34:56 brd", "ether [MAC] brd"},
	{"ether 52-54-00-AB-cd-EF", "ether [MAC]"},
	{"ether 52:54:00:12:34:56:78 is eight", "ether 52:54:00:12:34:56:78 is eight"},
	{"", ""},
};

ParameterizedTestParameters(redact, builtin)
{
	return cr_make_param_array(RedactCase, builtin_cases, ARRAY_SIZE(builtin_cases));
}

ParameterizedTest(const RedactCase *c, redact, builtin)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;
	size_t n;

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redact_text(r, c->in, strlen(c->in), &out, &n), 0);
	cr_expect_str_eq(out, c->out, "input: \"%s\"", c->in);
	cr_expect_eq(n, strlen(c->out));
}

Test(redact, words_are_whole_and_case_insensitive)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;
	const char *in = "Hardware name: ACME X1/Board, BIOS 1.2 serial PF2ABC9Z\n"
			 "web01.example.org: WEB01 webcam web01x\n";

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_word(r, "web01", "[HOSTNAME]"), 0);
	cr_assert_eq(upload_redactor_add_word(r, "PF2ABC9Z", "[SERIAL]"), 0);
	cr_assert_eq(upload_redact_text(r, in, strlen(in), &out, NULL), 0);
	cr_expect_str_eq(out, "Hardware name: ACME X1/Board, BIOS 1.2 serial [SERIAL]\n"
			      "[HOSTNAME].example.org: [HOSTNAME] webcam web01x\n");
}

Test(redact, words_with_pattern_characters_are_literal)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;
	const char *in = "id a.b*c^d\\e here, aXbbbc^d\\e not";

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_word(r, "a.b*c^d\\e", "[SERIAL]"), 0);
	cr_assert_eq(upload_redact_text(r, in, strlen(in), &out, NULL), 0);
	cr_expect_str_eq(out, "id [SERIAL] here, aXbbbc^d\\e not");
}

/* Compared, not matched by a regex: at the ends of the text, past NUL bytes, and cut short. */
Test(redact, words_at_the_edges)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;
	static const char in[] = "Web01 a\0web01\0 b WEB01";
	static const char expected[] = "[HOSTNAME] a\0[HOSTNAME]\0 b [HOSTNAME]";
	size_t n;

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_word(r, "web01", "[HOSTNAME]"), 0);
	cr_assert_eq(upload_redact_text(r, in, sizeof(in) - 1, &out, &n), 0);
	cr_assert_eq(n, sizeof(expected) - 1);
	cr_expect_eq(memcmp(out, expected, n), 0);
	free(out);
	/* The text ends within the word. */
	cr_assert_eq(upload_redact_text(r, "at web0", 7, &out, NULL), 0);
	cr_expect_str_eq(out, "at web0");
	free(out);
	/* A word that is not ASCII goes by its regex. */
	cr_assert_eq(upload_redactor_add_word(r, "h\xc3\xb4te1", "[HOSTNAME]"), 0);
	cr_assert_eq(upload_redact_text(r, "on h\xc3\xb4te1.", 10, &out, NULL), 0);
	cr_expect_str_eq(out, "on [HOSTNAME].");
}

Test(redact, meaningless_words_are_ignored)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;
	const char *in = "localhost (none) ab";

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_word(r, "localhost", "[HOSTNAME]"), 0);
	cr_assert_eq(upload_redactor_add_word(r, "(none)", "[HOSTNAME]"), 0);
	cr_assert_eq(upload_redactor_add_word(r, "ab", "[HOSTNAME]"), 0);
	cr_assert_eq(upload_redact_text(r, in, strlen(in), &out, NULL), 0);
	cr_expect_str_eq(out, in);
}

Test(redact, extra_regex_and_line_anchors)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;
	const char *in = "user=alice uid=1000\nuser=bob\nnot user=carol";

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_regex(r, "^user=[a-z]+", NULL), 0);
	cr_assert_eq(upload_redact_text(r, in, strlen(in), &out, NULL), 0);
	cr_expect_str_eq(out, "[REDACTED] uid=1000\n[REDACTED]\nnot user=carol");
}

Test(redact, empty_matches_do_not_loop)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_regex(r, "x*", NULL), 0);
	cr_assert_eq(upload_redact_text(r, "abxxc", 5, &out, NULL), 0);
	cr_expect_str_eq(out, "ab[REDACTED]c");
}

Test(redact, bad_regex_is_explained)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *error = NULL;

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_regex(r, "([a-z", &error), -EINVAL);
	cr_assert_not_null(error);
	cr_expect_gt(strlen(error), 0);
}

/* A target's RedactRegex= that regcomp() refuses comes back as what to tell the user, unlogged. */
Test(redact, target_bad_regex_is_returned, .init = cr_redirect_stderr)
{
	char name[] = "t", good[] = "[0-9]+", bad[] = "([a-z";
	char *regexes[] = {good, bad, NULL};
	const PstoredTarget t = {.name = name, .redact_regex = regexes, .n_redact_regex = 2};
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL, *check = NULL;
	_cleanup_free_ char *error = NULL, *why = NULL, *expected = NULL;

	cr_assert_eq(upload_target_redactor(&t, "host", "/nonexistent", &r, &error), -EINVAL);
	cr_assert_null(r);
	cr_assert_eq(upload_redactor_new(&check), 0);
	cr_assert_eq(upload_redactor_add_regex(check, bad, &why), -EINVAL);
	cr_assert_geq(asprintf(&expected,
			       "[Target.t] RedactRegex=([a-z: %s (use a POSIX extended regular "
			       "expression).",
			       why),
		      0);
	cr_assert_str_eq(error, expected);
	fflush(stderr);
	cr_assert_stderr_eq_str("");
}

Test(redact, embedded_nul_bytes_are_kept)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	_cleanup_free_ char *out = NULL;
	static const char in[] = "a\0 10.0.0.1 \0b";
	static const char expected[] = "a\0 [IPv4] \0b";
	size_t n;

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redact_text(r, in, sizeof(in) - 1, &out, &n), 0);
	cr_assert_eq(n, sizeof(expected) - 1);
	cr_expect_eq(memcmp(out, expected, n), 0);
}

Test(redact, json_strings_recursively)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	json_auto_t *v = NULL, *expected = NULL;

	v = json_pack("{s:s, s:[s, i, {s:s}], s:b}", "10.0.0.1", "at 10.0.0.2", "list",
		      "52:54:00:12:34:56", 7, "deep", "host web01", "flag", 1);
	expected = json_pack("{s:s, s:[s, i, {s:s}], s:b}", "10.0.0.1", "at [IPv4]", "list",
			     "[MAC]", 7, "deep", "host [HOSTNAME]", "flag", 1);
	cr_assert_not_null(v);
	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redactor_add_word(r, "web01", "[HOSTNAME]"), 0);
	cr_assert_eq(upload_redact_json_strings(r, v), 0);
	cr_expect(json_equal(v, expected));
}

Test(redact, export_document_records)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	json_auto_t *doc = NULL;
	json_t *records;

	/* "eth0 10.0.0.1\n" and the two bytes 0x0a 0x00 0x00 0x01 of a binary record. */
	doc = json_pack("{s:s, s:s, s:[{s:s, s:s, s:s}, {s:s, s:b, s:s}, {s:s, s:s}], s:{s:s}}",
			"id", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "dmesg", "up 10.0.0.1",
			"records", "type", "dmesg", "name", "dmesg-erst-1", "data",
			"ZXRoMCAxMC4wLjAuMQo=", "type", "dmesg", "compressed", 1, "data",
			"eJzLSM3JyQcABiwCFQ==", "type", "mce", "data", "CgAAAQ==", "analysis",
			"message", "at 52:54:00:12:34:56");
	cr_assert_not_null(doc);
	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_assert_eq(upload_redact_export_document(r, doc), 0);

	records = json_object_get(doc, "records");
	/* "eth0 [IPv4]\n" */
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(records, 0), "data")),
			 "ZXRoMCBbSVB2NF0K");
	cr_expect_null(json_object_get(json_array_get(records, 1), "data"));
	cr_expect_str_eq(
		json_string_value(json_object_get(json_array_get(records, 1), "data_omitted")),
		"redacted");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(records, 2), "data")),
			 "CgAAAQ==");
	cr_expect_str_eq(json_string_value(json_object_get(doc, "dmesg")), "up [IPv4]");
	cr_expect_str_eq(json_string_value(json_object_get(doc, "id")),
			 "1b4e28ba-2fa1-11d2-883f-0016d3cca427");
	cr_expect_str_eq(
		json_string_value(json_object_get(json_object_get(doc, "analysis"), "message")),
		"at [MAC]");
}

Test(redact, export_document_bad_base64)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	json_auto_t *doc = json_pack("{s:[{s:s, s:s}]}", "records", "type", "dmesg", "data", "abc");

	cr_assert_eq(upload_redactor_new(&r), 0);
	cr_expect_eq(upload_redact_export_document(r, doc), -EBADMSG);
}
