// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoding a record of the dump into the crash's log: text without its pstore
 * header, inflated within the budgets; an mce or CPER record decoded into
 * crash["hardware_error"] and its text.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "archive.h"
#include "cper/cper.h"
#include "log.h"
#include "macro.h"

/* Text records go into dmesg.txt; hardware errors and unknown binary records do not. */
static bool record_is_text(const PstoreCrash *c, const PstoreRecord *r)
{
	if (c->kind == PSTORE_CRASH_HARDWARE_ERROR || !r->name_parsed)
		return false;
	return r->n.type == PSTORE_TYPE_DMESG || pstore_type_is_log(r->n.type);
}

/* The text of a document of cper_decode_json_budget(): each record, then the problems met. */
static int cper_doc_print_text(const json_t *doc, FILE *f)
{
	const json_t *rec;
	size_t i;
	int k;

	json_array_foreach(json_object_get(doc, "records"), i, rec) {
		k = cper_record_print_text(rec, NULL, f);
		if (k < 0)
			return k;
	}
	return cper_errors_print_text(json_object_get(doc, "errors"), NULL, f);
}

/*
 * Decodes an mce or CPER record into crash["hardware_error"], its text into the log. A CPER
 * record is decoded once, within MaxRecordSize= bytes of sections (see cper_decode_json_budget()).
 */
static int decode_hardware_error(Archive *a, const PstoreRecord *r, const char *buf, size_t len,
				 LogSink *sink, json_t *crash)
{
	_cleanup_free_ char *text = NULL, *summary = NULL;
	size_t text_len = 0;
	json_t *doc = NULL;
	const char *severity;
	bool mce = r->name_parsed && r->n.type == PSTORE_TYPE_MCE;
	FILE *f;
	int k;

	k = mce ? cper_mce_decode_json(buf, len, &doc)
		: cper_decode_json_budget(buf, len, a->config->max_record_size, &doc);
	if (k < 0)
		return log_error_errno(k, "Cannot decode %s: %m", r->name);
	if (json_object_set_new(crash, "hardware_error", doc) < 0)
		return log_oom();
	if (k > 0 && crash_truncated(crash,
				     "MaxRecordSize=%" PRIu64
				     ": the sections of %s beyond it are not decoded",
				     a->config->max_record_size, r->name) < 0)
		return -ENOMEM;
	severity = mce ? cper_mce_severity(buf, len)
		       : json_string_value(json_object_get(
				 json_array_get(json_object_get(doc, "records"), 0), "severity"));
	if (json_object_set_new(crash, "severity", json_string(severity ?: "unknown")) < 0)
		return log_oom();
	/* The one line that list, show and the journal print for it. */
	k = cper_summary(doc, &summary);
	if (k == -ENOMEM ||
	    (k >= 0 &&
	     json_object_set_new(crash, "analysis", json_pack("{s:s}", "message", summary)) < 0))
		return log_oom();

	f = open_memstream(&text, &text_len);
	if (!f)
		return log_oom();
	k = mce ? cper_mce_print_text(json_object_get(doc, "mce"), NULL, f)
		: cper_doc_print_text(doc, f);
	if (fclose(f) != 0 || k < 0)
		return log_error_errno(k < 0 ? k : ENOMEM, "Cannot decode %s: %m", r->name);
	k = log_sink_write(sink, text, text_len);
	if (k < 0)
		return log_error_errno(k, "Cannot write the log of %s: %m", r->name);
	return 0;
}

/*
 * Inflates a compressed record for the log, up to MaxRecordSize=. Returns 1 with the data, 0 if
 * it does not inflate and stays out of the log, or <0 after logging.
 */
static int inflate_for_log(Archive *a, const PstoreRecord *r, const char *raw, size_t raw_len,
			   json_t *crash, char **ret, size_t *ret_len)
{
	size_t max = a->config->max_record_size;
	int k;

	k = pstore_record_inflate(raw, raw_len, max, ret, ret_len);
	if (k == -EBADMSG) {
		/* Stored byte for byte all the same: what it holds is for people to recover. */
		k = crash_truncated(crash,
				    "%s does not inflate: it is stored as it is, not in the log",
				    r->name);
		return k < 0 ? k : 0;
	}
	if (k < 0) {
		log_record_error(a, r, k);
		return k;
	}
	if (k > 0 && crash_truncated(crash,
				     "MaxRecordSize=%" PRIu64 ": %s inflates to more, its "
				     "first %zu bytes are in the log",
				     a->config->max_record_size, r->name, *ret_len) < 0)
		return -ENOMEM;
	return 1;
}

int decode_record(Archive *a, const PstoreCrash *c, const PstoreRecord *r, const char *raw,
		  size_t raw_len, LogSink *sink, json_t *crash)
{
	_cleanup_free_ char *data = NULL;
	bool text = record_is_text(c, r);
	const char *buf = raw;
	size_t len = raw_len;
	int k;

	if (r->name_parsed && r->n.compressed) {
		k = inflate_for_log(a, r, raw, raw_len, crash, &data, &len);
		if (k <= 0)
			return k;
		buf = data;
	}
	if (text) {
		const char *body;
		size_t body_len;

		pstore_record_body(r, buf, len, &body, &body_len);
		k = log_sink_write(sink, body, body_len);
		if (k < 0)
			return log_error_errno(k, "Cannot write the log of %s: %m", r->name);
	} else if (c->kind == PSTORE_CRASH_HARDWARE_ERROR)
		return decode_hardware_error(a, r, buf, len, sink, crash);
	return 0;
}
