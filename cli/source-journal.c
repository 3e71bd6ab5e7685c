// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Journal files as a source of crashes (source.h): the entries of pstored
 * (lib/store/journal-fields.c), local or received by systemd-journal-remote,
 * found by their MESSAGE_IDs through the journal's field index, never by
 * reading every entry; of each the fields of store/journal-fields.h are taken in one
 * pass, and the log (PSTORE_DMESG) is decompressed whole only for the crash
 * that show, dmesg or export asked for.
 */

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyse/analyse.h"
#include "crash-util.h"
#include "fs-util.h"
#include "log.h"
#include "sd-journal-dl.h"
#include "source.h"
#include "upload/export.h"
#include "store/journal-fields.h"
#include "store/message-ids.h"

/*
 * The log is decompressed only this far when listing (sd_journal_set_data_threshold()): the
 * fields a listing reads are short, and the log, compressed, is most of each entry.
 */
#define LIST_DATA_THRESHOLD 4096

static void journal_closep(sd_journal **j)
{
	if (*j)
		sym_sd_journal_close(*j);
}

/*
 * Names an entry with a MESSAGE_ID of pstored that is no crash, by host and time; -EBADMSG.
 * Anyone may send such an entry: it is not called pstored's.
 */
static int log_entry_malformed(json_t *crash, usec_t at)
{
	char buf[FORMAT_TIMESTAMP_MAX];

	return log_warning_errno(EBADMSG,
				 "A malformed journal entry with a MESSAGE_ID of pstored, from %s at "
				 "%s: no crash id in PSTORE_CRASH_ID, or more than one; skipped.",
				 crash_string(crash, "hostname") ?: crash_string(crash, "machine_id") ?:
				 "an unknown host",
				 format_timestamp(buf, at, false) ?: "an unknown time");
}

/*
 * The crash of the current entry, as crash.json has it but for what does not travel, with
 * the log as "dmesg" if with_log. Its fields in one pass: looking each up would read (and
 * decompress) the entry once per field. -EBADMSG if it has no crash id (named in a warning
 * if name_malformed) or cannot be read (named), -ENOMEM.
 */
static int entry_crash(sd_journal *j, bool with_log, bool name_malformed, json_t **ret)
{
	json_auto_t *crash = json_pack("{s:[], s:I}", "records", "time", (json_int_t)0);
	json_auto_t *analysis = json_object();
	uint64_t archived_at = 0;
	const void *data;
	size_t len;
	int r;

	if (!crash || !analysis)
		return -ENOMEM;
	sym_sd_journal_restart_data(j);
	while ((r = sym_sd_journal_enumerate_data(j, &data, &len)) > 0) {
		r = journal_crash_add_field(crash, analysis, data, len, with_log);
		if (r < 0)
			return r;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return log_warning_errno(EBADMSG, "Failed to read a journal entry (%s): skipped.",
					 strerror(-r));
	(void)sym_sd_journal_get_realtime_usec(j, &archived_at);
	if (!json_is_string(json_object_get(crash, "id")))
		return name_malformed ? log_entry_malformed(crash, archived_at) : -EBADMSG;
	if (json_object_set_new(crash, "archived_at", json_integer((json_int_t)archived_at)) < 0 ||
	    json_object_set(crash, "analysis", analysis) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(crash);
	return 0;
}

/*
 * The entry has the log but not the frames of its call trace, which symbolization needs: the
 * analysis of the log gives them, as it gave them to pstored on the machine. The entry's own
 * fields, which pstored sent, stay as they are.
 */
static int crash_add_frames(json_t *crash)
{
	json_t *analysis = json_object_get(crash, "analysis"),
	       *log = json_object_get(crash, "dmesg");
	json_auto_t *o = NULL;
	int r;

	if (!json_is_string(log) || json_object_get(analysis, "frames"))
		return 0;
	r = dmesg_analyse_json(json_string_value(log), json_string_length(log), &o);
	if (r < 0)
		return r;
	return json_object_set(analysis, "frames", json_object_get(o, "frames")) < 0 ? -ENOMEM : 0;
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
	_cleanup_free_ const char **good = NULL;
	size_t n = 0;
	int r;

	r = sym_sd_journal_open_files(ret, (const char **)g->gl_pathv, 0);
	if (r >= 0)
		return 0;
	good = calloc(g->gl_pathc + 1, sizeof(char *));
	if (!good)
		return log_oom();
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
		good[n++] = g->gl_pathv[i];
	}
	if (n == 0)
		return log_error_errno(r, "No journal file could be read.");
	r = sym_sd_journal_open_files(ret, good, 0);
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

/*
 * The crashes of journal files, for every verb alike: of the entries matched (match_crashes(),
 * and for one crash its id), those with exactly one crash id. The next after the current
 * entry: 1 with *ret, 0 at the end, -ENOMEM. The others are passed over, named in a warning
 * if name_malformed. A file corrupt in its middle ends the crashes there, with a warning:
 * what came before is still good.
 */
static int next_crash(sd_journal *j, bool with_log, bool name_malformed, json_t **ret)
{
	int r;

	for (;;) {
		r = sym_sd_journal_next(j);
		if (r == 0)
			return 0;
		if (r < 0) {
			log_warning_errno(r, "Failed to read the journal (%m): only the entries "
					     "before the failure are read.");
			return 0;
		}
		r = entry_crash(j, with_log, name_malformed, ret);
		if (r != -EBADMSG)
			return r < 0 ? r : 1;
	}
}

int journal_source_list(CrashListing *l)
{
	_cleanup_(journal_closep) sd_journal *j = NULL;
	int r;

	r = open_journal(&j);
	if (r < 0)
		return r;
	r = match_crashes(j);
	if (r >= 0)
		r = sym_sd_journal_set_data_threshold(j, LIST_DATA_THRESHOLD);
	if (r < 0)
		return log_error_errno(r, "Failed to match the journal entries of crashes: %m");
	for (;;) {
		json_auto_t *crash = NULL;

		r = next_crash(j, false, true, &crash);
		if (r == -ENOMEM)
			return log_oom();
		if (r == 0)
			return 0;
		if (crash_listing_add(l, crash, NULL) < 0)
			return log_oom();
	}
}

int journal_source_open_crash(const CrashEntry *e, SourceCrash *c)
{
	_cleanup_(journal_closep) sd_journal *j = NULL;
	int r;

	r = open_journal(&j);
	if (r < 0)
		return r;
	/* The crashes that list reads, of this id; the whole log, however large. */
	r = match_crashes(j);
	if (r >= 0)
		r = add_match(j, "PSTORE_CRASH_ID", e->crash.id);
	if (r >= 0)
		r = sym_sd_journal_set_data_threshold(j, 0);
	if (r < 0)
		return log_error_errno(r, "Failed to look up crash %s in the journal: %m",
				       e->crash.id);

	/*
	 * Of the machine list took it from (its field as list read it), the newest entry of the
	 * crash, if it was sent more than once. The listing named the malformed entries already.
	 */
	for (;;) {
		json_auto_t *crash = NULL;

		r = next_crash(j, true, false, &crash);
		if (r == -ENOMEM)
			return log_oom();
		if (r == 0)
			break;
		if (!streq(crash_string(crash, "machine_id") ?: "", e->machine_id))
			continue;
		json_decref(c->document);
		c->document = TAKE_PTR(crash);
	}
	if (!c->document)
		return log_error_errno(ENOENT,
				       "Crash %s is no longer in the journal files: were they "
				       "rotated or vacuumed since?",
				       e->crash.id);
	if (json_object_set_new(c->document, "export_version",
				json_integer(UPLOAD_EXPORT_VERSION)) < 0 ||
	    crash_add_frames(c->document) < 0)
		return log_oom();
	c->id = strdup(e->crash.id);
	c->location = strdup(arg_journal_directory ?: arg_journal_files ?: "the journal");
	if (!c->id || !c->location)
		return log_oom();
	return 0;
}
