/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

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
 * key to its default.
 *
 * libinih reads the structure (sections, assignments, comments) through
 * config_file_read_line(), which hands it one line at a time. That reader
 * also checks each line strictly and keeps the whole line, so that the
 * assignment handler takes the value from the file's own text: libinih
 * would cut it at " ;" (inline comments), at its line length limit (200
 * bytes in Debian's build), and would join indented lines to the previous
 * value; none of these is systemd's syntax. Leading whitespace is removed
 * before libinih sees a line, so it never joins lines.
 */

/* libinih keeps section names in 50 bytes (MAX_SECTION) and truncates. */
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
 * glibc's regcomp() copies the operand of a bounded repetition once per count,
 * so nested intervals multiply: "((a{100}){100}){100}" is a million copies and
 * gigabytes of memory; stacked '+' ("a+++...") double each time. This
 * estimates the size of the expression with its repetitions expanded, so that
 * such an expression is refused instead.
 */
#define REGEX_EXPANDED_MAX 10000
#define REGEX_DEPTH_MAX 32

static const char *const regex_too_large = "the expression is too large once its repetitions "
					   "are expanded (nested {m,n} counts multiply); "
					   "simplify it";
static const char *const regex_adjacent = "adjacent repetition operators (like 'a*+' or "
					  "'a+{2}') are undefined in POSIX extended regular "
					  "expressions";

/* Returns NULL if re can be handed to regcomp(), else why not. */
static const char *regex_check_size(const char *re)
{
	uint64_t total[REGEX_DEPTH_MAX + 1] = {}, last[REGEX_DEPTH_MAX + 1] = {};
	size_t depth = 0;
	bool after_repetition = false;

	for (const char *p = re; *p; p++) {
		uint64_t atom = 1;
		bool repetition = *p == '*' || *p == '+' || *p == '?' || *p == '{';

		/* Stacked repetitions also make glibc's matcher take exponential time. */
		if (repetition && after_repetition)
			return regex_adjacent;
		after_repetition = false;

		switch (*p) {
		case '\\':
			if (p[1])
				p++;
			break;
		case '[': /* a bracket expression is one atom: "[]a]", "[^]a]", "[[:digit:]]" */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']') {
				if (*p == '[' && p[1] && strchr(":.=", p[1])) {
					char c = p[1];

					for (p += 2; *p && !(*p == c && p[1] == ']'); p++)
						;
					if (*p)
						p++;
				}
				if (*p)
					p++;
			}
			if (!*p)
				return NULL; /* unterminated: regcomp() refuses it */
			break;
		case '(':
			if (depth >= REGEX_DEPTH_MAX)
				return regex_too_large;
			depth++;
			total[depth] = last[depth] = 0;
			continue;
		case ')':
			if (depth == 0)
				break;
			atom = MAX(total[depth], 1);
			depth--;
			break;
		case '{': {
			uint64_t m = 0, n;
			const char *q = p + 1;

			while (*q >= '0' && *q <= '9' && m <= REGEX_EXPANDED_MAX)
				m = m * 10 + (uint64_t)(*q++ - '0');
			n = m;
			if (*q == ',') {
				q++;
				if (*q >= '0' && *q <= '9')
					for (n = 0;
					     *q >= '0' && *q <= '9' && n <= REGEX_EXPANDED_MAX;)
						n = n * 10 + (uint64_t)(*q++ - '0');
				else
					n = m + 1; /* "{m,}": m copies and a star */
			}
			if (*q != '}')
				break; /* not an interval */
			after_repetition = true;
			n = MAX(MIN(n, REGEX_EXPANDED_MAX + 1), 1);
			total[depth] += last[depth] * (n - 1);
			last[depth] *= n;
			if (total[depth] > REGEX_EXPANDED_MAX)
				return regex_too_large;
			p = q;
			continue;
		}
		case '+': /* "a+" is compiled as "aa*": one more copy, which "a++" doubles */
			total[depth] += last[depth];
			last[depth] *= 2;
			after_repetition = true;
			if (total[depth] > REGEX_EXPANDED_MAX)
				return regex_too_large;
			continue;
		case '*':
		case '?':
			after_repetition = true;
			continue;
		case '|':
		case '^':
		case '$':
			continue;
		}
		total[depth] += atom;
		last[depth] = atom;
		if (total[depth] > REGEX_EXPANDED_MAX)
			return regex_too_large;
	}
	return NULL;
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

/* State of one file, while libinih reads it. */
typedef struct ConfigFile {
	ConfigLoader *loader;
	const char *path;
	FILE *f;
	unsigned line;
	char *buf; /* the current line, from getline() */
	size_t buf_size;
	const char *key; /* of the current assignment, NUL-terminated in buf */
	const char *value;
	Section section;
	size_t target; /* index of the current [Target.NAME] */
	int r;	       /* -ENOMEM: stop */
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
 * -ENOMEM (also in f->r).
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
			return f->r = -ENOMEM;
		}
		done = disabled;
	}

	va_start(ap, format);
	r = loader_warnv(f->loader, f->path, f->line, done ?: "line ignored", format, ap);
	va_end(ap);
	if (r < 0)
		return f->r = r;
	return 0;
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

	if (streq(name, "Archive")) {
		f->section = SECTION_ARCHIVE;
		return 1;
	}
	if (streq(name, "Store")) {
		f->section = SECTION_STORE;
		return 1;
	}
	if (strneq(name, TARGET_PREFIX, strlen(TARGET_PREFIX))) {
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
			return f->r = r;
		f->section = SECTION_TARGET;
		return 1;
	}
	return config_file_warn(f, "section ignored",
				"unknown section [%s] (known sections: [Archive], [Store], "
				"[Target.NAME])",
				name);
}

/*
 * Checks a "Key=Value" line (without surrounding whitespace) and splits it in
 * place. Returns 1, 0 when the line is to be ignored (warned), or -ENOMEM.
 */
static int config_file_begin_assignment(ConfigFile *f, char *s)
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
	f->key = s;
	f->value = value;
	return 1;
}

/*
 * The ini_reader given to libinih, fgets() style: stores the next line
 * into str (at most num - 1 bytes and a NUL), or returns NULL at the end of
 * the file, after a read error (warned) or when out of memory (f->r). A
 * line that is ignored reaches libinih as an empty line.
 */
static char *config_file_read_line(char *str, int num, void *stream)
{
	ConfigFile *f = stream;
	ssize_t n;
	size_t len, copy;
	char *s;
	int r = 1;

	if (f->r < 0 || num < 3)
		return NULL;

	errno = 0;
	n = getline(&f->buf, &f->buf_size, f->f);
	if (n < 0) {
		if (ferror(f->f))
			(void)config_file_warn(f, "rest of the file ignored", "cannot read: %s",
					       strerror(errno));
		return NULL;
	}
	f->line++;
	f->key = f->value = NULL;
	len = (size_t)n;
	if (memchr(f->buf, '\0', len)) {
		(void)config_file_warn(f, "rest of the file ignored",
				       "line contains a NUL byte: this is not a text file");
		return NULL;
	}

	s = f->buf;
	if (f->line == 1 && strneq(s, "\xef\xbb\xbf", 3)) /* UTF-8 byte order mark */
		s += 3;
	while (*s == ' ' || *s == '\t')
		s++;
	len = strlen(s);
	strip_trailing_space(s, &len);

	/* libinih gets the line before config_file_begin_*() cut it up. */
	copy = MIN(len, (size_t)num - 2);
	memcpy(str, s, copy);
	str[copy] = '\n';
	str[copy + 1] = '\0';

	if (len == 0 || s[0] == '#' || s[0] == ';')
		return str;
	if (s[0] == '[')
		r = config_file_begin_section(f, s, len);
	else
		r = config_file_begin_assignment(f, s);
	if (r < 0)
		return NULL;
	if (r == 0)
		strcpy(str, "\n");
	return str;
}

static const ConfigKey *config_key_find(Section section, const char *name)
{
	for (size_t i = 0; i < section_keys[section].n_keys; i++)
		if (streq(section_keys[section].keys[i].name, name))
			return &section_keys[section].keys[i];
	return NULL;
}

static int config_file_unknown_key(ConfigFile *f, const char *section)
{
	for (Section s = SECTION_ARCHIVE; s < _SECTION_MAX; s++)
		if (s != f->section && config_key_find(s, f->key))
			return config_file_warn(f, NULL,
						"unknown key '%s' in section [%s] (%s= belongs "
						"in section [%s])",
						f->key, section, f->key, section_names[s]);
	return config_file_warn(f, NULL, "unknown key '%s' in section [%s]", f->key, section);
}

/*
 * The ini_handler: libinih found an assignment; its key and value are in f.
 * Returns 0 (an error to libinih) only when out of memory.
 */
static int config_file_handle_assignment(void *user, const char *section, const char *name,
					 const char *value)
{
	ConfigFile *f = user;
	_cleanup_free_ char *detail = NULL, *done = NULL;
	const ConfigKey *k;
	void *base;
	int r;

	if (f->r < 0)
		return 0;
	if (!f->key || !streq(f->key, name))
		return config_file_warn(f, NULL, "syntax error: expected 'Key=Value'") >= 0;

	k = config_key_find(f->section, name);
	if (!k)
		return config_file_unknown_key(f, section) >= 0;

	if (f->section == SECTION_TARGET) {
		TargetOrigin *o = &f->loader->origins[f->target];

		base = &f->loader->config->targets[f->target];
		if (k->kind == VALUE_HTTP_METHOD) {
			free(o->method_path);
			o->method_path = strdup(f->path);
			if (!o->method_path) {
				f->r = -ENOMEM;
				return 0;
			}
			o->method_line = f->value[0] ? f->line : 0;
		}
	} else
		base = f->loader->config;

	r = config_key_assign(k, base, f->value[0] ? f->value : k->default_value, &detail);
	if (r == -ENOMEM) {
		f->r = r;
		return 0;
	}
	if (r >= 0) {
		if (f->section == SECTION_TARGET)
			target_update_counts(base);
		return 1;
	}

	/* [Archive] and [Store] keys all have defaults; a target is disabled instead. */
	if (f->section != SECTION_TARGET &&
	    asprintf(&done, "line ignored, %s= keeps its previous value (default %s)", name,
		     k->default_value) < 0) {
		done = NULL;
		f->r = -ENOMEM;
		return 0;
	}
	if (r == -ERANGE)
		r = config_file_warn(f, done, "value '%s' of key '%s' in section [%s] is too large",
				     f->value, name, section);
	else
		r = config_file_warn(f, done, "invalid value '%s' for key '%s' in section [%s]: %s",
				     f->value, name, section, detail ?: value_kind_expected(k));
	return r >= 0;
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

	r = ini_parse_stream(config_file_read_line, &f, config_file_handle_assignment, &f);
	free(f.buf);
	if (f.r < 0)
		return f.r;
	if (r == -2)
		return -ENOMEM;
	if (r != 0) {
		/* Not reached: the reader blanks every line libinih would refuse. */
		f.line = (unsigned)r;
		return config_file_warn(&f, NULL, "syntax error");
	}
	return 0;
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

/* Checks what can only be checked once every file is read; disables the targets that fail. */
static int config_check_targets(ConfigLoader *l)
{
	PstoredConfig *c = l->config;

	for (size_t i = 0; i < c->n_targets; i++) {
		const PstoredTarget *t = &c->targets[i];
		const TargetOrigin *o = &l->origins[i];
		ConfigFile f = {.loader = l,
				.path = o->path,
				.line = o->line,
				.section = SECTION_TARGET,
				.target = i};
		const char *insecure;

		if (o->disabled)
			continue;
		if (t->type == _PSTORED_TARGET_TYPE_INVALID)
			(void)config_file_warn(&f, NULL,
					       "[Target.%s] has no Type= (set journal-remote or "
					       "http-json)",
					       t->name);
		else if (!t->url)
			(void)config_file_warn(&f, NULL, "[Target.%s] has no URL=", t->name);
		else if (t->type == PSTORED_TARGET_JOURNAL_REMOTE && o->method_line > 0) {
			f.path = o->method_path;
			f.line = o->method_line;
			(void)config_file_warn(&f, NULL,
					       "Method= in [Target.%s] applies to Type=http-json "
					       "only (journal-remote targets always POST)",
					       t->name);
		} else if (t->type == PSTORED_TARGET_HTTP_JSON && t->method == PSTORED_HTTP_PUT &&
			   !strstr(t->url, "{id}"))
			(void)config_file_warn(&f, NULL,
					       "URL= of [Target.%s] has no {id}: with "
					       "Method=PUT each crash needs its own URL, like "
					       "https://host/crashes/{id}",
					       t->name);
		else if (!t->client_certificate != !t->client_key)
			(void)config_file_warn(&f, NULL,
					       "[Target.%s] needs both ClientCertificate= and "
					       "ClientKey=, or neither",
					       t->name);
		else if ((insecure = target_insecure_credentials(t)))
			(void)config_file_warn(
				&f, NULL,
				"[Target.%s] %s: use an https:// URL, or set "
				"AllowInsecureCredentials=yes in it if the network is "
				"trusted",
				t->name, insecure);
		if (f.r < 0)
			return f.r;
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
