// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cper-builder.h"

void put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* "aabbccdd-eeff-gghh-iijj-kkllmmnnoopp": the first three groups little-endian. */
void guid_parse(const char *s, uint8_t out[16])
{
	unsigned d1, d2, d3, b[8];

	if (sscanf(s, "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x", &d1, &d2, &d3, &b[0], &b[1], &b[2],
		   &b[3], &b[4], &b[5], &b[6], &b[7]) != 11)
		abort();
	put_le(out, d1, 4);
	put_le(out + 4, d2, 2);
	put_le(out + 6, d3, 2);
	for (int i = 0; i < 8; i++)
		out[8 + i] = (uint8_t)b[i];
}

static uint8_t to_bcd(unsigned v)
{
	return (uint8_t)((v / 10) << 4 | (v % 10));
}

void timestamp_bcd(uint8_t t[8], unsigned year, unsigned mon, unsigned day, unsigned h, unsigned m,
		   unsigned s, int precise)
{
	t[0] = to_bcd(s), t[1] = to_bcd(m), t[2] = to_bcd(h), t[3] = precise ? 1 : 0;
	t[4] = to_bcd(day), t[5] = to_bcd(mon), t[6] = to_bcd(year % 100),
	t[7] = to_bcd(year / 100);
}

void timestamp_binary(uint8_t t[8], unsigned year, unsigned mon, unsigned day, unsigned h,
		      unsigned m, unsigned s, int precise)
{
	t[0] = (uint8_t)s, t[1] = (uint8_t)m, t[2] = (uint8_t)h, t[3] = precise ? 1 : 0;
	t[4] = (uint8_t)day, t[5] = (uint8_t)mon, t[6] = (uint8_t)(year % 100);
	t[7] = (uint8_t)(year / 100);
}

void timestamp_unix(uint8_t t[8], uint64_t secs)
{
	put_le(t, secs, 8);
}

size_t cper_build_record(const CperRecordSpec *spec, uint8_t *out, size_t cap)
{
	size_t len = 128 + 72 * spec->n_sections;

	for (size_t i = 0; i < spec->n_sections; i++)
		len += spec->sections[i].body_len;
	if (len > cap)
		return 0;
	memset(out, 0, len);

	memcpy(out, "CPER", 4);
	put_le(out + 4, 0x0100, 2);
	put_le(out + 6, 0xffffffff, 4);
	put_le(out + 10, spec->n_sections, 2);
	put_le(out + 12, spec->severity, 4);
	put_le(out + 16, spec->validation, 4);
	put_le(out + 20, len, 4);
	memcpy(out + 24, spec->timestamp, 8);
	if (spec->platform_id)
		guid_parse(spec->platform_id, out + 32);
	if (spec->partition_id)
		guid_parse(spec->partition_id, out + 48);
	if (spec->creator_id)
		guid_parse(spec->creator_id, out + 64);
	if (spec->notification_type)
		guid_parse(spec->notification_type, out + 80);
	put_le(out + 96, spec->record_id, 8);
	put_le(out + 104, spec->flags, 4);
	put_le(out + 108, spec->persistence, 8);

	size_t body = 128 + 72 * spec->n_sections;
	for (size_t i = 0; i < spec->n_sections; i++) {
		const CperSectionSpec *s = &spec->sections[i];
		uint8_t *d = out + 128 + 72 * i;

		put_le(d, body, 4);
		put_le(d + 4, s->body_len, 4);
		put_le(d + 8, 0x0100, 2);
		d[10] = s->validation;
		put_le(d + 12, s->flags, 4);
		guid_parse(s->type, d + 16);
		if (s->fru_id)
			guid_parse(s->fru_id, d + 32);
		put_le(d + 48, s->severity, 4);
		if (s->fru_text)
			memcpy(d + 52, s->fru_text, strnlen(s->fru_text, 20));
		if (s->body_len)
			memcpy(out + body, s->body, s->body_len);
		body += s->body_len;
	}
	return len;
}

size_t cper_build_pstore_record(const char *section_type, const void *payload, size_t len,
				uint64_t secs, uint64_t record_id, uint8_t *out, size_t cap)
{
	/* erst_writer(): fatal, timestamp valid, previous-error flag, primary section. */
	CperSectionSpec sec = {
		.type = section_type,
		.severity = 1,
		.flags = 1,
		.body = payload,
		.body_len = len,
	};
	CperRecordSpec rec = {
		.severity = 1,
		.validation = 0x2,
		.creator_id = GUID_CREATOR_LINUX,
		.notification_type = GUID_NOTIFY_MCE,
		.record_id = record_id,
		.flags = 0x2,
		.n_sections = 1,
		.sections = &sec,
	};

	timestamp_unix(rec.timestamp, secs);
	return cper_build_record(&rec, out, cap);
}
