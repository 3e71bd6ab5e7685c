// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The record walker: finds records in a buffer, decodes the record header
 * and the section descriptors (UEFI N.2.1, N.2.2), and hands each section
 * body to the decoder its type GUID selects.
 *
 * Record header (128 bytes, all fields little-endian):
 *	0 signature "CPER"	4 revision u16		6 signature end 0xFFFFFFFF
 *	10 section count u16	12 severity u32		16 validation bits u32
 *	20 record length u32	24 timestamp [8]	32 platform id GUID
 *	48 partition id GUID	64 creator id GUID	80 notification type GUID
 *	96 record id u64	104 flags u32		108 persistence info u64
 *	116 reserved [12]
 * Section descriptor (72 bytes):
 *	0 section offset u32	4 section length u32	8 revision u16
 *	10 validation bits u8	11 reserved u8		12 flags u32
 *	16 section type GUID	32 FRU id GUID		48 severity u32
 *	52 FRU text [20]
 * Section offsets count from the start of the record.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include "cper-internal.h"

#define CPER_SIG_END 0xffffffffu

#define CPER_VALID_PLATFORM_ID 0x1
#define CPER_VALID_TIMESTAMP 0x2
#define CPER_VALID_PARTITION_ID 0x4

#define CPER_SEC_VALID_FRU_ID 0x1
#define CPER_SEC_VALID_FRU_TEXT 0x2

struct CperDecoder {
	const uint8_t *buf;
	size_t len;
	size_t off;
	size_t budget; /* bytes left to decode */
	bool spent;
	JsonWriter text; /* the last record of cper_decoder_next_text() */
};

static const char *const severity_strs[] = {
	[0] = "recoverable",
	[1] = "fatal",
	[2] = "corrected",
	[3] = "informational",
};

static const char *const record_flag_strs[] = {
	"recovered",
	"previous_error",
	"simulated",
};

static const char *const section_flag_strs[] = {
	"primary",
	"containment_warning",
	"reset",
	"error_threshold_exceeded",
	"resource_not_accessible",
	"latent_error",
	"propagated",
	"overflow",
};

static bool header_at(const uint8_t *p, size_t n)
{
	return n >= 10 && memcmp(p, "CPER", 4) == 0 && cper_le32(p + 6) == CPER_SIG_END;
}

/* Offset of the first record header starting in [from, to), or len. */
static size_t find_header(const uint8_t *buf, size_t len, size_t from, size_t to)
{
	while (from < to) {
		const uint8_t *p = memchr(buf + from, 'C', to - from);
		if (!p)
			break;
		size_t at = (size_t)(p - buf);
		if (header_at(p, len - at))
			return at;
		from = at + 1;
	}
	return len;
}

bool cper_looks_like_record(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!buf || len < CPER_RECORD_HEADER_SIZE || !header_at(p, len))
		return false;

	uint32_t rlen = cper_le32(p + 20);
	uint16_t count = cper_le16(p + 10);
	return rlen >= CPER_RECORD_HEADER_SIZE &&
	       (uint64_t)CPER_RECORD_HEADER_SIZE + (uint64_t)count * CPER_SECTION_DESCRIPTOR_SIZE <=
		       rlen;
}

static bool bcd_ok(uint8_t v)
{
	return (v >> 4) <= 9 && (v & 0xf) <= 9;
}

static unsigned bcd(uint8_t v)
{
	return (v >> 4) * 10u + (v & 0xfu);
}

static bool time_fields_ok(unsigned sec, unsigned min, unsigned hour, unsigned day, unsigned month,
			   unsigned year)
{
	return sec <= 60 && min <= 59 && hour <= 23 && day >= 1 && day <= 31 && month >= 1 &&
	       month <= 12 && year <= 99;
}

typedef struct CalendarTime {
	const char *encoding; /* "bcd" or "binary" */
	unsigned sec, min, hour, day, month, year;
	bool century_assumed;
} CalendarTime;

/* The two calendar encodings of the timestamp, BCD first; false if it is neither. */
static bool calendar_decode(const uint8_t *t, CalendarTime *ret)
{
	bool century_bcd = (bcd_ok(t[7]) && bcd(t[7]) >= 19 && bcd(t[7]) <= 21) || t[7] == 0;
	bool all_bcd = bcd_ok(t[0]) && bcd_ok(t[1]) && bcd_ok(t[2]) && bcd_ok(t[4]) &&
		       bcd_ok(t[5]) && bcd_ok(t[6]);

	if (century_bcd && all_bcd &&
	    time_fields_ok(bcd(t[0]), bcd(t[1]), bcd(t[2]), bcd(t[4]), bcd(t[5]), bcd(t[6]))) {
		*ret = (CalendarTime){
			.encoding = "bcd",
			.sec = bcd(t[0]),
			.min = bcd(t[1]),
			.hour = bcd(t[2]),
			.day = bcd(t[4]),
			.month = bcd(t[5]),
			.year = (t[7] == 0 ? 20 : bcd(t[7])) * 100 + bcd(t[6]),
			.century_assumed = t[7] == 0,
		};
		return true;
	}
	if (t[7] >= 19 && t[7] <= 21 && time_fields_ok(t[0], t[1], t[2], t[4], t[5], t[6])) {
		*ret = (CalendarTime){
			.encoding = "binary",
			.sec = t[0],
			.min = t[1],
			.hour = t[2],
			.day = t[4],
			.month = t[5],
			.year = t[7] * 100u + t[6],
		};
		return true;
	}
	return false;
}

/* Unix seconds as "YYYY-MM-DD HH:MM:SS UTC"; false if gmtime_r() cannot. */
static bool unix_time_format(uint64_t secs, char when[static 64])
{
	time_t s = (time_t)secs;
	struct tm tm;

	if (!gmtime_r(&s, &tm))
		return false;
	strftime(when, 64, "%Y-%m-%d %H:%M:%S UTC", &tm);
	return true;
}

/*
 * The 8 timestamp bytes come in three encodings (see pstore-cper(7)):
 *  - BCD seconds, minutes, hours, flags (bit 0: precise), day, month, year,
 *    century: the UEFI specification, EDK2 and most firmware;
 *  - the same bytes in plain binary: Windows WHEA records;
 *  - a little-endian u64 of Unix seconds: Linux pstore records (erst.c).
 * The century byte tells BCD (0x19-0x21) from binary (19-21) without doubt;
 * a u64 of seconds before 2106 has its upper four bytes zero, which no valid
 * calendar date has (day and month are never zero).
 */
static void put_timestamp(CperCtx *c, const uint8_t *t, size_t abs_off)
{
	uint64_t raw = cper_le64(t);
	CalendarTime ct;
	char when[64];

	cper_emit_open_object(c, "timestamp");
	cper_emit_hex(c, "raw", raw, 8);
	if (raw != 0 && (raw >> 32) == 0 ? unix_time_format(raw, when) : false) {
		cper_emit_string(c, "encoding", "unix_seconds");
		cper_emit_int(c, "unix_seconds", (int64_t)raw);
		cper_emit_string(c, "time", when);
	} else if ((raw == 0 || (raw >> 32) != 0) && calendar_decode(t, &ct)) {
		snprintf(when, sizeof(when), "%04u-%02u-%02u %02u:%02u:%02u", ct.year, ct.month,
			 ct.day, ct.hour, ct.min, ct.sec);
		cper_emit_string(c, "encoding", ct.encoding);
		cper_emit_bool(c, "precise", t[3] & 0x1);
		if (ct.century_assumed)
			cper_emit_bool(c, "century_assumed", true);
		cper_emit_string(c, "time", when);
	} else {
		cper_emit_string(c, "encoding", "unknown");
		cper_note(c, abs_off,
			  "timestamp 0x%016" PRIx64 " is neither BCD, binary nor Unix seconds",
			  raw);
	}
	cper_emit_close(c);
}

static const char *severity_str(uint32_t sev)
{
	return sev < ARRAY_SIZE(severity_strs) ? severity_strs[sev] : "unknown";
}

static void put_revision(CperCtx *c, uint16_t rev)
{
	char buf[8];

	/* Byte 1 is the major, byte 0 the minor revision, both BCD. */
	snprintf(buf, sizeof(buf), "%x.%x", rev >> 8, rev & 0xff);
	cper_emit_string(c, "revision", buf);
}

/*
 * Revisions written by real producers, all with the layout of 1.0: 1.x by the UEFI specification,
 * EDK2 and Linux, 2.10 (0x0210, WHEA_ERROR_RECORD_REVISION) by Windows.
 */
static bool revision_known(uint16_t rev)
{
	return rev >> 8 == 1 || rev == 0x0210;
}

/* The fields of a section descriptor; returns its section type, NULL if unknown. */
static const CperSectionType *put_section_descriptor(const CperBuf *d, unsigned idx)
{
	CperCtx *c = d->ctx;
	const uint8_t *p = d->p;
	uint8_t valid = p[10];
	uint32_t sev = cper_le32(p + 48);
	const CperSectionType *t = cper_section_type_find(p + 16);

	cper_emit_int(c, "index", idx);
	cper_emit_int(c, "offset", cper_le32(p));
	cper_emit_int(c, "length", cper_le32(p + 4));
	put_revision(c, cper_le16(p + 8));
	cper_emit_hex(c, "validation_bits", valid, 1);
	cper_put_bits(c, "flags", cper_le32(p + 12), 4, section_flag_strs,
		      ARRAY_SIZE(section_flag_strs));
	cper_emit_string(c, "severity", severity_str(sev));
	cper_emit_int(c, "severity_code", sev);
	cper_put_guid(d, "fru_id", 32, valid & CPER_SEC_VALID_FRU_ID);
	cper_put_text(d, "fru_text", 52, 20, valid & CPER_SEC_VALID_FRU_TEXT);
	cper_emit_guid(c, "section_type", p + 16);
	cper_emit_string(c, "section_type_name", t ? t->name : "unknown");
	return t;
}

/* Decodes section idx of a record of limit bytes into the open section object. */
static void decode_section(const CperBuf *rec, size_t limit, unsigned idx)
{
	CperCtx *c = rec->ctx;
	CperBuf d = cper_buf_sub(rec, CPER_RECORD_HEADER_SIZE + idx * CPER_SECTION_DESCRIPTOR_SIZE,
				 CPER_SECTION_DESCRIPTOR_SIZE);
	uint32_t soff = cper_le32(d.p), slen = cper_le32(d.p + 4);
	const CperSectionType *t = put_section_descriptor(&d, idx);

	if (soff >= limit) {
		cper_error(c, d.base,
			   "section %u: offset %" PRIu32 " lies outside the %zu-byte record", idx,
			   soff, limit);
		return;
	}
	size_t blen = slen;
	if (slen > limit - soff) {
		cper_error(
			c, d.base + 4,
			"section %u: length %" PRIu32 " at offset %" PRIu32
			" runs past the end of the %zu-byte record; decoding the %zu bytes present",
			idx, slen, soff, limit, limit - soff);
		blen = limit - soff;
		cper_emit_bool(c, "truncated", true);
	}
	if (blen > c->budget) {
		cper_error(c, d.base,
			   "section %u: its %zu bytes are more than the %zu left of the decoding "
			   "budget; not decoded",
			   idx, blen, c->budget);
		c->spent = true;
		return;
	}
	c->budget -= blen;

	CperBuf body = cper_buf_sub(rec, soff, blen);
	unsigned depth = c->depth;
	cper_emit_open_object(c, "body");
	if (t && t->decode)
		t->decode(&body);
	else
		cper_put_dump(&body, "data_dump", 0, blen);
	cper_emit_close_to(c, depth);
}

/* The record header's fields (before the section descriptors). */
static void put_record_header(CperCtx *c, const uint8_t *p, size_t off, uint32_t rlen)
{
	uint32_t valid = cper_le32(p + 16), sev = cper_le32(p + 12);
	const char *name;
	char id[24];

	cper_emit_int(c, "offset", (int64_t)off);
	cper_emit_int(c, "length", rlen);
	put_revision(c, cper_le16(p + 4));
	cper_emit_int(c, "section_count", cper_le16(p + 10));
	cper_emit_string(c, "severity", severity_str(sev));
	cper_emit_int(c, "severity_code", sev);
	cper_emit_hex(c, "validation_bits", valid, 4);
	if (valid & CPER_VALID_TIMESTAMP)
		put_timestamp(c, p + 24, off + 24);
	if (valid & CPER_VALID_PLATFORM_ID)
		cper_emit_guid(c, "platform_id", p + 32);
	if (valid & CPER_VALID_PARTITION_ID)
		cper_emit_guid(c, "partition_id", p + 48);
	cper_emit_guid(c, "creator_id", p + 64);
	if ((name = cper_guid_name(p + 64)))
		cper_emit_string(c, "creator_id_name", name);
	cper_emit_guid(c, "notification_type", p + 80);
	if ((name = cper_guid_name(p + 80)))
		cper_emit_string(c, "notification_type_name", name);

	/* Decimal, as in pstore file names; a u64 may not fit a JSON integer. */
	snprintf(id, sizeof(id), "%" PRIu64, cper_le64(p + 96));
	cper_emit_string(c, "record_id", id);
	cper_put_bits(c, "flags", cper_le32(p + 104), 4, record_flag_strs,
		      ARRAY_SIZE(record_flag_strs));
	cper_emit_hex(c, "persistence_information", cper_le64(p + 108), 8);
	if (!revision_known(cper_le16(p + 4)))
		cper_note(c, off + 4,
			  "record revision %x.%x is neither 1.x nor 2.10; decoding as 1.x",
			  cper_le16(p + 4) >> 8, cper_le16(p + 4) & 0xff);
}

/* Decodes the record at off, limit bytes of it, into the open record object. */
static void decode_record(CperCtx *c, const uint8_t *buf, size_t off, size_t limit, uint32_t rlen)
{
	CperBuf rec = {.p = buf + off, .len = limit, .base = off, .ctx = c};
	uint16_t count = cper_le16(rec.p + 10);
	size_t fit = (limit - CPER_RECORD_HEADER_SIZE) / CPER_SECTION_DESCRIPTOR_SIZE;
	size_t n = MIN((size_t)count, fit);

	put_record_header(c, rec.p, off, rlen);
	if (count > fit)
		cper_error(c, off + 10,
			   "section count %u needs %zu bytes of descriptors, but the record has "
			   "%zu bytes; decoding %zu sections",
			   count,
			   CPER_RECORD_HEADER_SIZE + (size_t)count * CPER_SECTION_DESCRIPTOR_SIZE,
			   limit, fit);

	/* Each section costs its descriptor and its body, overlapping or not, against the
	 * decoding budget: descriptors are 72 bytes, a record can hold thousands. */
	cper_emit_open_array(c, "sections");
	for (unsigned i = 0; i < n; i++) {
		if (c->budget < CPER_SECTION_DESCRIPTOR_SIZE) {
			cper_error(c,
				   off + CPER_RECORD_HEADER_SIZE + i * CPER_SECTION_DESCRIPTOR_SIZE,
				   "sections %u to %zu not decoded: the decoding budget is spent",
				   i, n - 1);
			c->spent = true;
			break;
		}
		c->budget -= CPER_SECTION_DESCRIPTOR_SIZE;
		cper_emit_open_object(c, NULL);
		decode_section(&rec, limit, i);
		cper_emit_close(c);
	}
	cper_emit_close(c);
}

int cper_decoder_new(const void *buf, size_t len, CperDecoder **ret)
{
	CperDecoder *d;

	if (!buf && len > 0)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->buf = buf;
	d->len = len;
	d->budget = CPER_DECODE_BUDGET;
	*ret = d;
	return 0;
}

void cper_decoder_set_budget(CperDecoder *d, size_t budget)
{
	d->budget = budget;
}

bool cper_decoder_budget_spent(const CperDecoder *d)
{
	return d->spent;
}

CperDecoder *cper_decoder_free(CperDecoder *d)
{
	if (d)
		json_writer_done(&d->text);
	free(d);
	return NULL;
}

/* No record header at the decoder's offset: skips to the next one, or to the end. */
static void skip_to_header(CperDecoder *d, CperCtx *c)
{
	size_t off = d->off, next = find_header(d->buf, d->len, off + 1, d->len);

	if (next < d->len)
		cper_error(c, off,
			   "no CPER record header here: skipped %zu bytes up to the next 'CPER' "
			   "signature",
			   next - off);
	else
		cper_error(c, off,
			   "no CPER record header (signature 'CPER', 0xFFFFFFFF) in the last %zu "
			   "bytes",
			   d->len - off);
	d->off = next;
}

/*
 * The bytes of the record at the decoder's offset to decode, from its length field and the
 * record headers that follow; *ret_next is where the next step starts.
 */
static size_t record_limit(const CperDecoder *d, CperCtx *c, uint32_t rlen, size_t *ret_next)
{
	size_t off = d->off, avail = d->len - off, next;

	/* A following record cannot start inside this one's header. */
	if (rlen < CPER_RECORD_HEADER_SIZE) {
		next = find_header(d->buf, d->len, off + CPER_RECORD_HEADER_SIZE, d->len);
		cper_error(c, off + 20,
			   "record length %" PRIu32
			   " is shorter than the %d-byte header; assuming %zu bytes",
			   rlen, CPER_RECORD_HEADER_SIZE, next - off);
	} else if (rlen > avail) {
		/* Truncated, or a wrong length: stop at the next record if one follows. */
		next = find_header(d->buf, d->len, off + CPER_RECORD_HEADER_SIZE, d->len);
		cper_error(c, off + 20,
			   "record length %" PRIu32 " exceeds the %zu bytes present; decoding %zu "
			   "bytes",
			   rlen, avail, next - off);
	} else {
		/* A record cut short and followed by the next one: its length runs into the
		 * next header, which wins (sections hold no CPER headers). */
		next = find_header(d->buf, d->len, off + CPER_RECORD_HEADER_SIZE, off + rlen);
		if (next < off + rlen && cper_looks_like_record(d->buf + next, d->len - next))
			cper_error(c, off + 20,
				   "record length %" PRIu32 " runs into the record header at "
				   "offset %zu; decoding %zu bytes",
				   rlen, next, next - off);
		else
			next = off + rlen;
	}
	*ret_next = next;
	return next - off;
}

/*
 * One step of the decoder into c: skips bytes that hold no record or decodes one record into a
 * new top-level object. Returns whether it decoded a record.
 */
static bool decoder_step(CperDecoder *d, CperCtx *c)
{
	size_t off = d->off, avail = d->len - d->off, next;

	if (!header_at(d->buf + off, avail)) {
		skip_to_header(d, c);
		return false;
	}
	if (avail < CPER_RECORD_HEADER_SIZE) {
		cper_error(c, off, "record header truncated: %zu of %d bytes", avail,
			   CPER_RECORD_HEADER_SIZE);
		d->off = d->len;
		return false;
	}

	uint32_t rlen = cper_le32(d->buf + off + 20);
	size_t limit = record_limit(d, c, rlen, &next);

	cper_emit_open_object(c, NULL);
	decode_record(c, d->buf, off, limit, rlen);
	if (json_array_size(c->notes) > 0)
		cper_emit_messages(c, "notes", c->notes);
	cper_emit_close_to(c, 0);
	d->off = next;
	return true;
}

/*
 * Runs one step into c, whose output the caller set up; returns 1 and sets *ret_record (whether
 * the step decoded one) and *ret_errors (the problems met), 0 at the end, -ENOMEM.
 */
static int decoder_next(CperDecoder *d, CperCtx *c, bool *ret_record, json_t **ret_errors)
{
	if (d->off >= d->len)
		return 0;

	c->budget = d->budget;
	c->errors = json_array();
	c->notes = json_array();
	bool record = c->errors && c->notes && decoder_step(d, c);
	d->budget = c->budget;
	d->spent = d->spent || c->spent;

	json_decref(c->notes);
	if (c->oom || (c->text && c->text->oom) || !c->errors || !c->notes) {
		json_decref(c->errors);
		return -ENOMEM;
	}
	*ret_record = record;
	*ret_errors = c->errors;
	return 1;
}

int cper_decoder_next(CperDecoder *d, json_t **ret_record, json_t **ret_errors)
{
	CperCtx c = {};
	bool record;
	int r;

	/* The record is the step's root container, c.tree[0], a reference of ours. */
	r = decoder_next(d, &c, &record, ret_errors);
	if (r <= 0) {
		json_decref(c.tree[0]);
		return r;
	}
	*ret_record = record ? c.tree[0] : NULL;
	return 1;
}

int cper_decoder_next_text(CperDecoder *d, const char **ret_text, size_t *ret_len,
			   json_t **ret_errors)
{
	CperCtx c = {.text = &d->text};
	bool record;
	int r;

	json_writer_reset(&d->text);
	r = decoder_next(d, &c, &record, ret_errors);
	if (r <= 0)
		return r;
	*ret_text = record ? json_writer_text(&d->text, ret_len) : NULL;
	if (!record)
		*ret_len = 0;
	return 1;
}

/* The "errors" array of a document, with the one error an empty input is. */
static json_t *doc_errors_new(size_t len)
{
	json_auto_t *errors = json_array();

	if (!errors)
		return NULL;
	if (len == 0 && json_array_append_new(errors, json_pack("{s:i,s:s}", "offset", 0, "message",
								"empty input")) < 0)
		return NULL;
	return TAKE_PTR(errors);
}

int cper_decode_json_budget(const void *buf, size_t len, size_t budget, json_t **ret)
{
	_cleanup_(cper_decoder_freep) CperDecoder *d = NULL;
	json_auto_t *doc = NULL;
	json_t *records, *errors;
	int r;

	r = cper_decoder_new(buf, len, &d);
	if (r < 0)
		return r;
	cper_decoder_set_budget(d, budget);

	doc = json_pack("{s:i,s:[],s:o*}", "schema_version", CPER_SCHEMA_VERSION, "records",
			"errors", doc_errors_new(len));
	errors = json_object_get(doc, "errors");
	if (!errors)
		return -ENOMEM;
	records = json_object_get(doc, "records");

	for (;;) {
		json_t *rec = NULL, *errs = NULL;

		r = cper_decoder_next(d, &rec, &errs);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		if (rec && json_array_append_new(records, rec) < 0) {
			json_decref(errs);
			return -ENOMEM;
		}
		r = json_array_extend(errors, errs);
		json_decref(errs);
		if (r < 0)
			return -ENOMEM;
	}

	*ret = TAKE_PTR(doc);
	return cper_decoder_budget_spent(d);
}

int cper_decode_json(const void *buf, size_t len, json_t **ret)
{
	int r = cper_decode_json_budget(buf, len, CPER_DECODE_BUDGET, ret);

	return MIN(r, 0);
}

/* The records of d written into the open "records" array of w; errors collects the problems. */
static int decode_records_text(CperDecoder *d, JsonWriter *w, json_t *errors)
{
	for (;;) {
		CperCtx c = {.text = w};
		json_t *errs;
		bool record;
		int r;

		r = decoder_next(d, &c, &record, &errs);
		if (r <= 0)
			return r;
		r = json_array_extend(errors, errs);
		json_decref(errs);
		if (r < 0)
			return -ENOMEM;
	}
}

int cper_decode_json_text(const void *buf, size_t len, size_t budget, char **ret, size_t *ret_len)
{
	_cleanup_(cper_decoder_freep) CperDecoder *d = NULL;
	_cleanup_(json_writer_done) JsonWriter w = {};
	json_auto_t *errors = NULL;
	CperCtx c = {.text = &w};
	int r;

	r = cper_decoder_new(buf, len, &d);
	if (r < 0)
		return r;
	cper_decoder_set_budget(d, budget);
	errors = doc_errors_new(len);
	if (!errors)
		return -ENOMEM;

	json_writer_object_begin(&w, NULL);
	json_writer_integer(&w, "schema_version", CPER_SCHEMA_VERSION);
	json_writer_array_begin(&w, "records");
	r = decode_records_text(d, &w, errors);
	if (r < 0)
		return r;
	json_writer_end(&w);
	cper_emit_messages(&c, "errors", errors);
	json_writer_end(&w);

	char *text = json_writer_take(&w, ret_len);
	if (!text)
		return -ENOMEM;
	*ret = text;
	return cper_decoder_budget_spent(d);
}
