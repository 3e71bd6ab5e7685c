/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config-regex.h"
#include "config.h"
#include "fs-util.h"
#include "macro.h"
#include "parse-util.h"
#include "time-util.h"

/*
 * Syntax (a subset of systemd.syntax(7)): "[Section]" lines, "Key=Value"
 * lines, comment lines starting with '#' or ';', empty lines. Keys are
 * case-sensitive; the value is everything after the first '=', with
 * surrounding whitespace removed, ';' included; an empty value resets the
 * key to its default. Lines have no length limit, indented lines are lines
 * of their own, and ':' does not separate a key from its value.
 */

/* Section names are at most 49 bytes, so target names at most 42. */
#define SECTION_NAME_MAX 49
#define TARGET_PREFIX "Target."
#define TARGET_NAME_MAX (SECTION_NAME_MAX - (sizeof(TARGET_PREFIX) - 1))
#define KEY_NAME_MAX 64

typedef enum Section {
	SECTION_NONE,
	SECTION_IGNORED, /* after a section header that was not understood */
	SECTION_ARCHIVE,
	SECTION_STORE,
	SECTION_TARGET,
	_SECTION_MAX,
} Section;

static const char *const section_names[_SECTION_MAX] = {
	[SECTION_NONE] = "",
	[SECTION_ARCHIVE] = "Archive",
	[SECTION_STORE] = "Store",
	[SECTION_TARGET] = "Target.NAME",
};

typedef enum ValueKind {
	VALUE_BOOL,
	VALUE_SIZE,	  /* bytes, > 0 */
	VALUE_SIZE_LIMIT, /* bytes or "infinity" */
	VALUE_COUNT_LIMIT,
	VALUE_TIME_LIMIT,
	VALUE_TIMEOUT, /* finite time span, > 0 */
	VALUE_STORAGE,
	VALUE_TARGET_TYPE,
	VALUE_HTTP_METHOD,
	VALUE_URL,
	VALUE_PATH,
	VALUE_REGEX_LIST,
} ValueKind;

typedef struct ConfigKey {
	const char *name;
	ValueKind kind;
	size_t offset; /* in PstoredConfig or PstoredTarget */
	const char *default_value;
	bool zero_is_unlimited; /* limits: "0" means the same as "infinity" */
} ConfigKey;

static const ConfigKey archive_keys[] = {
	{"Storage", VALUE_STORAGE, offsetof(PstoredConfig, storage), "both"},
	{"Unlink", VALUE_BOOL, offsetof(PstoredConfig, unlink), "yes"},
	{"KeepConsole", VALUE_BOOL, offsetof(PstoredConfig, keep_console), "yes"},
	{"MaxRecordSize", VALUE_SIZE, offsetof(PstoredConfig, max_record_size), "1M"},
	{"MaxParts", VALUE_COUNT_LIMIT, offsetof(PstoredConfig, max_parts), "1024"},
	{"MaxLogSize", VALUE_SIZE, offsetof(PstoredConfig, max_log_size), "8M"},
	{"MaxRecordsPerRun", VALUE_COUNT_LIMIT, offsetof(PstoredConfig, max_records_per_run),
	 "4096"},
	{"MaxBytesPerRun", VALUE_SIZE_LIMIT, offsetof(PstoredConfig, max_bytes_per_run), "64M"},
};

static const ConfigKey store_keys[] = {
	{"MaxAge", VALUE_TIME_LIMIT, offsetof(PstoredConfig, max_age_usec), "infinity", true},
	{"MaxUse", VALUE_SIZE_LIMIT, offsetof(PstoredConfig, max_use), "256M", true},
	{"MaxCrashes", VALUE_COUNT_LIMIT, offsetof(PstoredConfig, max_crashes), "1000", true},
	{"KeepUnsent", VALUE_BOOL, offsetof(PstoredConfig, keep_unsent), "yes"},
};

static const ConfigKey target_keys[] = {
	{"Type", VALUE_TARGET_TYPE, offsetof(PstoredTarget, type), ""},
	{"URL", VALUE_URL, offsetof(PstoredTarget, url), ""},
	{"Method", VALUE_HTTP_METHOD, offsetof(PstoredTarget, method), "PUT"},
	{"CAFile", VALUE_PATH, offsetof(PstoredTarget, ca_file), ""},
	{"ClientCertificate", VALUE_PATH, offsetof(PstoredTarget, client_certificate), ""},
	{"ClientKey", VALUE_PATH, offsetof(PstoredTarget, client_key), ""},
	{"TokenFile", VALUE_PATH, offsetof(PstoredTarget, token_file), ""},
	{"Timeout", VALUE_TIMEOUT, offsetof(PstoredTarget, timeout_usec), "30s"},
	{"MaxPerDay", VALUE_COUNT_LIMIT, offsetof(PstoredTarget, max_per_day), "32"},
	{"MaxBytesPerDay", VALUE_SIZE_LIMIT, offsetof(PstoredTarget, max_bytes_per_day), "24M"},
	{"MaxDocumentSize", VALUE_SIZE_LIMIT, offsetof(PstoredTarget, max_document_size), "4M"},
	{"Redact", VALUE_BOOL, offsetof(PstoredTarget, redact), "yes"},
	{"RedactRegex", VALUE_REGEX_LIST, offsetof(PstoredTarget, redact_regex), ""},
	{"AllowInsecureCredentials", VALUE_BOOL,
	 offsetof(PstoredTarget, allow_insecure_credentials), "no"},
};

static const struct {
	const ConfigKey *keys;
	size_t n_keys;
} section_keys[_SECTION_MAX] = {
	[SECTION_ARCHIVE] = {archive_keys, ARRAY_SIZE(archive_keys)},
	[SECTION_STORE] = {store_keys, ARRAY_SIZE(store_keys)},
	[SECTION_TARGET] = {target_keys, ARRAY_SIZE(target_keys)},
};

static const char *const storage_names[] = {
	[PSTORED_STORAGE_BOTH] = "both",
	[PSTORED_STORAGE_STORE] = "store",
	[PSTORED_STORAGE_JOURNAL] = "journal",
	[PSTORED_STORAGE_NONE] = "none",
};

static const char *const target_type_names[] = {
	[PSTORED_TARGET_JOURNAL_REMOTE] = "journal-remote",
	[PSTORED_TARGET_HTTP_JSON] = "http-json",
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

static void strv_free(char **l)
{
	if (!l)
		return;
	for (char **p = l; *p; p++)
		free(*p);
	free(l);
}

static void target_done(PstoredTarget *t)
{
	free(t->name);
	free(t->url);
	free(t->ca_file);
	free(t->client_certificate);
	free(t->client_key);
	free(t->token_file);
	strv_free(t->redact_regex);
}

PstoredConfig *pstored_config_free(PstoredConfig *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_targets; i++)
		target_done(&c->targets[i]);
	free(c->targets);
	for (size_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c);
	return NULL;
}

const PstoredTarget *pstored_config_find_target(const PstoredConfig *c, const char *name)
{
	for (size_t i = 0; i < c->n_targets; i++)
		if (streq(c->targets[i].name, name))
			return &c->targets[i];
	return NULL;
}

/* What a value of each kind looks like, for error messages. */
static const char *value_kind_expected(const ConfigKey *k)
{
	switch (k->kind) {
	case VALUE_BOOL:
		return "expected yes or no (also true/false, on/off, 1/0)";
	case VALUE_SIZE:
		return "expected a size in bytes greater than 0, like 512K or 1M (K, M, G, T are "
		       "powers of 1024)";
	case VALUE_SIZE_LIMIT:
		return k->zero_is_unlimited
			       ? "expected a size like 256M (K, M, G, T are powers of "
				 "1024), or 0 or infinity for no limit"
			       : "expected a size greater than 0 like 4M (K, M, G, T are "
				 "powers of 1024), or infinity for no limit";
	case VALUE_COUNT_LIMIT:
		return k->zero_is_unlimited
			       ? "expected a number, or 0 or infinity for no limit"
			       : "expected a number greater than 0, or infinity for no limit";
	case VALUE_TIME_LIMIT:
		return "expected a time span like 30d or 12h (units us, ms, s, min, h, d, w, M, "
		       "y), "
		       "or 0 or infinity for no limit";
	case VALUE_TIMEOUT:
		return "expected a time span greater than 0 like 30s or 2min (units us, ms, s, "
		       "min, "
		       "h, d, w)";
	case VALUE_STORAGE:
		return "expected both, store, journal or none";
	case VALUE_TARGET_TYPE:
		return "expected journal-remote or http-json";
	case VALUE_HTTP_METHOD:
		return "expected PUT or POST";
	case VALUE_URL:
		return "expected an http:// or https:// URL";
	case VALUE_PATH:
		return "expected an absolute path";
	case VALUE_REGEX_LIST:
		return "expected a POSIX extended regular expression (regex(7))";
	}
	return "invalid value";
}

static bool has_control_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return true;
	return false;
}

static int parse_limit(const ConfigKey *k, const char *value, uint64_t *ret)
{
	uint64_t v;
	int r;

	if (streq(value, "infinity")) {
		*ret = PSTORED_CONFIG_UNLIMITED;
		return 0;
	}
	switch (k->kind) {
	case VALUE_SIZE:
	case VALUE_SIZE_LIMIT:
		r = parse_size(value, &v);
		break;
	case VALUE_COUNT_LIMIT:
		r = parse_uint64(value, &v);
		break;
	default:
		r = parse_timespan(value, USEC_PER_SEC, &v);
		break;
	}
	if (r < 0)
		return r;
	/* Values must fit in JSON integers (int64) and leave UINT64_MAX for "no limit". */
	if (v > INT64_MAX)
		return -ERANGE;
	if (v == 0) {
		if (!k->zero_is_unlimited)
			return -EINVAL;
		v = PSTORED_CONFIG_UNLIMITED;
	}
	*ret = v;
	return 0;
}

/*
 * Parses value into the field of k in base. On failure returns -EINVAL or
 * -ERANGE, and may set *ret_detail to a more precise reason (owned by the
 * caller) than value_kind_expected().
 */
static int config_key_assign(const ConfigKey *k, void *base, const char *value, char **ret_detail)
{
	void *field = (char *)base + k->offset;
	int r;

	switch (k->kind) {
	case VALUE_BOOL:
		return parse_boolean(value, field);

	case VALUE_SIZE:
		if (streq(value, "infinity"))
			return -EINVAL;
		return parse_limit(k, value, field);
	case VALUE_SIZE_LIMIT:
	case VALUE_COUNT_LIMIT:
	case VALUE_TIME_LIMIT:
		return parse_limit(k, value, field);

	case VALUE_TIMEOUT: {
		uint64_t v;

		r = parse_timespan(value, USEC_PER_SEC, &v);
		if (r < 0)
			return r;
		if (v == 0 || v == USEC_INFINITY || v > INT64_MAX)
			return -EINVAL;
		*(uint64_t *)field = v;
		return 0;
	}

	case VALUE_STORAGE:
		r = string_table_lookup(storage_names, ARRAY_SIZE(storage_names), value);
		if (r < 0)
			return r;
		*(PstoredStorage *)field = (PstoredStorage)r;
		return 0;

	case VALUE_TARGET_TYPE:
		if (value[0] == '\0') {
			*(PstoredTargetType *)field = _PSTORED_TARGET_TYPE_INVALID;
			return 0;
		}
		r = string_table_lookup(target_type_names, ARRAY_SIZE(target_type_names), value);
		if (r < 0)
			return r;
		*(PstoredTargetType *)field = (PstoredTargetType)r;
		return 0;

	case VALUE_HTTP_METHOD:
		r = string_table_lookup(http_method_names, ARRAY_SIZE(http_method_names), value);
		if (r < 0)
			return r;
		*(PstoredHttpMethod *)field = (PstoredHttpMethod)r;
		return 0;

	case VALUE_URL:
	case VALUE_PATH: {
		char **s = field;
		char *copy = NULL;

		if (value[0] != '\0') {
			if (has_control_chars(value) ||
			    (k->kind == VALUE_URL && strchr(value, ' ')))
				return -EINVAL;
			if (k->kind == VALUE_PATH && value[0] != '/')
				return -EINVAL;
			if (k->kind == VALUE_URL) {
				const char *host;

				if (strneq(value, "https://", 8))
					host = value + 8;
				else if (strneq(value, "http://", 7))
					host = value + 7;
				else
					return -EINVAL;
				if (host[0] == '\0' || host[0] == '/')
					return -EINVAL;
			}
			copy = strdup(value);
			if (!copy)
				return -ENOMEM;
		}
		free(*s);
		*s = copy;
		return 0;
	}

	case VALUE_REGEX_LIST: {
		char ***list = field;
		const char *why;
		size_t n = 0;
		char **l;
		regex_t re;

		if (value[0] == '\0') {
			strv_free(*list);
			l = calloc(1, sizeof(char *));
			if (!l)
				return -ENOMEM;
			*list = l;
			return 0;
		}

		why = regex_check_size(value);
		if (why) {
			*ret_detail = strdup(why);
			return -EINVAL;
		}
		r = regcomp(&re, value, REG_EXTENDED | REG_NOSUB);
		if (r != 0) {
			char buf[256];

			regerror(r, &re, buf, sizeof(buf));
			if (asprintf(ret_detail, "%s (regex(7))", buf) < 0)
				*ret_detail = NULL;
			return -EINVAL;
		}
		regfree(&re);

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
	}
	return -EINVAL;
}

static int config_keys_apply_defaults(const ConfigKey *keys, size_t n, void *base)
{
	for (size_t i = 0; i < n; i++) {
		int r = config_key_assign(&keys[i], base, keys[i].default_value, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The count of the regex list of a target, kept next to the NULL-terminated list. */
static void target_update_counts(PstoredTarget *t)
{
	t->n_redact_regex = 0;
	while (t->redact_regex[t->n_redact_regex])
		t->n_redact_regex++;
}

int pstored_config_new_default(PstoredConfig **ret)
{
	_cleanup_(pstored_config_freep) PstoredConfig *c = NULL;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	r = config_keys_apply_defaults(archive_keys, ARRAY_SIZE(archive_keys), c);
	if (r < 0)
		return r;
	r = config_keys_apply_defaults(store_keys, ARRAY_SIZE(store_keys), c);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

/*
 * Where a target was first defined, and where Method= was set, for the final
 * checks; and whether a problem was found in it.
 */
typedef struct TargetOrigin {
	char *path;
	unsigned line;
	char *method_path;
	unsigned method_line;
	bool disabled;
} TargetOrigin;

/* State of one pstored_config_load() call, across all its files. */
typedef struct ConfigLoader {
	PstoredConfig *config;
	TargetOrigin *origins; /* parallel to config->targets */
	char *error;	       /* why the load failed */
} ConfigLoader;

/* State of one file, while it is read. */
typedef struct ConfigFile {
	ConfigLoader *loader;
	const char *path;
	FILE *f;
	unsigned line;
	Section section;
	char section_name[SECTION_NAME_MAX + 1]; /* as written, when section is known */
	size_t target;				 /* index of the current [Target.NAME] */
} ConfigFile;

static void loader_done(ConfigLoader *l)
{
	if (l->config)
		for (size_t i = 0; i < l->config->n_targets; i++) {
			free(l->origins[i].path);
			free(l->origins[i].method_path);
		}
	free(l->origins);
	free(l->error);
}

/*
 * Adds "PATH:LINE: what; done" ("PATH: what; done" when line is 0) to the
 * warnings of the configuration being loaded, what being format and ap.
 * Returns 0 or -ENOMEM.
 */
_printf_(5, 0) static int loader_warnv(ConfigLoader *l, const char *path, unsigned line,
				       const char *done, const char *format, va_list ap)
{
	PstoredConfig *c = l->config;
	_cleanup_free_ char *what = NULL;
	char **warnings, *msg;
	int r;

	if (vasprintf(&what, format, ap) < 0) {
		what = NULL;
		return -ENOMEM;
	}
	if (line > 0)
		r = asprintf(&msg, "%s:%u: %s; %s", path, line, what, done);
	else
		r = asprintf(&msg, "%s: %s; %s", path, what, done);
	if (r < 0)
		return -ENOMEM;
	warnings = realloc(c->warnings, (c->n_warnings + 1) * sizeof(char *));
	if (!warnings) {
		free(msg);
		return -ENOMEM;
	}
	c->warnings = warnings;
	warnings[c->n_warnings++] = msg;
	return 0;
}

/* A warning about a whole file or directory. */
_printf_(4, 5) static int loader_warn(ConfigLoader *l, const char *path, const char *done,
				      const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = loader_warnv(l, path, 0, done, format, ap);
	va_end(ap);
	return r;
}

/*
 * Adds a warning about the current line of f: "PATH:LINE: message; done",
 * done being what happens instead (NULL: "line ignored"). In a [Target.NAME]
 * section the target is disabled too, and the warning says so. Returns 0, or
 * -ENOMEM.
 */
_printf_(3, 4) static int config_file_warn(ConfigFile *f, const char *done, const char *format, ...)
{
	_cleanup_free_ char *disabled = NULL;
	va_list ap;
	int r;

	if (f->section == SECTION_TARGET) {
		f->loader->origins[f->target].disabled = true;
		if (asprintf(&disabled, "%s%s[Target.%s] disabled", done ?: "", done ? ", " : "",
			     f->loader->config->targets[f->target].name) < 0) {
			disabled = NULL;
			return -ENOMEM;
		}
		done = disabled;
	}

	va_start(ap, format);
	r = loader_warnv(f->loader, f->path, f->line, done ?: "line ignored", format, ap);
	va_end(ap);
	return r;
}

static int loader_add_target(ConfigFile *f, const char *name, size_t *ret)
{
	PstoredConfig *c = f->loader->config;
	PstoredTarget *targets, *t;
	TargetOrigin *origins;
	size_t n = c->n_targets;
	int r;

	for (size_t i = 0; i < n; i++)
		if (streq(c->targets[i].name, name)) {
			*ret = i;
			return 0;
		}

	targets = realloc(c->targets, (n + 1) * sizeof(*targets));
	if (!targets)
		return -ENOMEM;
	c->targets = targets;
	origins = realloc(f->loader->origins, (n + 1) * sizeof(*origins));
	if (!origins)
		return -ENOMEM;
	f->loader->origins = origins;

	t = &targets[n];
	*t = (PstoredTarget){};
	origins[n] = (TargetOrigin){.line = f->line};
	c->n_targets++;

	t->name = strdup(name);
	origins[n].path = strdup(f->path);
	if (!t->name || !origins[n].path)
		return -ENOMEM;
	r = config_keys_apply_defaults(target_keys, ARRAY_SIZE(target_keys), t);
	if (r < 0)
		return r;
	target_update_counts(t);
	*ret = n;
	return 0;
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_target_name_char(char c)
{
	return is_key_char(c) || c == '-' || c == '_';
}

static void strip_trailing_space(char *s, size_t *len)
{
	while (*len > 0 && strchr(" \t\r\n", s[*len - 1]))
		s[--*len] = '\0';
}

/*
 * Checks a "[...]" line (without surrounding whitespace) and makes it the
 * current section. Returns 1, 0 when the line is not understood (warned, and
 * the lines up to the next header are ignored), or -ENOMEM.
 */
static int config_file_begin_section(ConfigFile *f, char *s, size_t len)
{
	const char *name;
	Section section;
	int r;

	/* Whatever the header meant, the lines under it belong to no section known so far. */
	f->section = SECTION_IGNORED;

	if (s[len - 1] != ']')
		return config_file_warn(f, "section ignored",
					"invalid section header '%s': expected '[Name]' alone "
					"on the line",
					s);
	s[len - 1] = '\0';
	name = s + 1;

	if (streq(name, "Archive"))
		section = SECTION_ARCHIVE;
	else if (streq(name, "Store"))
		section = SECTION_STORE;
	else if (strneq(name, TARGET_PREFIX, strlen(TARGET_PREFIX))) {
		const char *t = name + strlen(TARGET_PREFIX);
		size_t tlen = strlen(t);

		if (tlen == 0 || tlen > TARGET_NAME_MAX)
			return config_file_warn(f, "section ignored",
						"invalid section [%s]: a target name must have 1 "
						"to %zu characters",
						name, TARGET_NAME_MAX);
		for (const char *p = t; *p; p++)
			if (!is_target_name_char(*p))
				return config_file_warn(f, "section ignored",
							"invalid section [%s]: a target name may "
							"only have letters, digits, '-' and '_'",
							name);
		r = loader_add_target(f, t, &f->target);
		if (r < 0)
			return r;
		section = SECTION_TARGET;
	} else
		return config_file_warn(f, "section ignored",
					"unknown section [%s] (known sections: [Archive], [Store], "
					"[Target.NAME])",
					name);

	/* Not longer than SECTION_NAME_MAX: the name is one of those checked above. */
	strcpy(f->section_name, name);
	f->section = section;
	return 1;
}

/*
 * Checks a "Key=Value" line (without surrounding whitespace) and splits it in
 * place into *ret_key and *ret_value. Returns 1, 0 when the line is to be
 * ignored (warned), or -ENOMEM.
 */
static int config_file_split_assignment(ConfigFile *f, char *s, const char **ret_key,
					const char **ret_value)
{
	char *eq = strchr(s, '='), *key_end, *value;
	size_t key_len;

	/* systemd ignores the lines of a section it does not know without a word each. */
	if (f->section == SECTION_IGNORED)
		return 0;
	if (!eq)
		return config_file_warn(f, NULL,
					"syntax error: expected '[Section]' or 'Key=Value', "
					"got '%s'",
					s);
	key_end = eq;
	while (key_end > s && strchr(" \t", key_end[-1]))
		key_end--;
	key_len = (size_t)(key_end - s);
	*key_end = '\0';
	for (value = eq + 1; *value == ' ' || *value == '\t'; value++)
		;

	if (key_len == 0)
		return config_file_warn(f, NULL, "syntax error: assignment without a key name");
	for (size_t i = 0; i < key_len; i++)
		if (!is_key_char(s[i]) || key_len > KEY_NAME_MAX)
			return config_file_warn(f, NULL,
						"invalid key name '%s': keys are letters and "
						"digits, like MaxUse",
						s);
	if (f->section == SECTION_NONE)
		return config_file_warn(f, NULL,
					"key '%s' outside of any section: put it under "
					"[Archive], [Store] or [Target.NAME]",
					s);
	*ret_key = s;
	*ret_value = value;
	return 1;
}

static const ConfigKey *config_key_find(Section section, const char *name)
{
	for (size_t i = 0; i < section_keys[section].n_keys; i++)
		if (streq(section_keys[section].keys[i].name, name))
			return &section_keys[section].keys[i];
	return NULL;
}

static int config_file_unknown_key(ConfigFile *f, const char *key)
{
	for (Section s = SECTION_ARCHIVE; s < _SECTION_MAX; s++)
		if (s != f->section && config_key_find(s, key))
			return config_file_warn(f, NULL,
						"unknown key '%s' in section [%s] (%s= belongs "
						"in section [%s])",
						key, f->section_name, key, section_names[s]);
	return config_file_warn(f, NULL, "unknown key '%s' in section [%s]", key,
				f->section_name);
}

/* Sets key of the current section to value. Returns 0, or -ENOMEM. */
static int config_file_assign(ConfigFile *f, const char *name, const char *value)
{
	_cleanup_free_ char *detail = NULL, *done = NULL;
	const char *section = f->section_name;
	const ConfigKey *k;
	void *base;
	int r;

	k = config_key_find(f->section, name);
	if (!k)
		return config_file_unknown_key(f, name);

	if (f->section == SECTION_TARGET) {
		TargetOrigin *o = &f->loader->origins[f->target];

		base = &f->loader->config->targets[f->target];
		if (k->kind == VALUE_HTTP_METHOD) {
			free(o->method_path);
			o->method_path = strdup(f->path);
			if (!o->method_path)
				return -ENOMEM;
			o->method_line = value[0] ? f->line : 0;
		}
	} else
		base = f->loader->config;

	r = config_key_assign(k, base, value[0] ? value : k->default_value, &detail);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		if (f->section == SECTION_TARGET)
			target_update_counts(base);
		return 0;
	}

	/* [Archive] and [Store] keys all have defaults; a target is disabled instead. */
	if (f->section != SECTION_TARGET &&
	    asprintf(&done, "line ignored, %s= keeps its previous value (default %s)", name,
		     k->default_value) < 0) {
		done = NULL;
		return -ENOMEM;
	}
	if (r == -ERANGE)
		return config_file_warn(f, done, "value '%s' of key '%s' in section [%s] is too large",
					value, name, section);
	return config_file_warn(f, done, "invalid value '%s' for key '%s' in section [%s]: %s",
				value, name, section, detail ?: value_kind_expected(k));
}

/*
 * Reads one line of the file, without its newline. Returns 0, or -ENOMEM.
 * Whatever is wrong in it is a warning.
 */
static int config_file_parse_line(ConfigFile *f, char *s)
{
	const char *key = NULL, *value = NULL;
	size_t len;
	int r;

	if (f->line == 1 && strneq(s, "\xef\xbb\xbf", 3)) /* UTF-8 byte order mark */
		s += 3;
	s += strspn(s, " \t");
	len = strlen(s);
	strip_trailing_space(s, &len);

	if (len == 0 || s[0] == '#' || s[0] == ';')
		return 0;
	if (s[0] == '[')
		r = config_file_begin_section(f, s, len);
	else {
		r = config_file_split_assignment(f, s, &key, &value);
		if (r > 0)
			r = config_file_assign(f, key, value);
	}
	return MIN(r, 0);
}

/* Reads the lines of f. Returns 0, or -ENOMEM. */
static int config_file_parse(ConfigFile *f)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	ssize_t n;
	int r;

	for (;;) {
		errno = 0;
		n = getline(&buf, &size, f->f);
		if (n < 0) {
			if (ferror(f->f))
				return config_file_warn(f, "rest of the file ignored",
							"cannot read: %s", strerror(errno));
			return 0;
		}
		f->line++;
		if (memchr(buf, '\0', (size_t)n))
			return config_file_warn(f, "rest of the file ignored",
						"line contains a NUL byte: this is not a text "
						"file");
		r = config_file_parse_line(f, buf);
		if (r < 0)
			return r;
	}
}

/*
 * Opens a file to read, which must be a regular file or /dev/null. Returns
 * -ENOENT when it does not exist, other errors with *ret_why (static text) set.
 */
static int config_open(const char *path, FILE **ret, const char **ret_why)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	FILE *f;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*ret_why = strerror(errno);
		return -errno;
	}
	if (fstat(fd, &st) < 0) {
		*ret_why = strerror(errno);
		return -errno;
	}
	if (S_ISDIR(st.st_mode)) {
		*ret_why = strerror(EISDIR);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) && !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))) {
		*ret_why = "not a regular file";
		return -EINVAL;
	}
	f = fdopen(fd, "re");
	if (!f) {
		*ret_why = strerror(errno);
		return -errno;
	}
	TAKE_FD(fd);
	*ret = f;
	return 0;
}

/*
 * Parses one file. -ENOENT when it does not exist. A file that cannot be
 * opened is an error (in l->error) if required, else a warning and 0.
 */
static int config_parse_file(ConfigLoader *l, const char *path, bool required)
{
	_cleanup_fclose_ FILE *stream = NULL;
	ConfigFile f = {
		.loader = l,
		.path = path,
	};
	const char *why = NULL;
	int r;

	r = config_open(path, &stream, &why);
	if (r == -ENOENT && !required)
		return r;
	if (r < 0 && required) {
		free(l->error);
		if (asprintf(&l->error, "%s: %s", path, why) < 0)
			l->error = NULL;
		return r;
	}
	if (r < 0)
		return loader_warn(l, path, "file ignored", "cannot read: %s", why);
	f.f = stream;
	return config_file_parse(&f);
}

/* Returns whether the authority part of an http(s) URL has a password ("user:password@"). */
static bool url_has_password(const char *url)
{
	const char *authority = strstr(url, "://") + 3;
	size_t len = strcspn(authority, "/?#");
	const char *at = memrchr(authority, '@', len);

	return at && memchr(authority, ':', (size_t)(at - authority));
}

/* Why a target must not send over plain http://, or NULL. */
static const char *target_insecure_credentials(const PstoredTarget *t)
{
	if (t->allow_insecure_credentials || !strneq(t->url, "http://", 7))
		return NULL;
	if (t->token_file)
		return "would send the bearer token of TokenFile= in clear text over http://";
	if (url_has_password(t->url))
		return "would send the password in URL= in clear text over http://";
	if (t->client_certificate)
		return "has ClientCertificate=, which only https:// uses (over http:// the "
		       "collector cannot tell who sends)";
	return NULL;
}

/*
 * Checks what can only be checked of a target once every file is read; disables it if it
 * fails. Returns 0, or -ENOMEM.
 */
static int config_check_target(ConfigLoader *l, size_t i)
{
	const PstoredTarget *t = &l->config->targets[i];
	const TargetOrigin *o = &l->origins[i];
	ConfigFile f = {.loader = l,
			.path = o->path,
			.line = o->line,
			.section = SECTION_TARGET,
			.target = i};
	const char *insecure;

	if (t->type == _PSTORED_TARGET_TYPE_INVALID)
		return config_file_warn(&f, NULL,
					"[Target.%s] has no Type= (set journal-remote or http-json)",
					t->name);
	if (!t->url)
		return config_file_warn(&f, NULL, "[Target.%s] has no URL=", t->name);
	if (t->type == PSTORED_TARGET_JOURNAL_REMOTE && o->method_line > 0) {
		f.path = o->method_path;
		f.line = o->method_line;
		return config_file_warn(&f, NULL,
					"Method= in [Target.%s] applies to Type=http-json only "
					"(journal-remote targets always POST)",
					t->name);
	}
	if (t->type == PSTORED_TARGET_HTTP_JSON && t->method == PSTORED_HTTP_PUT &&
	    !strstr(t->url, "{id}"))
		return config_file_warn(&f, NULL,
					"URL= of [Target.%s] has no {id}: with Method=PUT each "
					"crash needs its own URL, like https://host/crashes/{id}",
					t->name);
	if (!t->client_certificate != !t->client_key)
		return config_file_warn(&f, NULL,
					"[Target.%s] needs both ClientCertificate= and ClientKey=, "
					"or neither",
					t->name);
	insecure = target_insecure_credentials(t);
	if (insecure)
		return config_file_warn(&f, NULL,
					"[Target.%s] %s: use an https:// URL, or set "
					"AllowInsecureCredentials=yes in it if the network is "
					"trusted",
					t->name, insecure);
	return 0;
}

static int config_check_targets(ConfigLoader *l)
{
	for (size_t i = 0; i < l->config->n_targets; i++) {
		int r;

		if (l->origins[i].disabled)
			continue;
		r = config_check_target(l, i);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Removes the disabled targets from the configuration. */
static void config_drop_disabled_targets(ConfigLoader *l)
{
	PstoredConfig *c = l->config;
	size_t n = 0;

	for (size_t i = 0; i < c->n_targets; i++) {
		if (l->origins[i].disabled) {
			target_done(&c->targets[i]);
			free(l->origins[i].path);
			free(l->origins[i].method_path);
			continue;
		}
		c->targets[n] = c->targets[i];
		l->origins[n++] = l->origins[i];
	}
	c->n_targets = n;
}

typedef struct DropIn {
	char *name;
	char *path;
	bool masked;
} DropIn;

typedef struct DropInList {
	DropIn *items;
	size_t n;
} DropInList;

static void dropin_list_done(DropInList *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].name);
		free(d->items[i].path);
	}
	free(d->items);
}

static int dropin_compare(const void *a, const void *b)
{
	return strcmp(((const DropIn *)a)->name, ((const DropIn *)b)->name);
}

static bool dropin_list_has(const DropInList *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (streq(d->items[i].name, name))
			return true;
	return false;
}

static bool is_dropin_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > strlen(".conf") &&
	       streq(name + len - strlen(".conf"), ".conf");
}

/*
 * Adds the drop-ins of dir whose names are not in the list yet (from a
 * directory before it). A directory that cannot be read is a warning.
 */
static int dropin_list_add_dir(ConfigLoader *l, DropInList *d, const char *dir)
{
	DIR *dp;
	struct dirent *de;
	int r = 0;

	dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return loader_warn(l, dir, "directory ignored", "cannot read: %m");
	}

	FOREACH_DIRENT(
		de, dp,
		r = loader_warn(l, dir, "rest of the directory ignored", "cannot read: %m")) {
		struct stat st;
		DropIn *items, *item;
		bool masked;

		if (!is_dropin_name(de->d_name) || dropin_list_has(d, de->d_name))
			continue;
		/* Follows symlinks; a dangling one is ignored, as systemd does. */
		if (fstatat(dirfd(dp), de->d_name, &st, 0) < 0)
			continue;
		if (S_ISREG(st.st_mode))
			masked = st.st_size == 0;
		else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
			masked = true;
		else
			continue;

		items = realloc(d->items, (d->n + 1) * sizeof(*items));
		if (!items) {
			r = -ENOMEM;
			break;
		}
		d->items = items;
		item = &items[d->n];
		*item = (DropIn){.masked = masked};
		d->n++;
		item->name = strdup(de->d_name);
		if (!item->name || asprintf(&item->path, "%s/%s", dir, de->d_name) < 0) {
			item->path = NULL;
			r = -ENOMEM;
			break;
		}
	}
	closedir(dp);
	return r;
}

/* The configuration directories, highest priority first. */
static const char *const config_dirs[] = {
	"/etc",
	"/run",
	"/usr/local/lib",
	"/usr/lib",
};

static int config_parse_standard(ConfigLoader *l, const char *root)
{
	_cleanup_(dropin_list_done) DropInList dropins = {};
	size_t root_len;
	int r;

	if (!root)
		root = "";
	root_len = strlen(root);
	while (root_len > 0 && root[root_len - 1] == '/')
		root_len--;

	/* The main file: the first one that exists. */
	for (size_t i = 0; i < ARRAY_SIZE(config_dirs); i++) {
		_cleanup_free_ char *p = NULL;

		if (asprintf(&p, "%.*s%s/pstored.conf", (int)root_len, root, config_dirs[i]) < 0)
			return -ENOMEM;
		r = config_parse_file(l, p, false);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		break;
	}

	for (size_t i = 0; i < ARRAY_SIZE(config_dirs); i++) {
		_cleanup_free_ char *dir = NULL;

		if (asprintf(&dir, "%.*s%s/pstored.conf.d", (int)root_len, root, config_dirs[i]) <
		    0)
			return -ENOMEM;
		r = dropin_list_add_dir(l, &dropins, dir);
		if (r < 0)
			return r;
	}
	if (dropins.n > 0)
		qsort(dropins.items, dropins.n, sizeof(DropIn), dropin_compare);

	for (size_t i = 0; i < dropins.n; i++) {
		if (dropins.items[i].masked)
			continue;
		r = config_parse_file(l, dropins.items[i].path, false);
		if (r == -ENOENT) /* removed since it was listed */
			continue;
		if (r < 0)
			return r;
	}
	return 0;
}

int pstored_config_load(const char *path, const char *root, PstoredConfig **ret, char **ret_error)
{
	_cleanup_(pstored_config_freep) PstoredConfig *c = NULL;
	_cleanup_(loader_done) ConfigLoader l = {};
	int r;

	r = pstored_config_new_default(&c);
	if (r < 0)
		return r;
	l.config = c;

	if (path)
		r = config_parse_file(&l, path, true);
	else
		r = config_parse_standard(&l, root);
	if (r >= 0)
		r = config_check_targets(&l);
	if (r >= 0)
		config_drop_disabled_targets(&l);
	if (r < 0) {
		if (ret_error)
			*ret_error = TAKE_PTR(l.error);
		return r;
	}

	*ret = TAKE_PTR(c);
	return 0;
}

static json_t *json_limit(uint64_t v)
{
	return v == PSTORED_CONFIG_UNLIMITED ? json_string("infinity")
					     : json_integer((json_int_t)v);
}

static json_t *config_key_to_json(const ConfigKey *k, const void *base)
{
	const void *field = (const char *)base + k->offset;

	switch (k->kind) {
	case VALUE_BOOL:
		return json_boolean(*(const bool *)field);
	case VALUE_SIZE:
	case VALUE_SIZE_LIMIT:
	case VALUE_COUNT_LIMIT:
	case VALUE_TIME_LIMIT:
	case VALUE_TIMEOUT:
		return json_limit(*(const uint64_t *)field);
	case VALUE_STORAGE:
		return json_string(pstored_storage_to_string(*(const PstoredStorage *)field));
	case VALUE_TARGET_TYPE:
		return json_string(
			pstored_target_type_to_string(*(const PstoredTargetType *)field));
	case VALUE_HTTP_METHOD:
		return json_string(
			pstored_http_method_to_string(*(const PstoredHttpMethod *)field));
	case VALUE_URL:
	case VALUE_PATH: {
		const char *s = *(char *const *)field;
		return s ? json_string(s) : json_null();
	}
	case VALUE_REGEX_LIST: {
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
	}
	return NULL;
}

static json_t *config_keys_to_json(const ConfigKey *keys, size_t n, const void *base)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (json_object_set_new(o, keys[i].name, config_key_to_json(&keys[i], base)) < 0) {
			json_decref(o);
			return NULL;
		}
	return o;
}

int pstored_config_to_json(const PstoredConfig *c, json_t **ret)
{
	json_auto_t *o = NULL, *targets = NULL;

	targets = json_object();
	if (!targets)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_targets; i++)
		if (json_object_set_new(targets, c->targets[i].name,
					config_keys_to_json(target_keys, ARRAY_SIZE(target_keys),
							    &c->targets[i])) < 0)
			return -ENOMEM;

	o = json_pack("{s:o,s:o,s:O}", "Archive",
		      config_keys_to_json(archive_keys, ARRAY_SIZE(archive_keys), c), "Store",
		      config_keys_to_json(store_keys, ARRAY_SIZE(store_keys), c), "Target",
		      targets);
	if (!o)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}
