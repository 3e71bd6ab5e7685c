// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The streaming JSON writer against jansson: the same values written both ways must give the
 * same compact text, byte for byte, for every escape, integer edge and nesting.
 */

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "json-writer.h"
#include "macro.h"

static void assert_same(JsonWriter *w, const json_t *v)
{
	_cleanup_free_ char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	size_t len;
	const char *got = json_writer_text(w, &len);

	cr_assert_not_null(want);
	cr_assert_not_null(got);
	cr_assert_str_eq(got, want);
	cr_assert_eq(len, strlen(want));
}

Test(json_writer, every_byte_of_a_string)
{
	char s[256];
	JsonWriter w = {};

	/* Every byte but NUL, which jansson prints as \u0000 only from json_stringn(). */
	for (int i = 1; i < 128; i++)
		s[i - 1] = (char)i;
	memcpy(s + 127, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9);
	json_t *v = json_stringn(s, 136);
	cr_assert_not_null(v);
	json_writer_stringn(&w, NULL, s, 136);
	assert_same(&w, v);
	json_decref(v);

	json_writer_reset(&w);
	v = json_stringn("a\0b", 3);
	json_writer_stringn(&w, NULL, "a\0b", 3);
	assert_same(&w, v);
	json_decref(v);
	json_writer_done(&w);
}

Test(json_writer, integers)
{
	static const int64_t values[] = {0, 1, -1, 9, 10, -10, 1234567890, INT64_MAX, INT64_MIN};
	json_auto_t *a = json_array();
	JsonWriter w = {};

	json_writer_array_begin(&w, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		json_array_append_new(a, json_integer(values[i]));
		json_writer_integer(&w, NULL, values[i]);
	}
	json_writer_end(&w);
	assert_same(&w, a);
	json_writer_done(&w);
}

Test(json_writer, nesting_and_keys)
{
	json_auto_t *v = json_pack("{s:[],s:{},s:[{s:b,s:b},[[]],{}],s:s,s:{s:i}}", "empty_array",
				   "empty_object", "mixed", "t", 1, "f", 0, "str", "x", "k\"e\\y\n",
				   "n", -5);
	JsonWriter w = {};

	cr_assert_not_null(v);
	json_writer_object_begin(&w, NULL);
	json_writer_array_begin(&w, "empty_array");
	json_writer_end(&w);
	json_writer_object_begin(&w, "empty_object");
	json_writer_end(&w);
	json_writer_array_begin(&w, "mixed");
	json_writer_object_begin(&w, NULL);
	json_writer_bool(&w, "t", true);
	json_writer_bool(&w, "f", false);
	json_writer_end(&w);
	json_writer_array_begin(&w, NULL);
	json_writer_array_begin(&w, NULL);
	json_writer_end(&w);
	json_writer_end(&w);
	json_writer_object_begin(&w, NULL);
	json_writer_end(&w);
	json_writer_end(&w);
	json_writer_string(&w, "str", "x");
	json_writer_object_begin(&w, "k\"e\\y\n");
	json_writer_integer(&w, "n", -5);
	json_writer_end(&w);
	json_writer_end(&w);
	assert_same(&w, v);
	json_writer_done(&w);
}

/* Text longer than the first buffer, so that it grows several times. */
Test(json_writer, grows)
{
	json_auto_t *a = json_array();
	JsonWriter w = {};
	char s[300];

	memset(s, '"', sizeof(s));
	json_writer_array_begin(&w, NULL);
	for (int i = 0; i < 100; i++) {
		json_array_append_new(a, json_stringn(s, sizeof(s)));
		json_writer_stringn(&w, NULL, s, sizeof(s));
	}
	json_writer_end(&w);
	assert_same(&w, a);

	size_t len;
	_cleanup_free_ char *taken = json_writer_take(&w, &len);
	cr_assert_not_null(taken);
	cr_assert_eq(len, strlen(taken));
	cr_assert_null(w.buf);
}

/* Nesting deeper than the writer tracks fails as out of memory, not with broken text. */
Test(json_writer, too_deep)
{
	JsonWriter w = {};
	size_t len;

	for (int i = 0; i < JSON_WRITER_MAX_DEPTH + 1; i++)
		json_writer_array_begin(&w, NULL);
	cr_assert(w.oom);
	cr_assert_null(json_writer_text(&w, &len));
	json_writer_done(&w);
}
