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
 * The URL as it may appear in a message: a password (or a user name
 * without one, which often is a token) replaced by "***", the query string
 * dropped. A URL that does not parse becomes "(invalid URL)".
 */
int upload_url_mask(const char *url, char **ret);
