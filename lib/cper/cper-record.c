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
};

/* The error severities of UEFI N.2.1; other values are reserved. */
static const char *const severity_strs[] = {
	[0] = "recoverable",
	[1] = "fatal",
	[2] = "corrected",
	[3] = "informational",
};
DEFINE_PRIVATE_STRING_TABLE_TO_STRING(severity, uint32_t, severity_strs, 4)

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
static json_t *timestamp_json(CperCtx *c, const uint8_t *t, size_t abs_off)
{
	const char *encoding = NULL;
	unsigned sec = 0, min = 0, hour = 0, day = 0, month = 0, year = 0;
	bool century_assumed = false, precise = false, unix_secs = false;
	uint64_t raw = cper_le64(t);
	char when[64];

	json_t *ts = json_object();
	if (!ts) {
		c->oom = true;
		return NULL;
	}
	cper_set(c, ts, "raw", cper_hex_u64(raw, 8));

	if (raw != 0 && (raw >> 32) == 0) {
		time_t s = (time_t)raw;
		struct tm tm;
		if (gmtime_r(&s, &tm)) {
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
			encoding = "unix_seconds";
			unix_secs = true;
		}
	} else if ((bcd_ok(t[7]) && bcd(t[7]) >= 19 && bcd(t[7]) <= 21) || t[7] == 0) {
		bool all_bcd = bcd_ok(t[0]) && bcd_ok(t[1]) && bcd_ok(t[2]) && bcd_ok(t[4]) &&
			       bcd_ok(t[5]) && bcd_ok(t[6]);
		if (all_bcd && time_fields_ok(bcd(t[0]), bcd(t[1]), bcd(t[2]), bcd(t[4]), bcd(t[5]),
					      bcd(t[6]))) {
			sec = bcd(t[0]), min = bcd(t[1]), hour = bcd(t[2]);
			day = bcd(t[4]), month = bcd(t[5]);
			century_assumed = t[7] == 0;
			year = (century_assumed ? 20 : bcd(t[7])) * 100 + bcd(t[6]);
			encoding = "bcd";
		}
	}
	if (!encoding && t[7] >= 19 && t[7] <= 21 &&
	    time_fields_ok(t[0], t[1], t[2], t[4], t[5], t[6])) {
		sec = t[0], min = t[1], hour = t[2], day = t[4], month = t[5];
		year = t[7] * 100u + t[6];
		encoding = "binary";
	}

	if (!encoding) {
		cper_set(c, ts, "encoding", json_string("unknown"));
		cper_note(c, abs_off,
			  "timestamp 0x%016" PRIx64 " is neither BCD, binary nor Unix seconds",
			  raw);
		return ts;
	}

	cper_set(c, ts, "encoding", json_string(encoding));
	if (unix_secs) {
		cper_set(c, ts, "unix_seconds", json_integer((json_int_t)raw));
	} else {
		precise = t[3] & 0x1;
		snprintf(when, sizeof(when), "%04u-%02u-%02u %02u:%02u:%02u", year, month, day,
			 hour, min, sec);
		cper_set(c, ts, "precise", json_boolean(precise));
		if (century_assumed)
			cper_set(c, ts, "century_assumed", json_true());
	}
	cper_set(c, ts, "time", json_string(when));
	return ts;
}

static json_t *revision_json(uint16_t rev)
{
	char buf[8];

	/* Byte 1 is the major, byte 0 the minor revision, both BCD. */
	snprintf(buf, sizeof(buf), "%x.%x", rev >> 8, rev & 0xff);
	return json_string(buf);
}

/*
 * Revisions written by real producers, all with the layout of 1.0: 1.x by the UEFI specification,
 * EDK2 and Linux, 2.10 (0x0210, WHEA_ERROR_RECORD_REVISION) by Windows.
 */
static bool revision_known(uint16_t rev)
{
	return rev >> 8 == 1 || rev == 0x0210;
}

static void decode_section(const CperBuf *rec, size_t limit, unsigned idx, json_t *sections)
{
	CperCtx *c = rec->ctx;
	CperBuf d = cper_buf_sub(rec, CPER_RECORD_HEADER_SIZE + idx * CPER_SECTION_DESCRIPTOR_SIZE,
				 CPER_SECTION_DESCRIPTOR_SIZE);
	const uint8_t *p = d.p;
	uint32_t soff = cper_le32(p), slen = cper_le32(p + 4);
	uint8_t valid = p[10];
	uint32_t sev = cper_le32(p + 48);

	json_t *s = cper_child_object(c, sections, NULL);
	if (!s)
		return;

	cper_set(c, s, "index", json_integer(idx));
	cper_set(c, s, "offset", json_integer(soff));
	cper_set(c, s, "length", json_integer(slen));
	cper_set(c, s, "revision", revision_json(cper_le16(p + 8)));
	cper_set(c, s, "validation_bits", cper_hex_u64(valid, 1));
	cper_put_bits(c, s, "flags", cper_le32(p + 12), 4, section_flag_strs,
		      ARRAY_SIZE(section_flag_strs));
	cper_set(c, s, "severity", json_string(severity_to_string(sev) ?: "unknown"));
	cper_set(c, s, "severity_code", json_integer(sev));
	cper_put_guid(&d, s, "fru_id", 32, valid & CPER_SEC_VALID_FRU_ID);
	cper_put_text(&d, s, "fru_text", 52, 20, valid & CPER_SEC_VALID_FRU_TEXT);

	const CperSectionType *t = cper_section_type_find(p + 16);
	cper_set(c, s, "section_type", cper_guid_json(p + 16));
	cper_set(c, s, "section_type_name", json_string(t ? t->name : "unknown"));

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
		cper_set(c, s, "truncated", json_true());
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

	CperBuf body_buf = cper_buf_sub(rec, soff, blen);
	json_t *body = cper_child_object(c, s, "body");
	if (!body)
		return;
	if (t && t->decode)
		t->decode(&body_buf, body);
	else
		cper_put_dump(&body_buf, body, "data_dump", 0, blen);
}

static json_t *decode_record(CperCtx *c, const uint8_t *buf, size_t off, size_t limit,
			     uint32_t rlen)
{
	const uint8_t *p = buf + off;
	CperBuf rec = {.p = p, .len = limit, .base = off, .ctx = c};
	uint32_t valid = cper_le32(p + 16), sev = cper_le32(p + 12), flags = cper_le32(p + 104);
	uint16_t count = cper_le16(p + 10);
	char id[24];

	json_t *r = json_object();
	if (!r) {
		c->oom = true;
		return NULL;
	}
	cper_set(c, r, "offset", json_integer((json_int_t)off));
	cper_set(c, r, "length", json_integer(rlen));
	cper_set(c, r, "revision", revision_json(cper_le16(p + 4)));
	cper_set(c, r, "section_count", json_integer(count));
	cper_set(c, r, "severity", json_string(severity_to_string(sev) ?: "unknown"));
	cper_set(c, r, "severity_code", json_integer(sev));
	cper_set(c, r, "validation_bits", cper_hex_u64(valid, 4));
	if (valid & CPER_VALID_TIMESTAMP)
		cper_set(c, r, "timestamp", timestamp_json(c, p + 24, off + 24));
	if (valid & CPER_VALID_PLATFORM_ID)
		cper_set(c, r, "platform_id", cper_guid_json(p + 32));
	if (valid & CPER_VALID_PARTITION_ID)
		cper_set(c, r, "partition_id", cper_guid_json(p + 48));

	const char *name;
	cper_set(c, r, "creator_id", cper_guid_json(p + 64));
	if ((name = cper_guid_name(p + 64)))
		cper_set(c, r, "creator_id_name", json_string(name));
	cper_set(c, r, "notification_type", cper_guid_json(p + 80));
	if ((name = cper_guid_name(p + 80)))
		cper_set(c, r, "notification_type_name", json_string(name));

	/* Decimal, as in pstore file names; a u64 may not fit a JSON integer. */
	snprintf(id, sizeof(id), "%" PRIu64, cper_le64(p + 96));
	cper_set(c, r, "record_id", json_string(id));
	cper_put_bits(c, r, "flags", flags, 4, record_flag_strs, ARRAY_SIZE(record_flag_strs));
	cper_set(c, r, "persistence_information", cper_hex_u64(cper_le64(p + 108), 8));

	if (!revision_known(cper_le16(p + 4)))
		cper_note(c, off + 4,
			  "record revision %x.%x is neither 1.x nor 2.10; decoding as 1.x",
			  cper_le16(p + 4) >> 8, cper_le16(p + 4) & 0xff);

	size_t fit = (limit - CPER_RECORD_HEADER_SIZE) / CPER_SECTION_DESCRIPTOR_SIZE;
	if (count > fit)
		cper_error(c, off + 10,
			   "section count %u needs %zu bytes of descriptors, but the record has "
			   "%zu bytes; decoding %zu sections",
			   count,
			   CPER_RECORD_HEADER_SIZE + (size_t)count * CPER_SECTION_DESCRIPTOR_SIZE,
			   limit, fit);

	/* Each section costs its descriptor and its body, overlapping or not, against the
	 * decoding budget: descriptors are 72 bytes, a record can hold thousands. */
	json_t *sections = cper_child_array(c, r, "sections");
	for (unsigned i = 0; sections && i < MIN((size_t)count, fit); i++) {
		if (c->budget < CPER_SECTION_DESCRIPTOR_SIZE) {
			cper_error(c,
				   off + CPER_RECORD_HEADER_SIZE + i * CPER_SECTION_DESCRIPTOR_SIZE,
				   "sections %u to %zu not decoded: the decoding budget is spent",
				   i, MIN((size_t)count, fit) - 1);
			c->spent = true;
			break;
		}
		c->budget -= CPER_SECTION_DESCRIPTOR_SIZE;
		decode_section(&rec, limit, i, sections);
	}
	return r;
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
	free(d);
	return NULL;
}

int cper_decoder_next(CperDecoder *d, json_t **ret_record, json_t **ret_errors)
{
	CperCtx c = {.budget = d->budget};
	json_t *record = NULL;
	size_t off = d->off, avail = d->len - d->off;

	if (d->off >= d->len)
		return 0;

	c.errors = json_array();
	c.notes = json_array();
	if (!c.errors || !c.notes) {
		json_decref(c.errors);
		json_decref(c.notes);
		return -ENOMEM;
	}

	if (!header_at(d->buf + off, avail)) {
		size_t next = find_header(d->buf, d->len, off + 1, d->len);
		if (next < d->len)
			cper_error(&c, off,
				   "no CPER record header here: skipped %zu bytes up to the next "
				   "'CPER' signature",
				   next - off);
		else
			cper_error(&c, off,
				   "no CPER record header (signature 'CPER', 0xFFFFFFFF) in the "
				   "last %zu bytes",
				   avail);
		d->off = next;
	} else if (avail < CPER_RECORD_HEADER_SIZE) {
		cper_error(&c, off, "record header truncated: %zu of %d bytes", avail,
			   CPER_RECORD_HEADER_SIZE);
		d->off = d->len;
	} else {
		uint32_t rlen = cper_le32(d->buf + off + 20);
		size_t limit = rlen, next;

		/* A following record cannot start inside this one's header. */
		if (rlen < CPER_RECORD_HEADER_SIZE) {
			next = find_header(d->buf, d->len, off + CPER_RECORD_HEADER_SIZE, d->len);
			limit = next - off;
			cper_error(&c, off + 20,
				   "record length %" PRIu32
				   " is shorter than the %d-byte header; assuming %zu bytes",
				   rlen, CPER_RECORD_HEADER_SIZE, limit);
		} else if (rlen > avail) {
			/* Truncated, or a wrong length: stop at the next record if one follows. */
			next = find_header(d->buf, d->len, off + CPER_RECORD_HEADER_SIZE, d->len);
			limit = next - off;
			cper_error(&c, off + 20,
				   "record length %" PRIu32
				   " exceeds the %zu bytes present; decoding %zu bytes",
				   rlen, avail, limit);
		} else {
			/* A record cut short and followed by the next one: its length runs
			 * into the next header, which wins (sections hold no CPER headers). */
			next = find_header(d->buf, d->len, off + CPER_RECORD_HEADER_SIZE,
					   off + rlen);
			if (next < off + rlen &&
			    cper_looks_like_record(d->buf + next, d->len - next)) {
				limit = next - off;
				cper_error(
					&c, off + 20,
					"record length %" PRIu32
					" runs into the record header at offset %zu; decoding %zu "
					"bytes",
					rlen, next, limit);
			} else
				next = off + rlen;
		}

		record = decode_record(&c, d->buf, off, limit, rlen);
		d->off = next;
		if (record && json_array_size(c.notes) > 0)
			cper_set(&c, record, "notes", json_incref(c.notes));
	}
	d->budget = c.budget;
	d->spent = d->spent || c.spent;

	json_decref(c.notes);
	if (c.oom) {
		json_decref(record);
		json_decref(c.errors);
		return -ENOMEM;
	}
	*ret_record = record;
	*ret_errors = c.errors;
	return 1;
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

	doc = json_pack("{s:i,s:[],s:[]}", "schema_version", CPER_SCHEMA_VERSION, "records",
			"errors");
	if (!doc)
		return -ENOMEM;
	records = json_object_get(doc, "records");
	errors = json_object_get(doc, "errors");

	if (len == 0 && json_array_append_new(errors, json_pack("{s:i,s:s}", "offset", 0, "message",
								"empty input")) < 0)
		return -ENOMEM;

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
