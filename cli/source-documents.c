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
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "log.h"
#include "source.h"
#include "upload/export-parse.h"

/* Subdirectories deeper than this are not looked into ({machine_id}/{id}.json is one). */
#define DOCUMENTS_DEPTH_MAX 8

/* A document's file, read for upload_export_parse() up to UPLOAD_EXPORT_FILE_MAX bytes. */
typedef struct DocumentFile {
	int fd;
	size_t size;
	int error; /* of a failed read; EFBIG past the limit */
} DocumentFile;

static size_t read_document_file(void *buffer, size_t size, void *userdata)
{
	DocumentFile *f = userdata;
	ssize_t n;

	do
		n = read(f->fd, buffer, size);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		f->error = errno;
		return (size_t)-1;
	}
	f->size += (size_t)n;
	if (f->size > UPLOAD_EXPORT_FILE_MAX) {
		f->error = EFBIG;
		return (size_t)-1;
	}
	return (size_t)n;
}

/*
 * The document in path, parsed as it is read: the memory it takes is that of its values
 * (upload/export-parse.h), with no copy of its text. Logs and returns -EBADMSG when it is not a
 * crash document.
 */
static int load_document(const char *path, json_t **ret)
{
	_cleanup_close_ int fd = open_regular_at(AT_FDCWD, path, O_RDONLY, 0);
	DocumentFile f = {.fd = fd};
	json_auto_t *doc = NULL;
	struct stat before, after;
	json_error_t error;
	int r;

	if (fd < 0 || fstat(fd, &before) < 0)
		return log_warning_errno(fd < 0 ? fd : -errno, "Failed to read %s: %m; skipped.",
					 path);
	r = upload_export_parse(read_document_file, &f, &error, &doc);
	if (f.error)
		return log_warning_errno(f.error, "Failed to read %s: %m; skipped.", path);
	/*
	 * A server replaces a document by renaming a new file over it, which this one does not
	 * see; one written in place while it was read may be two documents in one.
	 */
	if (fstat(fd, &after) < 0 || after.st_size != before.st_size ||
	    after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
	    after.st_mtim.tv_nsec != before.st_mtim.tv_nsec)
		return log_warning_errno(EBADMSG, "%s changed while it was read: skipped.", path);
	if (r == -EINVAL)
		return log_warning_errno(EBADMSG, "%s: not JSON (%s, line %d): skipped.", path,
					 error.text, error.line);
	if (r == -E2BIG)
		return log_warning_errno(r,
					 "%s: holds too many values for its size: parsing it "
					 "would take more memory than %d times its size, or "
					 "%u MiB; skipped.",
					 path, UPLOAD_EXPORT_MEMORY_FACTOR,
					 UPLOAD_EXPORT_MEMORY_MAX >> 20);
	if (r == -ENOMEM)
		return log_warning_errno(r, "%s: out of memory while parsing it: skipped.", path);
	if (r < 0)
		return log_warning_errno(r,
					 "%s: not a crash document of pstored (it lacks "
					 "\"export_version\" or a crash \"id\"): skipped.",
					 path);
	*ret = TAKE_PTR(doc);
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
	/* Read again since it was listed: it may have been replaced by then. */
	if (!streq(json_string_value(json_object_get(c->document, "id")), e->crash.id) ||
	    !streq(json_string_value(json_object_get(c->document, "machine_id")) ?: "",
		   e->machine_id))
		return log_error_errno(ESTALE,
				       "%s was replaced since it was listed, and no longer holds "
				       "crash %s of %s: run again.",
				       e->location, e->crash.id, crash_entry_host(e));
	c->id = strdup(e->crash.id);
	c->location = strdup(e->location);
	if (!c->id || !c->location)
		return log_oom();
	return 0;
}
