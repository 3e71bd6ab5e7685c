// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl export [ID] [--output=FILE]: the crash as one JSON document, raw
 * records included (see lib/upload/export.h), pretty unless --json=short.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crash-util.h"
#include "log.h"
#include "match.h"
#include "pstorectl.h"
#include "source.h"
#include "upload-options.h"
#include "upload/document.h"
#include "upload/export.h"
#include "upload/redact.h"

static const char *arg_output;
static bool arg_redacted;

enum {
	ARG_REDACTED = ARG_VERB_BASE,
};

static int handle_export_option(int c, const char *arg)
{
	int r = match_parse_option(c, arg);

	if (r != -ENOENT)
		return r;
	if (c == ARG_REDACTED) {
		arg_redacted = true;
		return 0;
	}
	if (c != 'o')
		return handle_upload_config_option(c, arg);
	arg_output = streq(arg, "-") ? NULL : arg;
	return 0;
}

static const OptionSpec export_option_table[] = {
	{"output", required_argument, 'o', "FILE", "Write the document to FILE instead of stdout"},
	{"redacted", no_argument, ARG_REDACTED, NULL,
	 "Redact it as an upload target would (--target=, --config=,\n--dmi-dir=)"},
	UPLOAD_CONFIG_OPTIONS,
	{}};

const VerbOptions export_options = {export_option_table, match_options, handle_export_option};

/*
 * The redaction rules of --target= (default: the first target; the
 * built-in rules when there is none), for --redacted.
 */
static int load_redactor(UploadRedactor **ret)
{
	_cleanup_free_ char *error = NULL;
	PstoredConfig *c = NULL;
	const PstoredTarget *t;
	char hostname[256] = "";
	int r;

	r = load_upload_config(&c);
	if (r < 0)
		return r;
	t = arg_upload_target  ? pstored_config_find_target(c, arg_upload_target)
	    : c->n_targets > 0 ? &c->targets[0]
			       : NULL;
	(void)gethostname(hostname, sizeof(hostname) - 1);
	r = upload_target_redactor(t, hostname, arg_upload_dmi_dir, ret, &error);
	pstored_config_free(c);
	if (r < 0)
		return error ? log_error_errno(r, "%s", error) : log_oom();
	return 0;
}

/* Writes the document to a new file next to FILE and renames it over FILE. */
static int write_output(json_t *doc, const char *path)
{
	size_t flags = (arg_json == JSON_SHORT ? JSON_COMPACT : JSON_INDENT(2)) | JSON_SORT_KEYS |
		       JSON_ENSURE_ASCII;
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return log_oom();
	/* Crash logs can hold secrets: the file is the user's alone, like the store. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return log_error_errno(errno, "Failed to create %s: %m", tmp);
	if (json_dumpfd(doc, fd, flags) < 0 || write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
		int r = errno ? -errno : -EIO;

		(void)unlink(tmp);
		return log_error_errno(r, "Failed to write %s: %m", tmp);
	}
	if (rename(tmp, path) < 0) {
		int r = -errno;

		(void)unlink(tmp);
		return log_error_errno(r, "Failed to rename %s to %s: %m", tmp, path);
	}
	return 0;
}

int verb_export(int argc, char *argv[])
{
	_cleanup_(source_crash_freep) SourceCrash *c = NULL;
	json_auto_t *doc = NULL;
	int r;

	if (arg_redacted && arg_source != SOURCE_STORE)
		return log_error_errno(EINVAL,
				       "--redacted redacts crashes of the store: what journal "
				       "files and documents hold was redacted by the machine "
				       "that sent it, as its target says.");
	r = source_open_crash(argc > 1 ? argv[1] : NULL, &c);
	if (r < 0)
		return r;
	if (arg_redacted) {
		/* Exactly what a redacting target gets (lib/upload/document.h). */
		_cleanup_(upload_redactor_freep) UploadRedactor *redactor = NULL;

		r = load_redactor(&redactor);
		if (r < 0)
			return r;
		r = upload_document_json_object(c->store, c->id, redactor, &doc);
	} else
		r = source_crash_export(c, &doc);
	if (r == -EFBIG)
		return log_error_errno(r,
				       "Failed to export crash %s: a file of it is over %u MiB, "
				       "not a pstore record: %m",
				       c->id, UPLOAD_EXPORT_FILE_MAX >> 20);
	if (r < 0)
		return log_store_error(r, c->id);

	if (arg_output)
		return write_output(doc, arg_output);

	/* The document is JSON whatever --json says; --json=short makes it compact. */
	if (arg_json == JSON_OFF)
		arg_json = JSON_PRETTY;
	return print_json(doc);
}
