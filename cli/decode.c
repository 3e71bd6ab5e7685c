// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl decode [--json[=pretty|short]] [--type=TYPE] FILE...|-
 *
 * Recognises what each file holds (see pstore-cper(7)):
 *  - a raw CPER record or several concatenated ones (an ERST dump, a read
 *    loop over /dev/erst_dbg): content starting with the "CPER" signature;
 *  - a pstore mce-* file: a raw x86 struct mce;
 *  - a pstore dmesg-* file (or another log type): the kernel log, inflated
 *    if the name ends in .enc.z, and for dmesg its analysis;
 *  - a kernel log as text (a pasted oops, journalctl -k, a syslog file): its
 *    analysis, as crash.json holds it (lib/analyse).
 * Names are recognised by pstore_name_parse(); for stdin or an unknown name
 * the content decides, unless --type says what it is. Exits 1 if a file could
 * not be read or was not recognised, else EXIT_UNDECODED if a record could
 * not be decoded whole (truncated, bad lengths) or a log given as --type=log
 * holds no crash report. Notes (an unusual revision or timestamp) are printed
 * with the record and do not change the exit status. The text output is
 * escaped (utf8_escape()), file names too, but for the newlines and tabs of
 * logs.
 */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <unistd.h>

#include "symbolize.h"
#include "analyse/analyse.h"
#include "cper/cper.h"
#include "crash-util.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "pstore/pstore.h"
#include "pstorectl.h"
#include "utf8-util.h"
#include "zlib-util.h"

/* Far above any pstore record or ERST dump (ERST holds a few hundred KiB). */
#define DECODE_MAX_INPUT (64u * 1024 * 1024)
#define DECODE_MAX_LOG (16u * 1024 * 1024)

typedef enum InputKind {
	INPUT_AUTO,
	INPUT_CPER,
	INPUT_MCE,
	INPUT_LOG,  /* a pstore log record: dmesg-*, console-*, ... */
	INPUT_TEXT, /* a kernel log as text */
	INPUT_UNKNOWN,
} InputKind;

static InputKind arg_type = INPUT_AUTO;

/* The values of --type, by InputKind. */
static const char *const input_kind_names[] = {
	[INPUT_AUTO] = "auto", [INPUT_CPER] = "cper", [INPUT_MCE] = "mce",
	[INPUT_LOG] = "dmesg", [INPUT_TEXT] = "log",
};

enum {
	ARG_TYPE = ARG_VERB_BASE,
};

static const OptionSpec decode_option_table[] = {
	{"type", required_argument, ARG_TYPE, "TYPE",
	 "What the files are: cper, mce, dmesg (a pstore log record),\n"
	 "log (a kernel log) or auto (the default: by name and content)"},
	SYMBOLIZE_OPTIONS,
	{},
};

static int handle_decode_option(int c, const char *arg)
{
	int r = symbolize_parse_option(c, arg);

	if (r != -ENOENT)
		return r;
	if (c != ARG_TYPE)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(input_kind_names); i++)
		if (streq(arg, input_kind_names[i])) {
			arg_type = i;
			return 0;
		}
	return log_error_errno(EINVAL, "Unknown --type '%s': use auto, cper, mce, dmesg or log.",
			       arg);
}

const VerbOptions decode_options = {decode_option_table, NULL, handle_decode_option};

/* struct mce sizes: 88 bytes in 2.6.39, 128 since 5.8, up to 152 with later fields. */
static bool looks_like_mce(const uint8_t *p, size_t len)
{
	return len >= 80 && len <= 256 && len % 8 == 0 && (p[7] & 0x80); /* MCi_STATUS.VAL */
}

/*
 * Text, as a log someone pasted or saved is: no NUL byte (binary records have
 * many), and at most one byte in 16 that is not valid UTF-8 or is a control
 * character other than tab, newline, carriage return and ESC (the colours of
 * a terminal).
 */
static bool looks_like_text(const uint8_t *p, size_t len)
{
	size_t bad = 0;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence_length(p + i, len - i);

		if (p[i] == 0)
			return false;
		if (n == 0 ||
		    (utf8_control_length(p + i, len - i) > 0 && !strchr("\t\n\r\x1b", p[i])))
			bad++;
		i += MAX(n, (size_t)1);
	}
	return len > 0 && bad <= len / 16;
}

static InputKind classify(const char *name, const uint8_t *buf, size_t len, PstoreName *pn,
			  bool *have_name)
{
	*have_name = name && pstore_name_parse(name, pn) >= 0;

	if (arg_type != INPUT_AUTO)
		return arg_type;
	/* A truncated record is still a record: the decoder reports what is wrong. */
	if (len >= 4 && memcmp(buf, "CPER", 4) == 0)
		return INPUT_CPER;
	if (*have_name) {
		if (pn->type == PSTORE_TYPE_MCE)
			return INPUT_MCE;
		if (pn->type == PSTORE_TYPE_DMESG || pstore_type_is_log(pn->type))
			return INPUT_LOG;
	}
	PstoreHeader h;
	if (pstore_header_parse((const char *)buf, len, &h) >= 0)
		return INPUT_LOG;
	if (looks_like_text(buf, len))
		return INPUT_TEXT;
	if (looks_like_mce(buf, len))
		return INPUT_MCE;
	/* An .enc.z record under another name: a complete deflate stream. */
	_cleanup_free_ void *text = NULL;
	size_t text_len;
	if (len > 0 && zlib_inflate_buffer(buf, len, DECODE_MAX_LOG, &text, &text_len) >= 0)
		return INPUT_LOG;
	return INPUT_UNKNOWN;
}

/*
 * The decoders print what records hold (the kernel log of a CPER section,
 * firmware strings) as it is: into memory, then escaped to stdout.
 */
static int print_escaped(int (*print)(const json_t *v, const char *prefix, FILE *f),
			 const json_t *v)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	if (!f)
		return -ENOMEM;
	r = print(v, NULL, f);
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	return utf8_escape_fwrite(text, len, UTF8_ESCAPE_KEEP_LINES, stdout);
}

static int print_doc(json_t *doc, const char *file, const char *kind)
{
	if (json_object_set_new(doc, "file", json_string(file)) < 0 ||
	    json_object_set_new(doc, "kind", json_string(kind)) < 0)
		return log_oom();
	return print_json(doc);
}

static int decode_cper(const char *file, const uint8_t *buf, size_t len)
{
	json_auto_t *doc = NULL;
	int r;

	if (arg_json != JSON_OFF) {
		r = cper_decode_json(buf, len, &doc);
		if (r < 0)
			return log_error_errno(r, "%s: failed to decode CPER records: %m", file);
		size_t n_err = json_array_size(json_object_get(doc, "errors"));
		r = print_doc(doc, file, "cper");
		if (r < 0)
			return r;
		return n_err > 0 ? EXIT_UNDECODED : 0;
	}

	_cleanup_(cper_decoder_freep) CperDecoder *d = NULL;
	size_t n_rec = 0, n_err = 0;

	r = cper_decoder_new(buf, len, &d);
	if (r < 0)
		return log_oom();
	printf("%s: CPER record data, %zu bytes\n", file, len);
	for (;;) {
		json_t *rec = NULL, *errs = NULL;

		r = cper_decoder_next(d, &rec, &errs);
		if (r < 0)
			return log_error_errno(r, "%s: failed to decode CPER records: %m", file);
		if (r == 0)
			break;
		if (rec) {
			printf("%s: record %zu at offset %" JSON_INTEGER_FORMAT ":\n", file,
			       n_rec++, json_integer_value(json_object_get(rec, "offset")));
			r = print_escaped(cper_record_print_text, rec);
		}
		n_err += json_array_size(errs);
		if (r >= 0)
			r = print_escaped(cper_errors_print_text, errs);
		json_decref(rec);
		json_decref(errs);
		if (r < 0)
			return log_error_errno(r, "Failed to write output: %m");
	}
	if (n_err > 0) {
		log_error("%s: %zu part(s) of %zu record(s) could not be decoded; the lines "
			  "starting 'decode error' above name their offsets.",
			  file, n_err, n_rec);
		return EXIT_UNDECODED;
	}
	return 0;
}

static int decode_mce(const char *file, const uint8_t *buf, size_t len)
{
	json_auto_t *doc = NULL;
	int r;

	r = cper_mce_decode_json(buf, len, &doc);
	if (r < 0)
		return log_error_errno(r, "%s: failed to decode struct mce: %m", file);
	json_t *errs = json_object_get(doc, "errors");
	size_t n_err = json_array_size(errs);

	if (arg_json != JSON_OFF)
		r = print_doc(doc, file, "mce");
	else {
		printf("%s: pstore x86 machine check record (struct mce, %zu bytes)\n", file, len);
		r = print_escaped(cper_mce_print_text, json_object_get(doc, "mce"));
		if (r >= 0)
			r = print_escaped(cper_errors_print_text, errs);
		if (r < 0)
			return log_error_errno(r, "Failed to write output: %m");
	}
	if (r < 0)
		return r;
	if (n_err > 0) {
		log_error("%s: %zu part(s) of struct mce could not be decoded.", file, n_err);
		return EXIT_UNDECODED;
	}
	return 0;
}

/* The analysis of a kernel log, as crash.json holds it ("analysis"). */
static int analyse_log(const char *text, size_t len, json_t **ret)
{
	json_auto_t *o = NULL;
	int r;

	r = dmesg_analyse_json(text, len, &o);
	if (r < 0)
		return r;
	r = symbolize_analysis(o, NULL);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

/* Found a crash report in the log: "unknown" has no signature. */
static bool analysis_found_report(json_t *analysis)
{
	return json_is_string(json_object_get(analysis, "signature"));
}

static void print_log_analysis(json_t *analysis)
{
	print_field("Reason", crash_string(analysis, "reason"));
	print_analysis(analysis);
	print_call_trace(analysis);
}

static int log_unrecognised(const char *file)
{
	return log_error_errno(EINVAL,
			       "%s: not a CPER record (no 'CPER' signature at the start), "
			       "and neither the name nor the content is a pstore mce-* or "
			       "dmesg-* record, nor a kernel log with a crash report; pass a file "
			       "from /sys/fs/pstore, an archived record, a CPER record dump or a "
			       "kernel log, or say what it is with --type=.",
			       file);
}

/*
 * A kernel log as text: its analysis. Text without a crash report is no kernel log that decode
 * recognises, unless --type=log said it is one.
 */
static int decode_text(const char *file, const char *text, size_t len)
{
	json_auto_t *analysis = NULL;
	bool found;
	int r;

	r = analyse_log(text, len, &analysis);
	if (r < 0)
		return log_oom();
	found = analysis_found_report(analysis);
	if (!found && arg_type != INPUT_TEXT)
		return log_unrecognised(file);

	if (arg_json != JSON_OFF) {
		json_auto_t *doc = json_pack("{s:i,s:O}", "schema_version", CPER_SCHEMA_VERSION,
					     "analysis", analysis);
		if (!doc)
			return log_oom();
		r = print_doc(doc, file, "log");
		if (r < 0)
			return r;
	} else {
		printf("%s: kernel log, %zu bytes\n", file, len);
		print_log_analysis(analysis);
	}
	if (!found) {
		log_error(
			"%s: no crash report (panic, oops, BUG, WARNING, lockup, ...) in the log.",
			file);
		return EXIT_UNDECODED;
	}
	return 0;
}

/* A pstore log record (dmesg-*, console-*, ...), read for printing. */
typedef struct LogRecord {
	const char *type; /* "dmesg", "console", ... */
	bool compressed;
	const char *text;
	size_t text_len;
	bool have_header; /* the "Panic#1 Part1" line the kernel puts first */
	PstoreHeader header;
	json_t *analysis; /* of a dmesg record, else NULL */
} LogRecord;

/*
 * Inflates the record when its name ends in .enc.z or, without a name, when it is the kernel's
 * raw deflate; else the text is the record as it is.
 */
static int log_record_inflate(const char *file, LogRecord *rec, bool have_name, void **ret_buf)
{
	size_t len;
	int r;

	if (!rec->compressed && have_name)
		return 0;
	r = zlib_inflate_buffer(rec->text, rec->text_len, DECODE_MAX_LOG, ret_buf, &len);
	if (r < 0 && rec->compressed)
		return log_error_errno(r,
				       "%s: cannot inflate the compressed pstore record: %m "
				       "(the kernel writes raw deflate; is the file cut short?)",
				       file);
	if (r >= 0) {
		rec->compressed = true;
		rec->text = *ret_buf;
		rec->text_len = len;
	}
	return 0;
}

static int print_log_record_json(const char *file, const LogRecord *rec)
{
	_cleanup_free_ char *clean = NULL;
	json_auto_t *doc = NULL;
	size_t clean_len;

	clean = utf8_sanitize(rec->text, rec->text_len, &clean_len);
	if (!clean)
		return log_oom();
	doc = json_pack("{s:i,s:s,s:b,s:s%}", "schema_version", CPER_SCHEMA_VERSION, "pstore_type",
			rec->type, "compressed", rec->compressed, "text", clean, clean_len);
	if (!doc)
		return log_oom();
	if (rec->have_header &&
	    json_object_set_new(doc, "header",
				json_pack("{s:s,s:i,s:i}", "reason", rec->header.reason, "count",
					  (int)rec->header.count, "part", (int)rec->header.part)) <
		    0)
		return log_oom();
	if (rec->analysis && json_object_set(doc, "analysis", rec->analysis) < 0)
		return log_oom();
	return print_doc(doc, file, "dmesg");
}

static int print_log_record_text(const char *file, const LogRecord *rec)
{
	printf("%s: pstore %s record%s", file, rec->type,
	       rec->compressed ? ", deflate-compressed" : "");
	if (rec->have_header)
		printf(" (%s#%u Part%u)", rec->header.reason, rec->header.count, rec->header.part);
	printf(", %zu bytes of log:\n", rec->text_len);
	if (utf8_escape_fwrite(rec->text, rec->text_len, UTF8_ESCAPE_KEEP_LINES, stdout) < 0 ||
	    (rec->text_len > 0 && rec->text[rec->text_len - 1] != '\n' && putchar('\n') == EOF))
		return log_error_errno(EIO, "Failed to write output: %m");
	if (rec->analysis) {
		printf("%s: analysis of the log:\n", file);
		print_log_analysis(rec->analysis);
	}
	return 0;
}

static int decode_log(const char *file, const uint8_t *buf, size_t len, const PstoreName *pn,
		      bool have_name)
{
	_cleanup_free_ void *inflated = NULL;
	json_auto_t *analysis = NULL;
	LogRecord rec = {
		.type = have_name ? pstore_type_to_string(pn->type) : "dmesg",
		.compressed = have_name && pn->compressed,
		.text = (const char *)buf,
		.text_len = len,
	};
	int r;

	r = log_record_inflate(file, &rec, have_name, &inflated);
	if (r < 0)
		return r;
	rec.have_header = pstore_header_parse(rec.text, rec.text_len, &rec.header) >= 0;
	if (!have_name || pn->type == PSTORE_TYPE_DMESG) {
		r = analyse_log(rec.text, rec.text_len, &analysis);
		if (r < 0)
			return log_oom();
		rec.analysis = analysis;
	}
	if (arg_json != JSON_OFF)
		return print_log_record_json(file, &rec);
	return print_log_record_text(file, &rec);
}

static int decode_one(const char *path)
{
	_cleanup_free_ char *buf = NULL, *name_buf = NULL, *shown = NULL;
	_cleanup_close_ int fd = -1;
	bool is_stdin = streq(path, "-");
	const char *file = is_stdin ? "stdin" : path;
	size_t len;
	int r;

	/* A name from /sys/fs/pstore is the kernel's, or the backend's, or a user's (pmsg). */
	if (arg_json == JSON_OFF) {
		shown = utf8_escape(file, strlen(file), 0);
		if (!shown)
			return log_oom();
		file = shown;
	}

	if (!is_stdin) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return log_error_errno(errno, "Failed to open %s: %m", path);
	}
	r = read_full_fd(is_stdin ? STDIN_FILENO : fd, DECODE_MAX_INPUT, &buf, &len);
	if (r == -EFBIG)
		return log_error_errno(r, "%s: larger than %u MiB: not a pstore or CPER record.",
				       file, DECODE_MAX_INPUT >> 20);
	if (r < 0)
		return log_error_errno(r, "Failed to read %s: %m", file);

	const char *name = NULL;
	if (!is_stdin) {
		name_buf = strdup(path);
		if (!name_buf)
			return log_oom();
		name = basename(name_buf);
	}

	PstoreName pn;
	bool have_name;
	switch (classify(name, (const uint8_t *)buf, len, &pn, &have_name)) {
	case INPUT_CPER:
		return decode_cper(file, (const uint8_t *)buf, len);
	case INPUT_MCE:
		return decode_mce(file, (const uint8_t *)buf, len);
	case INPUT_LOG:
		return decode_log(file, (const uint8_t *)buf, len, &pn, have_name);
	case INPUT_TEXT:
		return decode_text(file, buf, len);
	default:
		return log_unrecognised(file);
	}
}

/*
 * argv: the verb, then the files (pstorectl.c took the options). Every file is decoded; a file
 * that could not be read wins over one that could not be decoded whole.
 */
int verb_decode(int argc, char *argv[])
{
	int r = 0;

	for (int i = 1; i < argc; i++) {
		int k = decode_one(argv[i]);
		if (k < 0 ? r >= 0 : r == 0)
			r = k;
	}
	return r;
}
