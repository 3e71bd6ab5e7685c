/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Redaction of what leaves the machine: a crash log names the machine and
 * its network (addresses, MACs, hostname, DMI serial numbers). A Redactor
 * holds the rules; redact_text() applies them to a buffer.
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

typedef struct Redactor Redactor;

int redactor_new(Redactor **ret);
Redactor *redactor_free(Redactor *r);

/*
 * Redacts every whole-word occurrence of word (case-insensitive) as tag.
 * Words shorter than 3 characters, "localhost" and "(none)" are ignored
 * (they identify nothing and would redact half the log): returns 0.
 */
int redactor_add_word(Redactor *r, const char *word, const char *tag);

/*
 * Adds a POSIX extended regular expression (REG_NEWLINE: ^ and $ match at
 * line ends). -EINVAL on a bad expression, with *ret_error (if not NULL)
 * set to regerror()'s explanation.
 */
int redactor_add_regex(Redactor *r, const char *regex, char **ret_error);

/*
 * Applies every rule to text[0..len) (which may hold NUL bytes) and returns
 * a new NUL-terminated buffer and its length (ret_len may be NULL).
 */
int redact_text(const Redactor *r, const char *text, size_t len, char **ret, size_t *ret_len);

/* Redacts every string value in v (not object keys), recursively, in place. */
int redact_json_strings(const Redactor *r, json_t *v);

/*
 * Redacts an export document (export.h) in place: every string, and
 * the raw records: a text record (dmesg, console, pmsg, ftrace) is decoded,
 * redacted and encoded again; a compressed one loses its "data" (its text
 * is in "dmesg", redacted) and gets "data_omitted": "redacted"; binary
 * hardware records (mce, CPER) hold no text and are kept.
 */
int redact_export_document(const Redactor *r, json_t *doc);

/* Redactor for _cleanup_(redactor_freep). */
static inline void redactor_freep(Redactor **r)
{
	redactor_free(*r);
}
