/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Target URLs. An http-json URL is a template: {id}, {hostname} and
 * {machine_id} are replaced by the crash id, the host name and the machine
 * id, percent-encoded (RFC 3986 unreserved characters stay). Any other
 * "{...}" is an error, found when the configuration is checked.
 */

typedef struct UploadUrlValues {
	const char *id;
	const char *hostname;
	const char *machine_id;
} UploadUrlValues;

/* -EINVAL for an unknown {placeholder} or an unclosed brace. */
int upload_url_expand(const char *template, const UploadUrlValues *v, char **ret);

/*
 * systemd-journal-remote's default port, and where it takes entries: the
 * URL of a journal-remote target is taken as systemd-journal-upload takes
 * its --url= (journal-upload.c, setup_uploader()): without a port, this one;
 * without a path (or with "/" alone), /upload. A URL with a path is kept as
 * it is, so that one behind a proxy can say where its collector listens.
 */
#define JOURNAL_REMOTE_PORT "19532"
#define JOURNAL_REMOTE_PATH "/upload"

/* -EINVAL for a URL that does not parse. */
int upload_journal_remote_url(const char *url, char **ret);

/*
 * The URL as it may appear in a message: a password (or a user name
 * without one, which often is a token) replaced by "***", the query string
 * dropped. A URL that does not parse becomes "(invalid URL)".
 */
int upload_url_mask(const char *url, char **ret);
