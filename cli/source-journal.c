// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Journal files as a source of crashes (source.h): the entries of pstored
 * (daemon/journal-fields.c), local or received by systemd-journal-remote,
 * found by their MESSAGE_IDs through the journal's field index, never by
 * reading every entry; of each only the fields below are read, and the log
 * (PSTORE_DMESG) only for the crash that show, dmesg or export asked for.
 */

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs-util.h"
#include "log.h"
#include "parse-util.h"
#include "sd-journal-dl.h"
#include "source.h"
#include "store/export.h"
#include "store/message-ids.h"
#include "utf8-util.h"

/* The journal fields of a crash and the crash.json keys they carry ("analysis" ones nested). */
static const struct {
	const char *field;
	const char *key;
	bool analysis;
} string_fields[] = {
	{"PSTORE_CRASH_ID", "id"},
	{"PSTORE_KIND", "kind"},
	{"PSTORE_REASON", "reason"},
	{"PSTORE_DUMP_REASON", "pstore_reason"},
	{"PSTORE_BACKEND", "backend"},
	{"PSTORE_SEVERITY", "severity"},
	{"_BOOT_ID", "boot_id"},
	{"_MACHINE_ID", "machine_id"},
	{"_HOSTNAME", "hostname"},
	{"KERNEL_VERSION", "kernel_version", true},
	{"CRASH_SIGNATURE", "signature", true},
	{"CRASH_FUNCTION", "function", true},
	{"CRASH_MODULE", "module", true},
	{"CRASH_MESSAGE", "message", true},
};

static void journal_closep(sd_journal **j)
{
	if (*j)
		sym_sd_journal_close(*j);
}

/* The value of field NAME of the current entry, not NUL-terminated: 1, 0 if absent, <0 on error. */
static int entry_field(sd_journal *j, const char *name, const char **ret, size_t *ret_len)
{
	size_t n = strlen(name), len;
	const void *data;
	int r;

	r = sym_sd_journal_get_data(j, name, &data, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (len <= n || memcmp(data, name, n) != 0 || ((const char *)data)[n] != '=')
		return -EBADMSG;
	*ret = (const char *)data + n + 1;
	*ret_len = len - n - 1;
	return 1;
}

/* o[key] = the field's value as a JSON string (invalid UTF-8 replaced), if the entry has it. */
static int set_string_field(sd_journal *j, const char *name, json_t *o, const char *key)
{
	_cleanup_free_ char *text = NULL;
	const char *v;
	size_t len;
	int r;

	r = entry_field(j, name, &v, &len);
	if (r <= 0)
		return r;
	text = utf8_sanitize(v, len, &len);
	if (!text || json_object_set_new(o, key, json_stringn_nocheck(text, len)) < 0)
		return -ENOMEM;
	return 0;
}

/* "records": [{"name": ...}] from PSTORE_RECORDS, the names separated by spaces. */
static int set_records(sd_journal *j, json_t *crash)
{
	json_t *records = json_array();
	const char *v, *end;
	size_t len;
	int r;

	if (!records || json_object_set_new(crash, "records", records) < 0)
		return -ENOMEM;
	r = entry_field(j, "PSTORE_RECORDS", &v, &len);
	if (r <= 0)
		return r;
	for (end = v + len; v < end;) {
		const char *space = memchr(v, ' ', end - v) ?: end;
		_cleanup_free_ char *name = utf8_sanitize(v, space - v, &len);

		if (!name ||
		    json_array_append_new(records, json_pack("{s:s%}", "name", name, len)) < 0)
			return -ENOMEM;
		v = space + 1;
	}
	return 0;
}

/* The crash of the current entry, as crash.json has it but for what does not travel. */
static int entry_crash(sd_journal *j, json_t **ret)
{
	json_auto_t *crash = json_object(), *analysis = json_object();
	uint64_t archived_at = 0, time = 0;
	const char *v;
	size_t len;
	int r;

	if (!crash || !analysis)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(string_fields); i++) {
		r = set_string_field(j, string_fields[i].field,
				     string_fields[i].analysis ? analysis : crash,
				     string_fields[i].key);
		if (r < 0)
			return r;
	}
	if (!store_crash_id_is_valid(json_string_value(json_object_get(crash, "id")) ?: ""))
		return -EBADMSG;
	r = entry_field(j, "PSTORE_CRASH_TIMESTAMP", &v, &len);
	if (r < 0)
		return r;
	if (r > 0) {
		_cleanup_free_ char *s = strndup(v, len);

		if (!s)
			return -ENOMEM;
		(void)parse_uint64(s, &time);
	}
	(void)sym_sd_journal_get_realtime_usec(j, &archived_at);
	r = set_records(j, crash);
	if (r < 0)
		return r;
	if (json_object_set_new(crash, "time", json_integer((json_int_t)time)) < 0 ||
	    json_object_set_new(crash, "archived_at", json_integer((json_int_t)archived_at)) < 0 ||
	    json_object_set(crash, "analysis", analysis) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(crash);
	return 0;
}

static int glob_error(const char *path, int error)
{
	log_warning_errno(error, "%s: %m; the journal files in it are not read (run as root?).",
			  path);
	return 0;
}

/* The journal files of -D (in DIR and its subdirectories, as journalctl -D reads) or --file. */
static int find_journal_files(glob_t *g)
{
	static const char *const patterns[] = {"*.journal", "*.journal~", "*/*.journal",
					       "*/*.journal~"};
	_cleanup_close_ int fd = -1;
	int r, flags = 0;

	if (arg_journal_files) {
		r = glob(arg_journal_files, GLOB_NOSORT, glob_error, g);
		if (r == GLOB_NOMATCH)
			return log_error_errno(ENOENT, "No journal file matches '%s'.",
					       arg_journal_files);
		return r == 0 ? 0 : log_oom();
	}

	/* glob() would take an unreadable directory for an empty one. */
	fd = open(arg_journal_directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return log_error_errno(
			errno, "Failed to read journal directory %s: %m%s", arg_journal_directory,
			errno == EACCES ? " (run as root, or as a member of the group "
					  "that owns the journal files)"
					: "");
	for (size_t i = 0; i < ARRAY_SIZE(patterns); i++) {
		_cleanup_free_ char *p = NULL;

		if (asprintf(&p, "%s/%s", arg_journal_directory, patterns[i]) < 0)
			return log_oom();
		r = glob(p, flags | GLOB_NOSORT, glob_error, g);
		if (r != 0 && r != GLOB_NOMATCH)
			return log_oom();
		if (r == 0)
			flags = GLOB_APPEND;
	}
	if (flags == 0)
		return log_error_errno(ENOENT, "No journal files in %s.", arg_journal_directory);
	return 0;
}

/*
 * Opens the journal files of g. sd_journal_open_files() fails as a whole when
 * one of them is not a journal file or is corrupt: then each is tried alone,
 * the bad ones are named, and the rest are read.
 */
static int open_journal_files(glob_t *g, sd_journal **ret)
{
	size_t n = 0;
	int r;

	r = sym_sd_journal_open_files(ret, (const char **)g->gl_pathv, 0);
	if (r >= 0)
		return 0;
	for (size_t i = 0; i < g->gl_pathc; i++) {
		const char *one[] = {g->gl_pathv[i], NULL};
		sd_journal *j;

		r = sym_sd_journal_open_files(&j, one, 0);
		if (r < 0) {
			log_warning_errno(r,
					  "%s: not a journal file, or a corrupt one (%m): skipped.",
					  g->gl_pathv[i]);
			continue;
		}
		sym_sd_journal_close(j);
		g->gl_pathv[n++] = g->gl_pathv[i];
	}
	if (n == 0)
		return log_error_errno(r, "No journal file could be read.");
	g->gl_pathv[n] = NULL;
	r = sym_sd_journal_open_files(ret, (const char **)g->gl_pathv, 0);
	if (r < 0)
		return log_error_errno(r, "Failed to open the journal files: %m");
	return 0;
}

static int open_journal(sd_journal **ret)
{
	_cleanup_(globfree) glob_t g = {};
	int r;

	r = dlopen_sd_journal();
	if (r < 0)
		return log_error_errno(r, "Failed to load libsystemd.so.0, which reading journal "
					  "files needs: %m (install libsystemd0).");
	if (arg_journal_local) {
		r = sym_sd_journal_open(ret, SD_JOURNAL_LOCAL_ONLY);
		if (r < 0)
			return log_error_errno(r, "Failed to open the journal: %m");
		return 0;
	}
	r = find_journal_files(&g);
	if (r < 0)
		return r;
	return open_journal_files(&g, ret);
}

static int add_match(sd_journal *j, const char *field, const char *value)
{
	_cleanup_free_ char *m = NULL;

	if (asprintf(&m, "%s=%s", field, value) < 0)
		return -ENOMEM;
	return sym_sd_journal_add_match(j, m, 0);
}

/* The entries of pstored's MESSAGE_IDs (one field, so any of them). */
static int match_crashes(sd_journal *j)
{
	static const char *const ids[] = {PSTORED_MESSAGE_KERNEL_CRASH_STR,
					  PSTORED_MESSAGE_HARDWARE_ERROR_STR,
					  PSTORED_MESSAGE_PREVIOUS_BOOT_LOG_STR};
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		r = add_match(j, "MESSAGE_ID", ids[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int journal_source_list(CrashListing *l)
{
	_cleanup_(journal_closep) sd_journal *j = NULL;
	int r;

	r = open_journal(&j);
	if (r < 0)
		return r;
	r = match_crashes(j);
	if (r < 0)
		return log_error_errno(r, "Failed to match the journal entries of crashes: %m");
	for (;;) {
		json_auto_t *crash = NULL;

		r = sym_sd_journal_next(j);
		if (r == 0)
			return 0;
		if (r < 0) {
			/* A file corrupt in its middle: what came before is still good. */
			log_warning_errno(r, "Failed to read the journal (%m): the crashes "
					     "read up to here are listed.");
			return 0;
		}
		r = entry_crash(j, &crash);
		if (r == -ENOMEM)
			return log_oom();
		if (r < 0) /* an entry of some other program, or broken */
			continue;
		if (crash_listing_add(l, crash, NULL) < 0)
			return log_oom();
	}
}

/* The export document of the current entry: its crash, "export_version" and the whole log. */
static int entry_document(sd_journal *j, json_t *crash, json_t **ret)
{
	json_auto_t *doc = json_deep_copy(crash);
	_cleanup_free_ char *text = NULL;
	const char *log;
	size_t len;
	int r;

	if (!doc ||
	    json_object_set_new(doc, "export_version", json_integer(CRASH_EXPORT_VERSION)) < 0)
		return -ENOMEM;
	r = entry_field(j, "PSTORE_DMESG", &log, &len);
	if (r < 0)
		return r;
	if (r > 0) {
		text = utf8_sanitize(log, len, &len);
		if (!text || json_object_set_new(doc, "dmesg", json_stringn_nocheck(text, len)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(doc);
	return 0;
}

int journal_source_open_crash(const CrashEntry *e, SourceCrash *c)
{
	_cleanup_(journal_closep) sd_journal *j = NULL;
	int r;

	r = open_journal(&j);
	if (r < 0)
		return r;
	/* Two fields: both must match. The whole log, however large. */
	r = add_match(j, "PSTORE_CRASH_ID", e->id);
	if (r >= 0 && *e->machine_id)
		r = add_match(j, "_MACHINE_ID", e->machine_id);
	if (r >= 0)
		r = sym_sd_journal_set_data_threshold(j, 0);
	if (r < 0)
		return log_error_errno(r, "Failed to look up crash %s in the journal: %m", e->id);

	/* The newest entry of the crash, if it was sent more than once. */
	while ((r = sym_sd_journal_next(j)) > 0) {
		json_decref(c->crash);
		json_decref(c->document);
		c->crash = c->document = NULL;
		r = entry_crash(j, &c->crash);
		if (r >= 0)
			r = entry_document(j, c->crash, &c->document);
		if (r < 0)
			break;
	}
	if (r >= 0 && !c->crash)
		r = -ENOENT;
	if (r < 0)
		return log_error_errno(r, "Failed to read crash %s from the journal: %m", e->id);
	c->id = strdup(e->id);
	c->location = strdup(arg_journal_directory ?: arg_journal_files ?: "the journal");
	if (!c->id || !c->location)
		return log_oom();
	return 0;
}
