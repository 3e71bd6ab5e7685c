/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-regex.h"
#include "config-value.h"
#include "config.h"
#include "macro.h"
#include "parse-util.h"
#include "time-util.h"
#include "utf8-util.h"

static const char *const storage_names[] = {
	[PSTORED_STORAGE_BOTH] = "both",
	[PSTORED_STORAGE_STORE] = "store",
	[PSTORED_STORAGE_JOURNAL] = "journal",
	[PSTORED_STORAGE_NONE] = "none",
};

static const char *const target_type_names[] = {
	[PSTORED_TARGET_JOURNAL_REMOTE] = "journal-remote",
	[PSTORED_TARGET_HTTP_JSON] = "http-json",
	[PSTORED_TARGET_CLICKHOUSE] = "clickhouse",
};

static const char *const http_method_names[] = {
	[PSTORED_HTTP_PUT] = "PUT",
	[PSTORED_HTTP_POST] = "POST",
};

DEFINE_STRING_TABLE_TO_STRING(pstored_storage, PstoredStorage, storage_names, _PSTORED_STORAGE_MAX)
DEFINE_STRING_TABLE_TO_STRING(pstored_target_type, PstoredTargetType, target_type_names,
			      _PSTORED_TARGET_TYPE_MAX)
DEFINE_STRING_TABLE_TO_STRING(pstored_http_method, PstoredHttpMethod, http_method_names,
			      _PSTORED_HTTP_METHOD_MAX)

static int string_table_lookup(const char *const *table, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (table[i] && streq(table[i], s))
			return (int)i;
	return -EINVAL;
}

void config_strv_free(char **l)
{
	if (!l)
		return;
	for (char **p = l; *p; p++)
		free(*p);
	free(l);
}

/*
 * The parser of a limit: "infinity", or what parse() takes, 0 being no limit too where
 * zero_is_unlimited (parse_limit()).
 */
#define DEFINE_CONFIG_LIMIT(name, parse, zero_is_unlimited, expected_text)                         \
	static int config_parse_##name(const char *value, void *field, char **ret_detail)          \
	{                                                                                          \
		return parse_limit(value, parse, zero_is_unlimited, field);                        \
	}                                                                                          \
	const ConfigValueType config_value_##name = {config_parse_##name, config_limit_to_json,    \
						     expected_text}

/* The parser and JSON form of an enumeration, from its table of names. */
#define DEFINE_CONFIG_ENUM(name, type, table, to_string)                                           \
	static int config_parse_##name(const char *value, void *field, char **ret_detail)          \
	{                                                                                          \
		int i = string_table_lookup(table, ARRAY_SIZE(table), value);                      \
                                                                                                   \
		if (i < 0)                                                                         \
			return i;                                                                  \
		*(type *)field = (type)i;                                                          \
		return 0;                                                                          \
	}                                                                                          \
	static json_t *config_##name##_to_json(const void *field)                                  \
	{                                                                                          \
		return json_string(to_string(*(const type *)field));                               \
	}

static int config_parse_boolean(const char *value, void *field, char **ret_detail)
{
	return parse_boolean(value, field);
}

static json_t *config_boolean_to_json(const void *field)
{
	return json_boolean(*(const bool *)field);
}

const ConfigValueType config_value_boolean = {
	config_parse_boolean,
	config_boolean_to_json,
	"expected yes or no (also true/false, on/off, 1/0)",
};

static int parse_seconds(const char *s, uint64_t *ret)
{
	return parse_timespan(s, USEC_PER_SEC, ret);
}

/*
 * "infinity", or what parse() takes: 0 means no limit too if zero_is_unlimited, else it is
 * invalid. Values must fit in JSON integers (int64) and leave UINT64_MAX for "no limit".
 */
static int parse_limit(const char *value, int (*parse)(const char *s, uint64_t *ret),
		       bool zero_is_unlimited, uint64_t *ret)
{
	uint64_t v;
	int r;

	if (streq(value, "infinity")) {
		*ret = PSTORED_CONFIG_UNLIMITED;
		return 0;
	}
	r = parse(value, &v);
	if (r < 0)
		return r;
	if (v > INT64_MAX)
		return -ERANGE;
	if (v == 0) {
		if (!zero_is_unlimited)
			return -EINVAL;
		v = PSTORED_CONFIG_UNLIMITED;
	}
	*ret = v;
	return 0;
}

static json_t *config_limit_to_json(const void *field)
{
	uint64_t v = *(const uint64_t *)field;

	return v == PSTORED_CONFIG_UNLIMITED ? json_string("infinity")
					     : json_integer((json_int_t)v);
}

static int config_parse_size(const char *value, void *field, char **ret_detail)
{
	if (streq(value, "infinity"))
		return -EINVAL;
	return parse_limit(value, parse_size, false, field);
}

const ConfigValueType config_value_size = {
	config_parse_size,
	config_limit_to_json,
	"expected a size in bytes greater than 0, like 512K or 1M (K, M, G, T are powers of 1024)",
};

DEFINE_CONFIG_LIMIT(size_limit, parse_size, false,
		    "expected a size greater than 0 like 4M (K, M, G, T are powers of 1024), or "
		    "infinity for no limit");
DEFINE_CONFIG_LIMIT(size_limit_or_zero, parse_size, true,
		    "expected a size like 256M (K, M, G, T are powers of 1024), or 0 or infinity "
		    "for no limit");
DEFINE_CONFIG_LIMIT(count_limit, parse_uint64, false,
		    "expected a number greater than 0, or infinity for no limit");
DEFINE_CONFIG_LIMIT(count_limit_or_zero, parse_uint64, true,
		    "expected a number, or 0 or infinity for no limit");
DEFINE_CONFIG_LIMIT(time_limit, parse_seconds, true,
		    "expected a time span like 30d or 12h (units us, ms, s, min, h, d, w, M, y), "
		    "or 0 or infinity for no limit");

static int config_parse_timeout(const char *value, void *field, char **ret_detail)
{
	uint64_t v;
	int r;

	r = parse_seconds(value, &v);
	if (r < 0)
		return r;
	if (v == 0 || v == USEC_INFINITY || v > INT64_MAX)
		return -EINVAL;
	*(uint64_t *)field = v;
	return 0;
}

const ConfigValueType config_value_timeout = {
	config_parse_timeout,
	config_limit_to_json,
	"expected a time span greater than 0 like 30s or 2min (units us, ms, s, min, h, d, w)",
};

DEFINE_CONFIG_ENUM(storage, PstoredStorage, storage_names, pstored_storage_to_string)
DEFINE_CONFIG_ENUM(http_method, PstoredHttpMethod, http_method_names, pstored_http_method_to_string)
DEFINE_CONFIG_ENUM(target_type_name, PstoredTargetType, target_type_names,
		   pstored_target_type_to_string)

const ConfigValueType config_value_storage = {
	config_parse_storage,
	config_storage_to_json,
	"expected both, store, journal or none",
};

const ConfigValueType config_value_http_method = {
	config_parse_http_method,
	config_http_method_to_json,
	"expected PUT or POST",
};

/* Type= has no default: a target without one is disabled once all files are read. */
static int config_parse_target_type(const char *value, void *field, char **ret_detail)
{
	if (value[0] != '\0')
		return config_parse_target_type_name(value, field, ret_detail);
	*(PstoredTargetType *)field = _PSTORED_TARGET_TYPE_INVALID;
	return 0;
}

const ConfigValueType config_value_target_type = {
	config_parse_target_type,
	config_target_type_name_to_json,
	"expected journal-remote, http-json or clickhouse",
};

/* "" unsets the field (NULL). */
static int config_set_string(char **field, const char *value)
{
	char *copy = NULL;

	if (value[0] != '\0') {
		copy = strdup(value);
		if (!copy)
			return -ENOMEM;
	}
	free(*field);
	*field = copy;
	return 0;
}

static json_t *config_string_to_json(const void *field)
{
	const char *s = *(char *const *)field;

	return s ? json_string(s) : json_null();
}

/* C0, DEL and C1 (utf8_control_length()): a terminal acts on each. */
static bool has_control_chars(const char *s)
{
	for (size_t n = strlen(s); n > 0; s++, n--)
		if (utf8_control_length((const uint8_t *)s, n) > 0)
			return true;
	return false;
}

static bool url_is_valid(const char *url)
{
	const char *host;

	if (has_control_chars(url) || strchr(url, ' '))
		return false;
	if (strneq(url, "https://", 8))
		host = url + 8;
	else if (strneq(url, "http://", 7))
		host = url + 7;
	else
		return false;
	return host[0] != '\0' && host[0] != '/';
}

static int config_parse_url(const char *value, void *field, char **ret_detail)
{
	if (value[0] != '\0' && !url_is_valid(value))
		return -EINVAL;
	return config_set_string(field, value);
}

const ConfigValueType config_value_url = {
	config_parse_url,
	config_string_to_json,
	"expected an http:// or https:// URL",
};

static int config_parse_path(const char *value, void *field, char **ret_detail)
{
	if (value[0] != '\0' && (has_control_chars(value) || value[0] != '/'))
		return -EINVAL;
	return config_set_string(field, value);
}

const ConfigValueType config_value_path = {
	config_parse_path,
	config_string_to_json,
	"expected an absolute path",
};

/* Returns 0 if regcomp() takes re, else -EINVAL with the reason in *ret_detail. */
static int regex_validate(const char *re, char **ret_detail)
{
	const char *why;
	char buf[256];
	regex_t compiled;
	int r;

	why = regex_check_size(re);
	if (why) {
		*ret_detail = strdup(why);
		return -EINVAL;
	}
	r = regcomp(&compiled, re, REG_EXTENDED | REG_NOSUB);
	if (r != 0) {
		regerror(r, &compiled, buf, sizeof(buf));
		if (asprintf(ret_detail, "%s (regex(7))", buf) < 0)
			*ret_detail = NULL;
		return -EINVAL;
	}
	regfree(&compiled);
	return 0;
}

/* Each RedactRegex= line adds one; "" empties the list. */
static int config_parse_regex_list(const char *value, void *field, char **ret_detail)
{
	char ***list = field, **l;
	size_t n = 0;
	int r;

	if (value[0] == '\0') {
		l = calloc(1, sizeof(char *));
		if (!l)
			return -ENOMEM;
		config_strv_free(*list);
		*list = l;
		return 0;
	}
	r = regex_validate(value, ret_detail);
	if (r < 0)
		return r;

	while ((*list)[n])
		n++;
	l = realloc(*list, (n + 2) * sizeof(char *));
	if (!l)
		return -ENOMEM;
	*list = l;
	l[n] = strdup(value);
	if (!l[n])
		return -ENOMEM;
	l[n + 1] = NULL;
	return 0;
}

static json_t *config_regex_list_to_json(const void *field)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (char *const *p = *(char **const *)field; *p; p++)
		if (json_array_append_new(a, json_string(*p)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

const ConfigValueType config_value_regex_list = {
	config_parse_regex_list,
	config_regex_list_to_json,
	"expected a POSIX extended regular expression (regex(7))",
};
