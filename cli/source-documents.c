// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A directory of collected documents as a source of crashes (source.h): the
 * export documents the http-json target sends (upload/export.h, described by
 * crash-document.schema.json), one a file, as a WebDAV server such as nginx
 * stores what is PUT to it, in subdirectories as the URL template made them.
 * Every file is read; one that is not such a document is named and skipped.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash-parse.h"
#include "fs-util.h"
#include "log.h"
#include "source.h"
#include "upload/export.h"

/* Subdirectories deeper than this are not looked into ({machine_id}/{id}.json is one). */
#define DOCUMENTS_DEPTH_MAX 8

/* The document in path; logs and returns -EBADMSG when it is not a crash document. */
static int load_document(const char *path, json_t **ret)
{
	_cleanup_free_ char *buf = NULL;
	json_error_t error;
	size_t len;
	int r;

	r = read_full_file_at(AT_FDCWD, path, UPLOAD_EXPORT_FILE_MAX, &buf, &len);
	if (r < 0)
		return log_warning_errno(r, "Failed to read %s: %m; skipped.", path);
	r = crash_document_parse(buf, len, &error, ret);
	if (r == -EINVAL)
		return log_warning_errno(EBADMSG, "%s: not JSON (%s, line %d): skipped.", path,
					 error.text, error.line);
	if (r < 0)
		return log_warning_errno(r,
					 "%s: not a crash document of pstored (it lacks "
					 "\"export_version\" or a crash \"id\"): skipped.",
					 path);
	return 0;
}

static int list_directory(CrashListing *l, const char *path, unsigned depth);

static int list_entry(CrashListing *l, const char *dir, const struct dirent *de, unsigned depth)
{
	_cleanup_free_ char *path = NULL;
	json_auto_t *doc = NULL;

	/* Hidden files are a server's temporary ones. */
	if (de->d_name[0] == '.')
		return 0;
	if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
		return log_oom();
	if (de->d_type == DT_DIR && depth < DOCUMENTS_DEPTH_MAX)
		return list_directory(l, path, depth + 1);
	if (de->d_type == DT_DIR) {
		log_warning("%s: more than %u directories deep: skipped.", path,
			    DOCUMENTS_DEPTH_MAX);
		return 0;
	}
	/* What a server does not make, links and FIFOs, is named; load_document() opens none. */
	if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN) {
		log_warning("%s: not a regular file: skipped.", path);
		return 0;
	}
	if (load_document(path, &doc) < 0)
		return 0;
	return crash_listing_add(l, doc, path) < 0 ? log_oom() : 0;
}

static int list_directory(CrashListing *l, const char *path, unsigned depth)
{
	struct dirent *de;
	DIR *d;
	int r;

	r = opendir_at(AT_FDCWD, path, 0, &d);
	if (r < 0 && depth == 0)
		return log_error_errno(r, "Failed to read documents directory %s: %m%s", path,
				       r == -EACCES ? " (run as root, or as the user of the server "
						      "that stores them)"
						    : "");
	if (r < 0) {
		log_warning_errno(r, "Failed to read %s: %m; skipped.", path);
		return 0;
	}
	FOREACH_DIRENT(de, d, log_warning_errno(errno, "Failed to read %s: %m", path)) {
		r = list_entry(l, path, de, depth);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

int documents_source_list(CrashListing *l)
{
	return list_directory(l, arg_documents_directory, 0);
}

int documents_source_open_crash(const CrashEntry *e, SourceCrash *c)
{
	int r;

	r = load_document(e->location, &c->document);
	if (r < 0)
		return r;
	if (crash_document_crash(c->document, &c->crash) < 0)
		return log_oom();
	c->id = strdup(e->crash.id);
	c->location = strdup(e->location);
	if (!c->id || !c->location)
		return log_oom();
	return 0;
}
