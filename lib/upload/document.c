// SPDX-License-Identifier: GPL-2.0-or-later

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
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

/* doc as JSON text on one line, with the newline, as a document of content_type. */
static int dump_line(json_t *doc, size_t flags, const char *content_type, UploadDocument *ret)
{
	char *text, *line;
	size_t len;

	text = json_dumps(doc, flags);
	if (!text)
		return -ENOMEM;
	len = strlen(text);
	line = realloc(text, len + 2);
	if (!line) {
		free(text);
		return -ENOMEM;
	}
	line[len] = '\n';
	line[len + 1] = '\0';
	*ret = (UploadDocument){.data = line, .len = len + 1, .content_type = content_type};
	return 0;
}

int upload_document_json(const UploadDocumentContext *c, UploadDocument *ret)
{
	const char *id = json_string_value(json_object_get(c->crash, "id"));
	json_auto_t *doc = NULL;
	int r;

	if (!id)
		return -EBADMSG;
	r = upload_document_json_object(c->store, id, c->redactor, &doc);
	if (r < 0)
		return r;
	/* The final newline of "pstorectl export": the two are the same bytes. */
	return dump_line(doc, UPLOAD_DOCUMENT_JSON_FLAGS, "application/json", ret);
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

/* What the journal entry of the crash is made of (crash-source.h). */
typedef struct CrashSourceData {
	UploadCrashSource src;
	char *log;
	json_t *redacted_crash; /* NULL without a redactor */
} CrashSourceData;

static void crash_source_data_done(CrashSourceData *d)
{
	free(d->log);
	json_decref(d->redacted_crash);
}

/* The crash's log and, when c has a redactor, a redacted copy of crash.json. */
static int crash_source_read(const UploadDocumentContext *c, CrashSourceData *ret)
{
	const char *id = json_string_value(json_object_get(c->crash, "id"));
	_cleanup_free_ char *log = NULL;
	json_auto_t *redacted = NULL;
	size_t len = 0;
	int r;

	if (!id)
		return -EBADMSG;
	r = read_log(c, id, &log, &len);
	if (r < 0)
		return r;
	if (c->redactor) {
		redacted = json_deep_copy(c->crash);
		if (!redacted)
			return -ENOMEM;
		r = upload_redact_json_strings(c->redactor, redacted);
		if (r < 0)
			return r;
	}
	*ret = (CrashSourceData){
		.src =
			{
				.crash = redacted ?: c->crash,
				.dmesg = log,
				.dmesg_len = len,
				.hostname = c->hostname,
				.machine_id = c->machine_id,
			},
		.log = TAKE_PTR(log),
		.redacted_crash = TAKE_PTR(redacted),
	};
	return 0;
}

int upload_document_journal(const UploadDocumentContext *c, UploadDocument *ret)
{
	_cleanup_(crash_source_data_done) CrashSourceData data = {};
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	r = crash_source_read(c, &data);
	if (r < 0)
		return r;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	r = upload_journal_crash(f, &data.src);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;

	*ret = (UploadDocument){
		.data = TAKE_PTR(buf), .len = len, .content_type = "application/vnd.fdo.journal"};
	return 0;
}

int upload_document_clickhouse(const UploadDocumentContext *c, UploadDocument *ret)
{
	const char *id = json_string_value(json_object_get(c->crash, "id"));
	json_auto_t *doc = NULL, *row = NULL;
	int r;

	if (!id)
		return -EBADMSG;
	/* The row holds the http-json document: read back, it is the same document. */
	r = upload_document_json_object(c->store, id, c->redactor, &doc);
	if (r < 0)
		return r;
	r = upload_clickhouse_row(doc, c->hostname, c->machine_id, &row);
	if (r < 0)
		return r;
	/* JSONEachRow: one object a line. */
	return dump_line(row, JSON_COMPACT, "text/plain; charset=utf-8", ret);
}
