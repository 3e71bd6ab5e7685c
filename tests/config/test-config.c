// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstored.conf parsing, data-driven as jansson's test suites are: every
 * directory under tests/config/cases/ is one case, holding
 *
 *   pstored.conf   loaded alone (pstored_config_load(path, NULL, ...)), or
 *   root/          a fake root with etc/, run/, usr/local/lib/, usr/lib/ and
 *                  their pstored.conf.d/ (pstored_config_load(NULL, root, ...));
 *
 * and what must come out:
 *
 *   expected.json  the configuration (pstored_config_to_json()); only the keys
 *                  listed are compared, so a case lists what it is about,
 *                  except that an empty object must be empty ("Target": {});
 *   warnings       the exact warnings, one a line, "@CASE@" standing for the
 *                  case directory; without it there must be none. A case
 *                  with warnings may leave out expected.json.
 *
 * A problem in the files never fails the load (see pstored_config_load()).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config.h"
#include "case-dirs.h"
#include "macro.h"

ParameterizedTestParameters(config, cases)
{
	return test_case_dirs("config");
}

/* A missing or emptied cases directory would otherwise pass silently. */
Test(config, cases_exist)
{
	size_t n = test_case_count("config");

	cr_assert_geq(n, 80, "only %zu cases", n);
}

static char *read_text(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char *s = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	cr_assert(getdelim(&s, &len, '\0', f) >= 0 || feof(f));
	len = s ? strlen(s) : 0;
	while (len > 0 && s[len - 1] == '\n')
		s[--len] = '\0';
	return s;
}

static char *replace_all(const char *s, const char *what, const char *with)
{
	size_t wlen = strlen(what);
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	const char *p;

	cr_assert_not_null(f);
	while ((p = strstr(s, what))) {
		fwrite(s, 1, (size_t)(p - s), f);
		fputs(with, f);
		s = p + wlen;
	}
	fputs(s, f);
	fclose(f);
	return out;
}

ParameterizedTest(struct test_case *c, config, cases)
{
	_cleanup_free_ char *dir = NULL, *conf = NULL, *root = NULL, *warnings_path = NULL,
			    *expected_path = NULL, *expected_warnings = NULL, *want = NULL,
			    *error = NULL, *warnings = NULL;
	_cleanup_(pstored_config_freep) PstoredConfig *config = NULL;
	json_auto_t *expected = NULL, *actual = NULL;
	json_error_t jerr;
	char *where = NULL;
	size_t warnings_len = 0;
	FILE *f;
	struct stat st;
	int r;

	_cleanup_free_ char *base = test_suite_path("config", "cases");
	cr_assert(asprintf(&dir, "%s/%s", base, c->name) >= 0);
	cr_assert(asprintf(&conf, "%s/pstored.conf", dir) >= 0);
	cr_assert(asprintf(&root, "%s/root", dir) >= 0);
	cr_assert(asprintf(&warnings_path, "%s/warnings", dir) >= 0);
	cr_assert(asprintf(&expected_path, "%s/expected.json", dir) >= 0);

	if (stat(root, &st) == 0)
		r = pstored_config_load(NULL, root, &config, &error);
	else
		r = pstored_config_load(conf, NULL, &config, &error);

	cr_assert_eq(r, 0, "%s: failed with %d (%s): %s", c->name, r, strerror(-r),
		     error ?: "(no message)");
	cr_assert_null(error);

	f = open_memstream(&warnings, &warnings_len);
	cr_assert_not_null(f);
	for (size_t i = 0; i < config->n_warnings; i++)
		fprintf(f, "%s%s", i > 0 ? "\n" : "", config->warnings[i]);
	cr_assert_eq(fclose(f), 0);
	expected_warnings = read_text(warnings_path);
	want = replace_all(expected_warnings ?: "", "@CASE@", dir);
	cr_assert_str_eq(warnings, want, "%s: warnings:\n got: %s\nwant: %s", c->name, warnings,
			 want);

	if (expected_warnings && stat(expected_path, &st) < 0)
		return;
	expected = json_load_file(expected_path, 0, &jerr);
	cr_assert_not_null(expected, "%s: %s:%d: %s", c->name, expected_path, jerr.line, jerr.text);
	cr_assert_eq(pstored_config_to_json(config, &actual), 0);
	cr_assert(test_json_subset(expected, actual, &where), "%s: %s\nactual: %s", c->name, where,
		  json_dumps(actual, JSON_INDENT(2)));
}

Test(config, defaults_match_dev_null)
{
	_cleanup_(pstored_config_freep) PstoredConfig *a = NULL, *b = NULL;
	json_auto_t *ja = NULL, *jb = NULL;

	cr_assert_eq(pstored_config_new_default(&a), 0);
	cr_assert_eq(pstored_config_load("/dev/null", NULL, &b, NULL), 0);
	cr_assert_eq(pstored_config_to_json(a, &ja), 0);
	cr_assert_eq(pstored_config_to_json(b, &jb), 0);
	cr_assert(json_equal(ja, jb));

	cr_assert_eq(a->storage, PSTORED_STORAGE_BOTH);
	cr_assert(a->unlink);
	cr_assert(a->keep_console);
	cr_assert_eq(a->max_record_size, 1024 * 1024);
	cr_assert_eq(a->max_age_usec, PSTORED_CONFIG_UNLIMITED);
	cr_assert_eq(a->max_use, 256 * 1024 * 1024);
	cr_assert_eq(a->max_crashes, 1000);
	cr_assert(a->keep_unsent);
	cr_assert_eq(a->n_targets, 0);
}

Test(config, target_fields)
{
	_cleanup_(pstored_config_freep) PstoredConfig *c = NULL;
	_cleanup_free_ char *path = NULL;
	const PstoredTarget *t;

	cr_assert(asprintf(&path, "%s/tests/config/cases/target-all-keys/pstored.conf",
			   getenv("top_srcdir") ?: ".") >= 0);
	cr_assert_eq(pstored_config_load(path, NULL, &c, NULL), 0);
	cr_assert_eq(c->n_targets, 2);
	cr_assert_null(pstored_config_find_target(c, "nope"));
	t = pstored_config_find_target(c, "fleet");
	cr_assert_not_null(t);
	cr_assert_eq(t, &c->targets[0]);
	cr_assert_eq(t->type, PSTORED_TARGET_HTTP_JSON);
	cr_assert_eq(t->method, PSTORED_HTTP_POST);
	cr_assert_str_eq(t->token_file, "/etc/pstored/token");
	cr_assert_eq(t->timeout_usec, 90 * 1000000ULL);
	cr_assert_eq(t->n_redact_regex, 2);
	cr_assert_str_eq(t->redact_regex[1], "user=[a-z]+; id=[0-9]+");
	cr_assert_null(t->redact_regex[2]);
	t = pstored_config_find_target(c, "journal");
	cr_assert_eq(t->type, PSTORED_TARGET_JOURNAL_REMOTE);
	cr_assert_null(t->ca_file);
	cr_assert_eq(t->n_redact_regex, 0);
	cr_assert_null(t->redact_regex[0]);
}

/* A target with a problem is left out, whatever its other lines say; the others stay. */
Test(config, disabled_target_dropped)
{
	_cleanup_(pstored_config_freep) PstoredConfig *c = NULL;
	_cleanup_free_ char *path = NULL;

	cr_assert(asprintf(&path,
			   "%s/tests/config/cases/warn-target-disabled-other-kept/pstored.conf",
			   getenv("top_srcdir") ?: ".") >= 0);
	cr_assert_eq(pstored_config_load(path, NULL, &c, NULL), 0);
	cr_assert_eq(c->n_targets, 1);
	cr_assert_str_eq(c->targets[0].name, "good");
	cr_assert_null(pstored_config_find_target(c, "bad"));
	cr_assert_eq(c->n_warnings, 1);
	cr_assert_not(c->unlink, "the lines after the disabled target were not applied");
}

Test(config, io_errors)
{
	static const struct {
		const char *path;
		int r;
		const char *error;
	} tests[] = {
		{"/nonexistent/pstored.conf", -ENOENT,
		 "/nonexistent/pstored.conf: No such file or directory"},
		{"/", -EISDIR, "/: Is a directory"},
		{"/dev/zero", -EINVAL, "/dev/zero: not a regular file"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
		PstoredConfig *c = (PstoredConfig *)0x1;
		_cleanup_free_ char *error = NULL;

		cr_assert_eq(pstored_config_load(tests[i].path, NULL, &c, &error), tests[i].r, "%s",
			     tests[i].path);
		cr_assert_eq(c, (PstoredConfig *)0x1, "output changed on failure");
		cr_assert_str_eq(error, tests[i].error);
		/* ret_error is optional */
		cr_assert_eq(pstored_config_load(tests[i].path, NULL, &c, NULL), tests[i].r);
	}
}

Test(config, root_without_files_gives_defaults)
{
	_cleanup_(pstored_config_freep) PstoredConfig *c = NULL;
	_cleanup_free_ char *error = NULL;

	cr_assert_eq(pstored_config_load(NULL, "/nonexistent//", &c, &error), 0);
	cr_assert_null(error);
	cr_assert_eq(c->max_crashes, 1000);
}

Test(config, enum_names)
{
	cr_assert_str_eq(pstored_storage_to_string(PSTORED_STORAGE_JOURNAL), "journal");
	cr_assert_null(pstored_storage_to_string(_PSTORED_STORAGE_MAX));
	cr_assert_str_eq(pstored_target_type_to_string(PSTORED_TARGET_HTTP_JSON), "http-json");
	cr_assert_null(pstored_target_type_to_string(_PSTORED_TARGET_TYPE_INVALID));
	cr_assert_str_eq(pstored_http_method_to_string(PSTORED_HTTP_POST), "POST");
	cr_assert_null(pstored_http_method_to_string(_PSTORED_HTTP_METHOD_MAX));
}
