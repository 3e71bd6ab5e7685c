// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cper-gen-corpus DIR: writes sample inputs for `pstorectl decode` tests and
 * the seed corpus of the fuzzer: one CPER record per section sample, Linux
 * pstore ERST records (dmesg, compressed dmesg, MCE), a dump of them all,
 * records with WHEA and BCD timestamps, and the raw pstore files the kernel
 * shows in /sys/fs/pstore (dmesg-erst-*, dmesg-erst-*.enc.z, mce-erst-*).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cper-builder.h"
#include "cper-samples.h"
#include "zlib-util.h"

static const char *dir;
static uint8_t dump[256 * 1024];
static size_t dump_len;

static void write_file(const char *name, const void *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "we");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "cper-gen-corpus: cannot write %s: %s\n", path, strerror(errno));
		exit(EXIT_FAILURE);
	}
}

static void add_record(const char *name, const uint8_t *rec, size_t n)
{
	write_file(name, rec, n);
	if (dump_len + n <= sizeof(dump)) {
		memcpy(dump + dump_len, rec, n);
		dump_len += n;
	}
}

int main(int argc, char *argv[])
{
	static const char log[] =
		"Panic#1 Part1\n"
		"<0>[   42.000001] Kernel panic - not syncing: sysrq triggered crash\n"
		"<4>[   42.000100] CPU: 0 PID: 321 Comm: bash Not tainted 6.1.0-18-amd64 #1\n"
		"<4>[   42.000200] Call Trace:\n"
		"<4>[   42.000300]  <TASK>\n"
		"<4>[   42.000400]  dump_stack_lvl+0x44/0x5c\n"
		"<4>[   42.000500]  panic+0x118/0x2ed\n";
	uint8_t body[CPER_SAMPLE_MAX], rec[CPER_SAMPLE_MAX + 512], z[4096], mce[128];
	char name[128];
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: cper-gen-corpus DIR\n");
		return EXIT_FAILURE;
	}
	dir = argv[1];

	for (size_t i = 0; i < cper_n_samples; i++) {
		const CperSample *s = &cper_samples[i];
		CperSectionSpec sec = {.type = s->type, .severity = 2, .flags = 1, .body = body};
		CperRecordSpec r = {
			.severity = 2,
			.validation = 0x2,
			.creator_id = GUID_CREATOR_WHEA,
			.notification_type = GUID_NOTIFY_CMC,
			.record_id = i + 1,
			.n_sections = 1,
			.sections = &sec,
		};
		sec.body_len = s->build(body, true);
		timestamp_bcd(r.timestamp, 2024, 5, 17, 10, 11, 12, 1);
		n = cper_build_record(&r, rec, sizeof(rec));
		snprintf(name, sizeof(name), "section-%s.cper", s->name);
		add_record(name, rec, n);
	}

	n = cper_build_pstore_record(GUID_DMESG, log, strlen(log), 1700000000,
				     UINT64_C(7301419813404409857), rec, sizeof(rec));
	add_record("erst-dmesg.cper", rec, n);
	ssize_t zn = zlib_deflate_buffer(log, strlen(log), -15, z, sizeof(z));
	if (zn < 0)
		abort();
	n = cper_build_pstore_record(GUID_DMESG_Z, z, (size_t)zn, 1700000000,
				     UINT64_C(7301419813404409858), rec, sizeof(rec));
	add_record("erst-dmesg-z.cper", rec, n);
	cper_sample_mce(mce);
	n = cper_build_pstore_record(GUID_MCE, mce, sizeof(mce), 1700000000,
				     UINT64_C(7301419813404409859), rec, sizeof(rec));
	add_record("erst-mce.cper", rec, n);

	/* libcper's CXL component event whose event log is shorter than its header */
	CperSectionSpec csec = {.type = GUID_CXL_GEN_MEDIA,
				.body = body,
				.body_len = cper_sample_cxl_short_event_log(body)};
	CperRecordSpec cxl = {.n_sections = 1, .sections = &csec};
	n = cper_build_record(&cxl, rec, sizeof(rec));
	add_record("cxl-media-short-event-log.cper", rec, n);

	/* A Windows WHEA record: binary timestamp, WHEA creator. */
	size_t mlen = cper_samples[4].build(body, true);
	CperSectionSpec msec = {.type = GUID_MEMORY, .severity = 2, .body = body, .body_len = mlen};
	CperRecordSpec whea = {
		.severity = 2,
		.validation = 0x2,
		.creator_id = GUID_CREATOR_WHEA,
		.notification_type = GUID_NOTIFY_CMC,
		.record_id = 0x01d9a6c2e4f00001,
		.n_sections = 1,
		.sections = &msec,
	};
	timestamp_binary(whea.timestamp, 2023, 7, 14, 17, 45, 59, 1);
	n = cper_build_record(&whea, rec, sizeof(rec));
	add_record("whea-memory.cper", rec, n);

	write_file("dump.cper", dump, dump_len);
	write_file("dmesg-erst-7301419813404409857", log, strlen(log));
	write_file("dmesg-erst-7301419813404409858.enc.z", z, zn);
	write_file("mce-erst-7301419813404409859", mce, sizeof(mce));
	return EXIT_SUCCESS;
}
