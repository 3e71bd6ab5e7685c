// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Text output, close to the kernel's cper_estatus_print(): the record and
 * section headers in its wording, and every decoded field as
 * "name: value" lines, indented one space per level as the kernel does.
 * The text is rendered from the JSON, so the two never disagree.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cper-internal.h"

#define DEFAULT_PREFIX "[Hardware Error]: "

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && streq(s + n - m, suffix);
}

/* "foo_name"/"foo_names" are printed on the line of "foo". */
static bool is_companion(const json_t *o, const char *key)
{
	char base[64];
	size_t n = strlen(key);

	if (has_suffix(key, "_name") && n - 5 < sizeof(base)) {
		memcpy(base, key, n - 5);
		base[n - 5] = '\0';
		return json_object_get(o, base) != NULL;
	}
	if (has_suffix(key, "_names") && n - 6 < sizeof(base)) {
		memcpy(base, key, n - 6);
		base[n - 6] = '\0';
		return json_object_get(o, base) != NULL;
	}
	return false;
}

static void print_scalar(const json_t *v, FILE *f)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		fputs(json_string_value(v), f);
		break;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_TRUE:
		fputs("true", f);
		break;
	case JSON_FALSE:
		fputs("false", f);
		break;
	case JSON_REAL:
		fprintf(f, "%g", json_real_value(v));
		break;
	default:
		fputs("null", f);
		break;
	}
}

static void print_dump(const char *pfx, int indent, const char *hex, FILE *f)
{
	size_t n = strlen(hex) / 2;

	for (size_t line = 0; line < n; line += 16) {
		fprintf(f, "%s%*s%08zx:", pfx, indent, "", line);
		for (size_t i = line; i < line + 16 && i < n; i++)
			fprintf(f, "%s%c%c", (i - line) % 4 == 0 ? " " : "", hex[2 * i],
				hex[2 * i + 1]);
		fputc('\n', f);
	}
}

static void print_object(const char *pfx, int indent, const json_t *o, FILE *f);

/* Scalars joined by ", ". */
static void print_scalars(const json_t *a, FILE *f)
{
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e) {
		if (i > 0)
			fputs(", ", f);
		print_scalar(e, f);
	}
}

/* An array: scalars on one line, objects one block each. */
static void print_array(const char *pfx, int indent, const char *key, const json_t *v, FILE *f)
{
	size_t i;
	json_t *e;
	bool scalars = true;

	json_array_foreach(v, i, e)
		if (json_is_object(e) || json_is_array(e))
			scalars = false;
	if (scalars) {
		fprintf(f, "%s%*s%s: ", pfx, indent, "", key);
		print_scalars(v, f);
		fputc('\n', f);
		return;
	}
	json_array_foreach(v, i, e) {
		fprintf(f, "%s%*s%s %zu:\n", pfx, indent, "", key, i);
		if (json_is_object(e))
			print_object(pfx, indent + 1, e, f);
	}
}

/* "key: value", with its "key_name" and "key_names" companions of o on the same line. */
static void print_value(const char *pfx, int indent, const json_t *o, const char *key,
			const json_t *v, FILE *f)
{
	char k2[72];

	fprintf(f, "%s%*s%s: ", pfx, indent, "", key);
	print_scalar(v, f);
	cper_key_suffixed(k2, sizeof(k2), key, "_name");
	const json_t *name = json_object_get(o, k2);
	if (json_is_string(name))
		fprintf(f, ", %s", json_string_value(name));
	cper_key_suffixed(k2, sizeof(k2), key, "_names");
	const json_t *names = json_object_get(o, k2);
	if (json_is_array(names) && json_array_size(names) > 0) {
		fputs(" (", f);
		print_scalars(names, f);
		fputc(')', f);
	}
	fputc('\n', f);
}

static void print_member(const char *pfx, int indent, const json_t *o, const char *key,
			 const json_t *v, FILE *f)
{
	if (streq(key, "text") && json_is_string(v)) {
		/* The kernel log a Linux record wraps, as it is. */
		const char *s = json_string_value(v);
		fprintf(f, "%s%*stext:\n", pfx, indent, "");
		fputs(s, f);
		if (*s && s[strlen(s) - 1] != '\n')
			fputc('\n', f);
	} else if (has_suffix(key, "_dump") && json_is_string(v)) {
		fprintf(f, "%s%*s%.*s: %zu bytes\n", pfx, indent, "", (int)(strlen(key) - 5), key,
			json_string_length(v) / 2);
		print_dump(pfx, indent + 1, json_string_value(v), f);
	} else if (json_is_object(v)) {
		fprintf(f, "%s%*s%s:\n", pfx, indent, "", key);
		print_object(pfx, indent + 1, v, f);
	} else if (json_is_array(v))
		print_array(pfx, indent, key, v, f);
	else
		print_value(pfx, indent, o, key, v, f);
}

static void print_object(const char *pfx, int indent, const json_t *o, FILE *f)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)o, key, v)
		if (!is_companion(o, key))
			print_member(pfx, indent, o, key, v, f);
}

static const char *str(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : dflt;
}

static int finish(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

/* One line per entry of an "errors" or "notes" array: "<prefix><what> at offset N: message". */
static void print_messages(const char *pfx, const char *what, const json_t *messages, FILE *f)
{
	size_t i;
	json_t *e;

	json_array_foreach(messages, i, e)
		fprintf(f, "%s%s at offset %" JSON_INTEGER_FORMAT ": %s\n", pfx, what,
			json_integer_value(json_object_get(e, "offset")), str(e, "message", ""));
}

/* "<prefix><label>: a b c" for a non-empty "flags_names" array. */
static void print_flag_names(const char *pfx, const char *label, const json_t *names, FILE *f)
{
	size_t i;
	json_t *e;

	if (json_array_size(names) == 0)
		return;
	fprintf(f, "%s%s:", pfx, label);
	json_array_foreach(names, i, e)
		fprintf(f, " %s", json_string_value(e));
	fputc('\n', f);
}

/* "<prefix>key: GUID (name)", the name from "key_name" when there is one. */
static void print_guid_named(const char *pfx, const json_t *o, const char *key, FILE *f)
{
	char name_key[72];

	cper_key_suffixed(name_key, sizeof(name_key), key, "_name");
	const char *name = str(o, name_key, NULL);
	fprintf(f, "%s%s: %s%s%s%s\n", pfx, key, str(o, key, "?"), name ? " (" : "", name ?: "",
		name ? ")" : "");
}

static void print_record_header(const char *pfx, const json_t *record, FILE *f)
{
	const json_t *ts = json_object_get(record, "timestamp");
	const char *sev = str(record, "severity", "unknown");

	if (streq(sev, "corrected"))
		fprintf(f, "%sIt has been corrected by h/w and requires no further action\n", pfx);
	fprintf(f, "%sevent severity: %s\n", pfx, sev);
	fprintf(f,
		"%srecord_id: %s, offset: %" JSON_INTEGER_FORMAT ", length: %" JSON_INTEGER_FORMAT
		", revision: %s\n",
		pfx, str(record, "record_id", "?"),
		json_integer_value(json_object_get(record, "offset")),
		json_integer_value(json_object_get(record, "length")),
		str(record, "revision", "?"));
	if (ts)
		fprintf(f, "%stimestamp: %s (%s)\n", pfx, str(ts, "time", str(ts, "raw", "?")),
			str(ts, "encoding", "unknown"));
	print_guid_named(pfx, record, "creator_id", f);
	print_guid_named(pfx, record, "notification_type", f);
	if (json_object_get(record, "platform_id"))
		fprintf(f, "%splatform_id: %s\n", pfx, str(record, "platform_id", ""));
	if (json_object_get(record, "partition_id"))
		fprintf(f, "%spartition_id: %s\n", pfx, str(record, "partition_id", ""));
	print_flag_names(pfx, "flags", json_object_get(record, "flags_names"), f);
}

static void print_section(const char *pfx, size_t i, const json_t *s, FILE *f)
{
	const char *name = str(s, "section_type_name", "unknown");
	const json_t *body = json_object_get(s, "body");

	fprintf(f, "%s Error %zu, type: %s\n", pfx, i, str(s, "severity", "unknown"));
	print_flag_names(pfx, " flags", json_object_get(s, "flags_names"), f);
	if (json_object_get(s, "fru_id"))
		fprintf(f, "%s fru_id: %s\n", pfx, str(s, "fru_id", ""));
	if (json_object_get(s, "fru_text"))
		fprintf(f, "%s fru_text: %s\n", pfx, str(s, "fru_text", ""));
	if (streq(name, "unknown"))
		fprintf(f, "%s  section type: unknown, %s\n", pfx, str(s, "section_type", ""));
	else
		fprintf(f, "%s  section_type: %s\n", pfx, name);
	if (streq(name, "unknown") || json_object_get(s, "truncated"))
		fprintf(f, "%s  section length: %#llx\n", pfx,
			(unsigned long long)json_integer_value(json_object_get(s, "length")));
	if (body)
		print_object(pfx, 2, body, f);
}

int cper_record_print_text(const json_t *record, const char *prefix, FILE *f)
{
	const char *pfx = prefix ?: DEFAULT_PREFIX;
	size_t i;
	json_t *s;

	print_record_header(pfx, record, f);
	print_messages(pfx, "note", json_object_get(record, "notes"), f);
	json_array_foreach(json_object_get(record, "sections"), i, s)
		print_section(pfx, i, s, f);
	return finish(f);
}

int cper_errors_print_text(const json_t *errors, const char *prefix, FILE *f)
{
	print_messages(prefix ?: DEFAULT_PREFIX, "decode error", errors, f);
	return finish(f);
}

int cper_mce_print_text(const json_t *mce, const char *prefix, FILE *f)
{
	const char *pfx = prefix ?: DEFAULT_PREFIX;

	/* The first line of the kernel's __print_mce(). */
	fprintf(f,
		"%sCPU %" JSON_INTEGER_FORMAT ": Machine Check: %s Bank %" JSON_INTEGER_FORMAT
		": %s\n",
		pfx, json_integer_value(json_object_get(mce, "extcpu")), str(mce, "mcgstatus", "?"),
		json_integer_value(json_object_get(mce, "bank")), str(mce, "status", "?"));
	print_object(pfx, 1, mce, f);
	return finish(f);
}

int cper_decode_text(const void *buf, size_t len, const char *prefix, FILE *f)
{
	_cleanup_(cper_decoder_freep) CperDecoder *d = NULL;
	int r;

	r = cper_decoder_new(buf, len, &d);
	if (r < 0)
		return r;
	for (;;) {
		json_t *rec = NULL, *errs = NULL;

		r = cper_decoder_next(d, &rec, &errs);
		if (r <= 0)
			return r;
		if (rec)
			r = cper_record_print_text(rec, prefix, f);
		if (r >= 0)
			r = cper_errors_print_text(errs, prefix, f);
		json_decref(rec);
		json_decref(errs);
		if (r < 0)
			return r;
	}
}

static bool names_contain(const json_t *o, const char *key, const char *name)
{
	const json_t *names = json_object_get(o, key), *v;
	size_t i;

	json_array_foreach(names, i, v)
		if (streq(json_string_value(v) ?: "", name))
			return true;
	return false;
}

static void summarize_mce(const json_t *mce, FILE *f)
{
	const json_t *mca = json_object_get(mce, "mca_error");
	const char *detail = str(mca, "request", NULL) ?: str(mca, "transaction_type", NULL);

	fprintf(f,
		"%s machine check on CPU %" JSON_INTEGER_FORMAT ", bank %" JSON_INTEGER_FORMAT
		": %s",
		names_contain(mce, "status_names", "UC") ? "Uncorrected" : "Corrected",
		json_integer_value(json_object_get(mce, "extcpu")),
		json_integer_value(json_object_get(mce, "bank")),
		str(mca, "class", "unknown error"));
	if (detail)
		fprintf(f, ", %s", detail);
	if (names_contain(mce, "status_names", "PCC"))
		fputs(", processor context corrupt", f);
	if (json_object_get(mce, "addr"))
		fprintf(f, ", address %s", str(mce, "addr", "?"));
}

static void summarize_cper(const json_t *record, FILE *f)
{
	const json_t *sections = json_object_get(record, "sections"), *sec = NULL, *s;
	const char *sev = str(record, "severity", "");
	const json_t *body, *status;
	size_t i, n = json_array_size(sections);

	json_array_foreach(sections, i, s)
		if (names_contain(s, "flags_names", "primary")) {
			sec = s;
			break;
		}
	if (!sec)
		sec = json_array_get(sections, 0);
	body = json_object_get(sec, "body");
	status = json_object_get(body, "error_status");

	if (sev[0] == '\0')
		sev = "unknown";
	/* "Corrected memory error": the severity starts the sentence. */
	fprintf(f, "%c%s %s", sev[0] >= 'a' && sev[0] <= 'z' ? sev[0] - 'a' + 'A' : sev[0], sev + 1,
		str(sec, "section_type_name",
		    n > 0 ? "error of an unknown section type" : "error"));
	if (json_object_get(body, "error_type_name"))
		fprintf(f, ": %s", str(body, "error_type_name", "?"));
	else if (json_object_get(status, "type_name"))
		fprintf(f, ": %s", str(status, "type_name", "?"));
	if (json_object_get(body, "physical_address"))
		fprintf(f, ", address %s", str(body, "physical_address", "?"));
	if (json_object_get(record, "notification_type_name"))
		fprintf(f, " (%s)", str(record, "notification_type_name", "?"));
	if (n > 1)
		fprintf(f, ", %zu sections", n);
}

int cper_summary(const json_t *doc, char **ret)
{
	const json_t *mce = json_object_get(doc, "mce");
	const json_t *record = json_array_get(json_object_get(doc, "records"), 0);
	char *s = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!mce && !record)
		return -ENODATA;
	f = open_memstream(&s, &len);
	if (!f)
		return -ENOMEM;
	if (mce)
		summarize_mce(mce, f);
	else
		summarize_cper(record, f);
	r = ferror(f) ? -ENOMEM : 0;
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}
