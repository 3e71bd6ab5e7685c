/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The types of the values of pstored.conf, as systemd's conf-parser has them:
 * one small parser each, with the value's JSON form and the words a warning
 * uses for what the value should look like. config.c's table gives each key
 * its type and the offset of its field.
 */

#include <jansson.h>

typedef struct ConfigValueType {
	/*
	 * Parses value into the field; "", the default of the keys that have
	 * none, unsets it where the type allows. Returns 0, -EINVAL, -ERANGE
	 * (too large) or -ENOMEM, and may set *ret_detail (the caller frees it)
	 * to a more precise reason than expected.
	 */
	int (*parse)(const char *value, void *field, char **ret_detail);
	json_t *(*to_json)(const void *field); /* NULL when out of memory */
	const char *expected;		       /* "expected ...", for warnings */
} ConfigValueType;

/* Limits are uint64_t fields, PSTORED_CONFIG_UNLIMITED for "infinity". */
extern const ConfigValueType config_value_boolean;
extern const ConfigValueType config_value_size;		       /* bytes, > 0, no "infinity" */
extern const ConfigValueType config_value_size_limit;	       /* bytes, > 0 */
extern const ConfigValueType config_value_size_limit_or_zero;  /* bytes, 0 is no limit */
extern const ConfigValueType config_value_count_limit;	       /* > 0 */
extern const ConfigValueType config_value_count_limit_or_zero; /* 0 is no limit */
extern const ConfigValueType config_value_time_limit;	       /* µs, 0 is no limit */
extern const ConfigValueType config_value_timeout;	       /* µs, finite, > 0 */
extern const ConfigValueType config_value_storage;	       /* PstoredStorage */
extern const ConfigValueType config_value_target_type;	       /* PstoredTargetType, "" is none */
extern const ConfigValueType config_value_http_method;	       /* PstoredHttpMethod */
extern const ConfigValueType config_value_url;		       /* char *, http:// or https:// */
extern const ConfigValueType config_value_path;		       /* char *, absolute */
extern const ConfigValueType config_value_regex_list;	       /* char **, "" empties it */

/* Frees a NULL-terminated list of strings (a regex list) and its strings. */
void config_strv_free(char **l);
