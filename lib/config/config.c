/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config-value.h"
#include "config.h"
#include "fs-util.h"
#include "macro.h"

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
	SECTION_METRICS,
	SECTION_TARGET,
	_SECTION_MAX,
} Section;

static const char *const section_names[_SECTION_MAX] = {
	[SECTION_NONE] = "",	       [SECTION_ARCHIVE] = "Archive",	 [SECTION_STORE] = "Store",
	[SECTION_METRICS] = "Metrics", [SECTION_TARGET] = "Target.NAME",
};

/* A key of a section: the type of its value, its field and its default. */
typedef struct ConfigItem {
	Section section;
	const char *key;
	const ConfigValueType *type;
	size_t offset; /* in PstoredConfig, or in PstoredTarget for SECTION_TARGET */
	const char *default_value;
} ConfigItem;

/* A row of config_items; base is the struct that holds the field. */
#define CONFIG_ITEM(section, base, key, type, field, default_value)                                \
	{                                                                                          \
		section, key, &config_value_##type, offsetof(base, field), default_value           \
	}
#define ARCHIVE(...) CONFIG_ITEM(SECTION_ARCHIVE, PstoredConfig, __VA_ARGS__)
#define STORE(...) CONFIG_ITEM(SECTION_STORE, PstoredConfig, __VA_ARGS__)
#define METRICS(...) CONFIG_ITEM(SECTION_METRICS, PstoredConfig, __VA_ARGS__)
#define TARGET(...) CONFIG_ITEM(SECTION_TARGET, PstoredTarget, __VA_ARGS__)

/* The keys of pstored.conf(5), in the order of their JSON form. */
static const ConfigItem config_items[] = {
	ARCHIVE("Storage", storage, storage, "both"),
	ARCHIVE("Unlink", boolean, unlink, "yes"),
	ARCHIVE("KeepConsole", boolean, keep_console, "yes"),
	ARCHIVE("MaxRecordSize", size, max_record_size, "1M"),
	ARCHIVE("MaxParts", count_limit, max_parts, "1024"),
	ARCHIVE("MaxLogSize", size, max_log_size, "8M"),
	ARCHIVE("MaxRecordsPerRun", count_limit, max_records_per_run, "4096"),
	ARCHIVE("MaxBytesPerRun", size_limit, max_bytes_per_run, "64M"),
	ARCHIVE("Kdump", boolean, kdump, "yes"),
	ARCHIVE("KdumpDir", path, kdump_dir, "/var/crash"),

	STORE("MaxAge", time_limit, max_age_usec, "infinity"),
	STORE("MaxUse", size_limit_or_zero, max_use, "256M"),
	STORE("MaxCrashes", count_limit_or_zero, max_crashes, "1000"),
	STORE("KeepUnsent", boolean, keep_unsent, "yes"),

	METRICS("Directory", path, metrics_directory, ""),

	TARGET("Type", target_type, type, ""),
	TARGET("URL", url, url, ""),
	TARGET("Method", http_method, method, "PUT"),
	TARGET("CAFile", path, ca_file, ""),
	TARGET("ClientCertificate", path, client_certificate, ""),
	TARGET("ClientKey", path, client_key, ""),
	TARGET("TokenFile", path, token_file, ""),
	TARGET("CredentialsFile", path, credentials_file, ""),
	TARGET("BatchSize", count_limit, batch_size, "1000"),
	TARGET("Timeout", timeout, timeout_usec, "30s"),
	TARGET("MaxPerDay", count_limit, max_per_day, "32"),
	TARGET("MaxBytesPerDay", size_limit, max_bytes_per_day, "24M"),
	TARGET("MaxDocumentSize", size_limit, max_document_size, "4M"),
	TARGET("Redact", boolean, redact, "yes"),
	TARGET("RedactRegex", regex_list, redact_regex, ""),
	TARGET("AllowInsecureCredentials", boolean, allow_insecure_credentials, "no"),
};

/* The key of that name in that section, or NULL. */
static const ConfigItem *config_item_find(Section section, const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_items); i++)
		if (config_items[i].section == section && streq(config_items[i].key, key))
			return &config_items[i];
	return NULL;
}

/* Parses value into the field of item in base, see ConfigValueType.parse. */
static int config_item_assign(const ConfigItem *item, void *base, const char *value,
			      char **ret_detail)
{
	return item->type->parse(value, (char *)base + item->offset, ret_detail);
}

/* Sets the keys of a section (base: the configuration or the target) to their defaults. */
static int config_section_apply_defaults(Section section, void *base)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_items); i++) {
		_cleanup_free_ char *detail = NULL;
		int r;

		if (config_items[i].section != section)
			continue;
		r = config_item_assign(&config_items[i], base, config_items[i].default_value,
				       &detail);
		if (r < 0)
			return r;
	}
	return 0;
}

static void target_done(PstoredTarget *t)
{
	free(t->name);
	free(t->url);
	free(t->ca_file);
	free(t->client_certificate);
	free(t->client_key);
	free(t->token_file);
	free(t->credentials_file);
	config_strv_free(t->redact_regex);
}

PstoredConfig *pstored_config_free(PstoredConfig *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_targets; i++)
		target_done(&c->targets[i]);
	free(c->targets);
	free(c->metrics_directory);
	free(c->kdump_dir);
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
	r = config_section_apply_defaults(SECTION_ARCHIVE, c);
	if (r < 0)
		return r;
	r = config_section_apply_defaults(SECTION_STORE, c);
	if (r < 0)
		return r;
	r = config_section_apply_defaults(SECTION_METRICS, c);
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
	r = config_section_apply_defaults(SECTION_TARGET, t);
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
	else if (streq(name, "Metrics"))
		section = SECTION_METRICS;
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
					"[Metrics], [Target.NAME])",
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
					"[Archive], [Store], [Metrics] or [Target.NAME]",
					s);
	*ret_key = s;
	*ret_value = value;
	return 1;
}

static int config_file_unknown_key(ConfigFile *f, const char *key)
{
	for (Section s = SECTION_ARCHIVE; s < _SECTION_MAX; s++)
		if (s != f->section && config_item_find(s, key))
			return config_file_warn(f, NULL,
						"unknown key '%s' in section [%s] (%s= belongs "
						"in section [%s])",
						key, f->section_name, key, section_names[s]);
	return config_file_warn(f, NULL, "unknown key '%s' in section [%s]", key, f->section_name);
}

/* Sets key of the current section to value. Returns 0, or -ENOMEM. */
static int config_file_assign(ConfigFile *f, const char *name, const char *value)
{
	_cleanup_free_ char *detail = NULL, *done = NULL;
	const char *section = f->section_name;
	const ConfigItem *k;
	void *base;
	int r;

	k = config_item_find(f->section, name);
	if (!k)
		return config_file_unknown_key(f, name);

	if (f->section == SECTION_TARGET) {
		TargetOrigin *o = &f->loader->origins[f->target];

		base = &f->loader->config->targets[f->target];
		if (k->type == &config_value_http_method) {
			free(o->method_path);
			o->method_path = strdup(f->path);
			if (!o->method_path)
				return -ENOMEM;
			o->method_line = value[0] ? f->line : 0;
		}
	} else
		base = f->loader->config;

	r = config_item_assign(k, base, value[0] ? value : k->default_value, &detail);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		if (f->section == SECTION_TARGET)
			target_update_counts(base);
		return 0;
	}

	/* The other sections' keys all have defaults; a target is disabled instead. */
	if (f->section != SECTION_TARGET &&
	    asprintf(&done, "line ignored, %s= keeps its previous value (default %s)", name,
		     k->default_value[0] ? k->default_value : "empty") < 0) {
		done = NULL;
		return -ENOMEM;
	}
	if (r == -ERANGE)
		return config_file_warn(f, done,
					"value '%s' of key '%s' in section [%s] is too large",
					value, name, section);
	/* Taken as 0, it would be "no limit" for some keys. */
	if (r == -EDOM)
		return config_file_warn(
			f, done,
			"value '%s' of key '%s' in section [%s] is not 0 but rounds down to 0 "
			"(sizes are whole bytes, time spans whole microseconds): give at least "
			"1B or 1us",
			value, name, section);
	return config_file_warn(f, done, "invalid value '%s' for key '%s' in section [%s]: %s",
				value, name, section, detail ?: k->type->expected);
}

/*
 * Parses one line of the file, as getline() read it (with its newline, but
 * the last line may have none). Returns 0, or -ENOMEM. Whatever is wrong in
 * the line is a warning.
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
	if (t->credentials_file)
		return "would send the key of CredentialsFile= in clear text over http://";
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
		return config_file_warn(
			&f, NULL,
			"[Target.%s] has no Type= (set journal-remote, http-json or "
			"clickhouse)",
			t->name);
	if (!t->url)
		return config_file_warn(&f, NULL, "[Target.%s] has no URL=", t->name);
	if (t->type != PSTORED_TARGET_HTTP_JSON && o->method_line > 0) {
		f.path = o->method_path;
		f.line = o->method_line;
		return config_file_warn(&f, NULL,
					"Method= in [Target.%s] applies to Type=http-json only "
					"(%s targets always POST)",
					t->name, pstored_target_type_to_string(t->type));
	}
	if (t->type == PSTORED_TARGET_CLICKHOUSE && t->token_file)
		return config_file_warn(&f, NULL,
					"[Target.%s] is a clickhouse target, which takes no "
					"TokenFile=: put the user and the key in CredentialsFile=",
					t->name);
	if (t->type != PSTORED_TARGET_CLICKHOUSE && t->credentials_file)
		return config_file_warn(
			&f, NULL,
			"CredentialsFile= in [Target.%s] applies to Type=clickhouse "
			"only (use TokenFile= for a bearer token)",
			t->name);
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

/* The keys of a section (base: the configuration or a target) as a JSON object. */
static json_t *config_section_to_json(Section section, const void *base)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(config_items); i++) {
		const ConfigItem *k = &config_items[i];

		if (k->section == section &&
		    json_object_set_new(o, k->key,
					k->type->to_json((const char *)base + k->offset)) < 0) {
			json_decref(o);
			return NULL;
		}
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
					config_section_to_json(SECTION_TARGET, &c->targets[i])) < 0)
			return -ENOMEM;

	o = json_pack("{s:o,s:o,s:o,s:O}", "Archive", config_section_to_json(SECTION_ARCHIVE, c),
		      "Store", config_section_to_json(SECTION_STORE, c), "Metrics",
		      config_section_to_json(SECTION_METRICS, c), "Target", targets);
	if (!o)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}
