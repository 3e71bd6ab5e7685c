/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Redaction of what leaves the machine: a crash log names the machine and
 * its network (addresses, MACs, hostname, DMI serial numbers). An UploadRedactor
 * holds the rules; upload_redact_text() applies them to a buffer.
 *
 * Built-in rules (always on): IPv4 and IPv6 addresses (validated with
 * inet_pton(), so "6.1.0" or "0000:00:1f.2" stay), MAC addresses. Added
 * rules: literal words (the hostname, serial numbers; matched as whole
 * words, case-insensitively) and POSIX extended regular expressions.
 *
 * Each match is replaced by a bracketed tag ("[IPv4]", "[IPv6]", "[MAC]",
 * the tag given for a literal, "[REDACTED]" for a regular expression), so
 * the reader of a redacted log still sees that something was there.
 */

#include <stddef.h>
#include <jansson.h>

#include "config/config.h"

typedef struct UploadRedactor UploadRedactor;

int upload_redactor_new(UploadRedactor **ret);
UploadRedactor *upload_redactor_free(UploadRedactor *r);

/*
 * Redacts every whole-word occurrence of word (case-insensitive) as tag.
 * Words shorter than 3 characters, "localhost" and "(none)" are ignored
 * (they identify nothing and would redact half the log): returns 0.
 */
int upload_redactor_add_word(UploadRedactor *r, const char *word, const char *tag);

/*
 * Adds a POSIX extended regular expression (REG_NEWLINE: ^ and $ match at
 * line ends). -EINVAL on a bad expression, with *ret_error (if not NULL)
 * set to regerror()'s explanation.
 */
int upload_redactor_add_regex(UploadRedactor *r, const char *regex, char **ret_error);

/*
 * Applies every rule to text[0..len) (which may hold NUL bytes) and returns
 * a new NUL-terminated buffer and its length (ret_len may be NULL).
 */
int upload_redact_text(const UploadRedactor *r, const char *text, size_t len, char **ret,
		       size_t *ret_len);

/* Redacts every string value in v (not object keys), recursively, in place. */
int upload_redact_json_strings(const UploadRedactor *r, json_t *v);

/*
 * Redacts an export document (export.h) in place: every string, and
 * the raw records: a text record (dmesg, console, pmsg, ftrace) is decoded,
 * redacted and encoded again; a compressed one loses its "data" (its text
 * is in "dmesg", redacted) and gets "data_omitted": "redacted"; binary
 * hardware records (mce, CPER) hold no text and are kept.
 */
int upload_redact_export_document(const UploadRedactor *r, json_t *doc);

/*
 * The redaction rules of an upload target (cfg NULL: the built-in ones):
 * addresses, the hostname, the DMI serial numbers under dmi_dir (NULL:
 * /sys/class/dmi/id) and the target's RedactRegex=. Logs its errors.
 */
int upload_target_redactor(const PstoredTarget *cfg, const char *hostname, const char *dmi_dir,
			   UploadRedactor **ret);

/* For _cleanup_(upload_redactor_freep). */
static inline void upload_redactor_freep(UploadRedactor **r)
{
	upload_redactor_free(*r);
}
