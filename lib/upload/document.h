/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The documents the targets send, built from the store:
 *
 *	http-json        the export document of the crash (export.h)
 *	                 without its local "upload" bookkeeping, redacted when
 *	                 the target redacts, as compact JSON with sorted keys and
 *	                 a final newline: byte for byte what
 *	                 "pstorectl export --redacted --json=short" prints
 *	journal-remote   one entry in the journal export format, the fields of
 *	                 the local journal entry (journal-export.h)
 *	clickhouse       one JSONEachRow line of the pstored.crashes table
 *	                 (clickhouse.h), the http-json document in it; the
 *	                 uploader sends many in one INSERT
 */

#include <jansson.h>
#include <stddef.h>

#include "redact.h"
#include "store/store.h"

typedef struct UploadDocumentContext {
	Store *store;
	json_t *crash;			/* crash.json */
	const UploadRedactor *redactor; /* NULL: send as stored */
	const char *hostname;
	const char *machine_id;
} UploadDocumentContext;

typedef struct UploadDocument {
	char *data;
	size_t len;
	const char *content_type;
} UploadDocument;

/* The http-json document as JSON (what "pstorectl export --redacted" prints). */
int upload_document_json_object(Store *s, const char *id, const UploadRedactor *redactor,
				json_t **ret);
int upload_document_json(const UploadDocumentContext *c, UploadDocument *ret);
int upload_document_journal(const UploadDocumentContext *c, UploadDocument *ret);
/* One row of a ClickHouse INSERT ... FORMAT JSONEachRow (clickhouse.h), with its newline. */
int upload_document_clickhouse(const UploadDocumentContext *c, UploadDocument *ret);
void upload_document_done(UploadDocument *d);

/* The JSON serialisation of the http-json document (flags for json_dumps()). */
#define UPLOAD_DOCUMENT_JSON_FLAGS (JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII)
