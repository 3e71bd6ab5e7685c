// SPDX-License-Identifier: GPL-2.0-or-later

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document.h"
#include "export.h"
#include "fs-util.h"
#include "journal-export.h"
#include "macro.h"

void upload_document_done(UploadDocument *d)
{
	free(d->data);
	*d = (UploadDocument){};
}

int upload_document_json_object(Store *s, const char *id, const UploadRedactor *redactor,
				json_t **ret)
{
	json_auto_t *doc = NULL;
	int r;

	r = upload_export_json(s, id, &doc);
	if (r < 0)
		return r;
	/* Where this machine sent the crash is nobody else's business, and changes. */
	(void)json_object_del(doc, "upload");
	if (redactor) {
		r = upload_redact_export_document(redactor, doc);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(doc);
	return 0;
}

int upload_document_json(const UploadDocumentContext *c, UploadDocument *ret)
{
	const char *id = json_string_value(json_object_get(c->crash, "id"));
	json_auto_t *doc = NULL;
	char *text;
	size_t len;
	int r;

	if (!id)
		return -EBADMSG;
	r = upload_document_json_object(c->store, id, c->redactor, &doc);
	if (r < 0)
		return r;
	text = json_dumps(doc, UPLOAD_DOCUMENT_JSON_FLAGS);
	if (!text)
		return -ENOMEM;
	/* The final newline of "pstorectl export": the two are the same bytes. */
	len = strlen(text);
	char *with_nl = realloc(text, len + 2);
	if (!with_nl) {
		free(text);
		return -ENOMEM;
	}
	with_nl[len] = '\n';
	with_nl[len + 1] = '\0';

	*ret = (UploadDocument){
		.data = with_nl, .len = len + 1, .content_type = "application/json"};
	return 0;
}

/* The crash's log (NULL if it has none), redacted when c has a redactor. */
static int read_log(const UploadDocumentContext *c, const char *id, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *path = NULL, *log = NULL;
	size_t len = 0;
	int r;

	r = store_crash_path(c->store, id, "dmesg.txt", &path);
	if (r < 0)
		return r;
	r = read_full_file_at(AT_FDCWD, path, UPLOAD_EXPORT_FILE_MAX, &log, &len);
	if (r < 0 && r != -ENOENT)
		return r;
	if (log && c->redactor)
		return upload_redact_text(c->redactor, log, len, ret, ret_len);
	*ret = TAKE_PTR(log);
	*ret_len = len;
	return 0;
}

int upload_document_journal(const UploadDocumentContext *c, UploadDocument *ret)
{
	const char *id = json_string_value(json_object_get(c->crash, "id"));
	_cleanup_free_ char *log = NULL, *buf = NULL;
	json_auto_t *redacted_crash = NULL;
	size_t log_len = 0, len = 0;
	FILE *f;
	int r;

	if (!id)
		return -EBADMSG;
	r = read_log(c, id, &log, &log_len);
	if (r < 0)
		return r;
	if (c->redactor) {
		/* The fields come from crash.json: redact a copy of it, as the log. */
		redacted_crash = json_deep_copy(c->crash);
		if (!redacted_crash)
			return -ENOMEM;
		r = upload_redact_json_strings(c->redactor, redacted_crash);
		if (r < 0)
			return r;
	}

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	UploadJournalEntry e = {
		.crash = redacted_crash ?: c->crash,
		.dmesg = log,
		.dmesg_len = log_len,
		.hostname = c->hostname,
		.machine_id = c->machine_id,
	};
	r = upload_journal_crash(f, &e);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;

	*ret = (UploadDocument){
		.data = TAKE_PTR(buf), .len = len, .content_type = "application/vnd.fdo.journal"};
	return 0;
}
