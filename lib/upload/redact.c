/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <resolv.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "redact.h"

/*
 * A rule finds candidates with a regular expression; an optional check
 * then decides whether a candidate really is what the rule redacts and
 * how long it is (an IPv6 candidate "fe80::1:" in "fe80::1: link up" is
 * the address "fe80::1" and a colon). Rules run one after the other over
 * the whole text, each on the previous one's output.
 */
typedef size_t (*RedactCheck)(const char *text, size_t len, size_t start, size_t end);

typedef struct RedactRule {
	/*
	 * An ASCII word is found by comparing it, case-insensitively, at each place: ten times
	 * faster than glibc's regexec() of it. Any other rule has its regex.
	 */
	char *word;
	size_t word_len;
	regex_t regex;
	RedactCheck check; /* NULL: every match counts */
	/*
	 * NULL, or characters of which every match holds one: a text without any is not worth a
	 * regexec(), whose set-up costs more than most strings of crash.json.
	 */
	const char *needs;
	char *tag;
} RedactRule;

struct UploadRedactor {
	RedactRule *rules;
	size_t n_rules;
};

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The character before start, or NUL at the beginning. */
static char char_before(const char *text, size_t start)
{
	return start > 0 ? text[start - 1] : '\0';
}

static char char_at(const char *text, size_t len, size_t pos)
{
	return pos < len ? text[pos] : '\0';
}

static bool address_parses(int family, const char *s, size_t n)
{
	char buf[INET6_ADDRSTRLEN + 1];
	unsigned char addr[sizeof(struct in6_addr)];

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return inet_pton(family, buf, addr) == 1;
}

/*
 * "10.0.0.1" but not the middle of a version "6.1.0.17.3" or of a word;
 * a final full stop ends a sentence, not the address.
 */
static size_t check_ipv4(const char *text, size_t len, size_t start, size_t end)
{
	char before = char_before(text, start), after = char_at(text, len, end);

	if (is_word_char(before) || before == '.')
		return 0;
	if (isdigit((unsigned char)after) ||
	    (after == '.' && isdigit((unsigned char)char_at(text, len, end + 1))))
		return 0;
	return address_parses(AF_INET, text + start, end - start) ? end - start : 0;
}

/* The longest prefix of the candidate that is an address, at least "::1". */
static size_t check_ipv6(const char *text, size_t len, size_t start, size_t end)
{
	char before = char_before(text, start);

	char after = char_at(text, len, end);

	/* "::ffff:10.0.0.1" is left to the IPv4 rule, which takes its end. */
	if (is_word_char(before) || before == ':' || is_word_char(after) ||
	    (after == '.' && isdigit((unsigned char)char_at(text, len, end + 1))))
		return 0;
	for (size_t n = end - start; n >= 3; n--)
		if (address_parses(AF_INET6, text + start, n))
			return n;
	return 0;
}

static size_t check_mac(const char *text, size_t len, size_t start, size_t end)
{
	char before = char_before(text, start), after = char_at(text, len, end);

	if (is_word_char(before) || before == ':' || is_word_char(after) || after == ':')
		return 0;
	return end - start;
}

static size_t check_word(const char *text, size_t len, size_t start, size_t end)
{
	if (is_word_char(char_before(text, start)) || is_word_char(char_at(text, len, end)))
		return 0;
	return end - start;
}

/* A new rule at the end of r's, tagging with tag; NULL on OOM. */
static RedactRule *redactor_new_rule(UploadRedactor *r, const char *tag)
{
	RedactRule *rules;

	rules = reallocarray(r->rules, r->n_rules + 1, sizeof(*rules));
	if (!rules)
		return NULL;
	r->rules = rules;
	rules[r->n_rules] = (RedactRule){.tag = strdup(tag)};
	return rules[r->n_rules].tag ? &rules[r->n_rules] : NULL;
}

static int redactor_add_rule(UploadRedactor *r, const char *regex, int cflags, RedactCheck check,
			     const char *needs, const char *tag, char **ret_error)
{
	RedactRule *rule;
	int k;

	rule = redactor_new_rule(r, tag);
	if (!rule)
		return -ENOMEM;

	k = regcomp(&rule->regex, regex, REG_EXTENDED | REG_NEWLINE | cflags);
	if (k != 0) {
		if (ret_error) {
			char msg[256];

			regerror(k, &rule->regex, msg, sizeof(msg));
			*ret_error = strdup(msg);
		}
		free(rule->tag);
		return k == REG_ESPACE ? -ENOMEM : -EINVAL;
	}
	rule->check = check;
	rule->needs = needs;
	r->n_rules++;
	return 0;
}

int upload_redactor_new(UploadRedactor **ret)
{
	_cleanup_(upload_redactor_freep) UploadRedactor *r = NULL;
	int k;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;

	/* MACs first: "52:54:00:12:34:56" is also an IPv6 candidate. */
	k = redactor_add_rule(r, "[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}", 0, check_mac, ":-",
			      "[MAC]", NULL);
	if (k < 0)
		return k;
	k = redactor_add_rule(r, "[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,7}", 0, check_ipv6, ":",
			      "[IPv6]", NULL);
	if (k < 0)
		return k;
	k = redactor_add_rule(r, "[0-9]{1,3}(\\.[0-9]{1,3}){3}", 0, check_ipv4, ".", "[IPv4]",
			      NULL);
	if (k < 0)
		return k;

	*ret = TAKE_PTR(r);
	return 0;
}

UploadRedactor *upload_redactor_free(UploadRedactor *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->n_rules; i++) {
		if (r->rules[i].word)
			free(r->rules[i].word);
		else
			regfree(&r->rules[i].regex);
		free(r->rules[i].tag);
	}
	free(r->rules);
	free(r);
	return NULL;
}

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/*
 * An ASCII word by comparing it: what regcomp() makes of its quoted characters with REG_ICASE
 * matches the same places. Any other word, whose case folding depends on the locale, by its regex.
 */
int upload_redactor_add_word(UploadRedactor *r, const char *word, const char *tag)
{
	_cleanup_free_ char *regex = NULL;
	size_t n = strlen(word);
	char *p;

	if (n < 3 || strcasecmp(word, "localhost") == 0 || streq(word, "(none)"))
		return 0;

	if (is_ascii(word)) {
		RedactRule *rule = redactor_new_rule(r, tag);

		if (!rule || !(rule->word = strdup(word))) {
			if (rule)
				free(rule->tag);
			return -ENOMEM;
		}
		rule->word_len = n;
		rule->check = check_word;
		r->n_rules++;
		return 0;
	}

	/* Quote every character: a hostname or serial number is not a pattern. */
	regex = malloc(n * 4 + 1);
	if (!regex)
		return -ENOMEM;
	p = regex;
	for (const char *c = word; *c; c++) {
		if (*c == '\\' || *c == '^') {
			*p++ = '\\';
			*p++ = *c;
		} else if (isalnum((unsigned char)*c)) {
			*p++ = *c;
		} else {
			*p++ = '[';
			*p++ = *c;
			*p++ = ']';
		}
	}
	*p = '\0';

	return redactor_add_rule(r, regex, REG_ICASE, check_word, NULL, tag, NULL);
}

int upload_redactor_add_regex(UploadRedactor *r, const char *regex, char **ret_error)
{
	return redactor_add_rule(r, regex, 0, NULL, NULL, "[REDACTED]", ret_error);
}

/* Whether text[0..len) holds any of the characters of chars. */
static bool memchr_any(const char *text, size_t len, const char *chars)
{
	for (; *chars; chars++)
		if (memchr(text, *chars, len))
			return true;
	return false;
}

/* The first match of rule in text[pos..len), at *ret_start and *ret_len long; false if none. */
static bool rule_find(const RedactRule *rule, const char *text, size_t len, size_t pos,
		      size_t *ret_start, size_t *ret_len)
{
	regmatch_t m = {.rm_so = pos, .rm_eo = len};
	int flags = REG_STARTEND;

	if (rule->word) {
		int first = tolower((unsigned char)rule->word[0]);

		for (size_t i = pos; i + rule->word_len <= len; i++)
			if (tolower((unsigned char)text[i]) == first &&
			    strncasecmp(text + i, rule->word, rule->word_len) == 0) {
				*ret_start = i;
				*ret_len = rule->word_len;
				return true;
			}
		return false;
	}
	if (pos > 0 && text[pos - 1] != '\n')
		flags |= REG_NOTBOL;
	if (regexec(&rule->regex, text, 1, &m, flags) != 0)
		return false;
	*ret_start = m.rm_so;
	*ret_len = (size_t)(m.rm_eo - m.rm_so);
	return true;
}

/*
 * One rule over text[0..len): the text with what it redacts replaced in *out, a memory stream
 * opened at the first replacement into *ret. Most strings have nothing to redact, and then
 * *out stays NULL: no stream and no copy for them.
 */
static int redact_rule(const RedactRule *rule, const char *text, size_t len, FILE **out, char **ret,
		       size_t *ret_len)
{
	size_t pos = 0, copied = 0;

	if (rule->needs && !memchr_any(text, len, rule->needs))
		return 0;

	while (pos <= len) {
		size_t start, n;

		if (!rule_find(rule, text, len, pos, &start, &n))
			break;
		if (n > 0 && rule->check)
			n = rule->check(text, len, start, start + n);
		if (n == 0) {
			/* Not a match after all (or an empty one): go on after its start. */
			pos = start + 1;
			continue;
		}

		if (!*out) {
			*out = open_memstream(ret, ret_len);
			if (!*out)
				return -ENOMEM;
		}
		if (fwrite(text + copied, 1, start - copied, *out) != start - copied ||
		    fputs(rule->tag, *out) == EOF)
			return -ENOMEM;
		pos = copied = start + n;
	}

	if (*out && fwrite(text + copied, 1, len - copied, *out) != len - copied)
		return -ENOMEM;
	return 0;
}

int upload_redact_text(const UploadRedactor *r, const char *text, size_t len, char **ret,
		       size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t buf_len = len;

	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = '\0';

	for (size_t i = 0; i < r->n_rules; i++) {
		_cleanup_free_ char *next = NULL;
		size_t next_len = 0;
		FILE *out = NULL;
		int k;

		k = redact_rule(&r->rules[i], buf, buf_len, &out, &next, &next_len);
		if (out && fclose(out) != 0 && k == 0)
			k = -ENOMEM;
		if (k < 0)
			return k;
		if (!out)
			continue; /* nothing redacted: buf stays */

		free(buf);
		buf = TAKE_PTR(next);
		buf_len = next_len;
	}

	if (ret_len)
		*ret_len = buf_len;
	*ret = TAKE_PTR(buf);
	return 0;
}

int upload_redact_json_strings(const UploadRedactor *r, json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;
	int k;

	switch (json_typeof(v)) {
	case JSON_STRING: {
		_cleanup_free_ char *s = NULL;
		size_t n;

		k = upload_redact_text(r, json_string_value(v), json_string_length(v), &s, &n);
		if (k < 0)
			return k;
		return json_string_setn_nocheck(v, s, n) < 0 ? -ENOMEM : 0;
	}
	case JSON_OBJECT:
		json_object_foreach(v, key, item) {
			k = upload_redact_json_strings(r, item);
			if (k < 0)
				return k;
		}
		return 0;
	case JSON_ARRAY:
		json_array_foreach(v, i, item) {
			k = upload_redact_json_strings(r, item);
			if (k < 0)
				return k;
		}
		return 0;
	default:
		return 0;
	}
}

static bool record_is_text(json_t *record)
{
	static const char *const text_types[] = {"dmesg", "console", "pmsg", "ftrace"};
	const char *type = json_string_value(json_object_get(record, "type"));

	for (size_t i = 0; type && i < ARRAY_SIZE(text_types); i++)
		if (streq(type, text_types[i]))
			return true;
	return false;
}

/* Base64 (as b64_ntop() writes it: no line breaks) of a text record, redacted. */
static int redact_record_data(const UploadRedactor *r, json_t *record)
{
	json_t *data = json_object_get(record, "data");
	_cleanup_free_ unsigned char *raw = NULL;
	_cleanup_free_ char *text = NULL, *b64 = NULL;
	size_t len = json_string_length(data), text_len;
	int n, k;

	if (!json_is_string(data) || len % 4 != 0 || len > INT32_MAX)
		return -EBADMSG;
	/* b64_pton() may write one byte past the data it decodes. */
	raw = malloc(len / 4 * 3 + 1);
	if (!raw)
		return -ENOMEM;
	n = b64_pton(json_string_value(data), raw, len / 4 * 3 + 1);
	if (n < 0)
		return -EBADMSG;

	k = upload_redact_text(r, (const char *)raw, (size_t)n, &text, &text_len);
	if (k < 0)
		return k;
	if (text_len > SIZE_MAX / 4 - 1)
		return -EFBIG;
	b64 = malloc(4 * ((text_len + 2) / 3) + 1);
	if (!b64)
		return -ENOMEM;
	if (b64_ntop((const unsigned char *)text, text_len, b64, 4 * ((text_len + 2) / 3) + 1) < 0)
		return -EFBIG;
	return json_object_set_new(record, "data", json_string(b64)) < 0 ? -ENOMEM : 0;
}

int upload_redact_export_document(const UploadRedactor *r, json_t *doc)
{
	json_t *records = json_object_get(doc, "records"), *record, *data;
	const char *key;
	size_t i;
	int k;

	json_object_foreach(doc, key, data) {
		if (streq(key, "records"))
			continue;
		k = upload_redact_json_strings(r, data);
		if (k < 0)
			return k;
	}

	json_array_foreach(records, i, record) {
		json_t *v;

		/* Every field of the record but its data is text to redact. */
		json_object_foreach(record, key, v) {
			if (streq(key, "data"))
				continue;
			k = upload_redact_json_strings(r, v);
			if (k < 0)
				return k;
		}
		if (!json_object_get(record, "data"))
			continue;
		if (json_is_true(json_object_get(record, "compressed"))) {
			if (json_object_del(record, "data") < 0 ||
			    json_object_set_new(record, "data_omitted", json_string("redacted")) <
				    0)
				return -ENOMEM;
		} else if (record_is_text(record)) {
			k = redact_record_data(r, record);
			if (k < 0)
				return k;
		}
	}
	return 0;
}
