// SPDX-License-Identifier: GPL-2.0-only
/*
 * pstore records in ERST, as the 2011 ERST backend stored them: one CPER
 * record (UEFI 2.10 appendix N) per pstore record, a 128-byte record header
 * with the Linux pstore creator id and the time of writing in Unix seconds,
 * one 72-byte section descriptor whose type says dmesg, deflate-compressed
 * dmesg or x86 MCE, and the payload right after it, at offset 200.
 *
 * Records by other creators (hardware error records the firmware logged)
 * are shown whole, so that user space can archive and decode them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bcd.h>
#include <linux/cper.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/uuid.h>

#include "pstore_erst.h"

static const guid_t cper_creator_pstore =
	GUID_INIT(0x75a574e3, 0x5052, 0x4b29, 0x8a, 0x8e, 0xbe, 0x2c, 0x64, 0x90, 0xb8, 0x9d);
static const guid_t cper_section_dmesg =
	GUID_INIT(0xc197e04e, 0xd545, 0x4a70, 0x9c, 0x17, 0xa5, 0x54, 0x94, 0x19, 0xeb, 0x12);
static const guid_t cper_section_dmesg_z =
	GUID_INIT(0x4f118707, 0x04dd, 0x4055, 0xb5, 0xdd, 0x95, 0x6d, 0x34, 0xdd, 0xfa, 0xc6);
static const guid_t cper_section_mce =
	GUID_INIT(0xfe08ffbe, 0x95e4, 0x4be7, 0xbc, 0x73, 0x40, 0x96, 0x04, 0x4a, 0x38, 0xfc);

/* The layout the kernel's pstore backends in ERST share. */
struct cper_pstore_record {
	struct cper_record_header hdr;
	struct cper_section_descriptor sec;
	u8 data[];
} __packed;

static atomic64_t erst_record_seq;

/*
 * Record ids: seconds << 32 plus a sequence, so that ids keep growing
 * across boots (the scheme of the kernel's cper_next_record_id()); after
 * 2038 the top bit is set and the seconds move down to bit 24.
 */
static u64 erst_next_record_id(void)
{
	time64_t now;

	if (!atomic64_read(&erst_record_seq)) {
		now = ktime_get_real_seconds();
		if (now < 0x80000000)
			atomic64_cmpxchg(&erst_record_seq, 0, (u64)now << 32);
		else
			atomic64_cmpxchg(&erst_record_seq, 0, 0x8000000000000000ULL | (u64)now << 24);
	}
	return atomic64_inc_return(&erst_record_seq);
}

/*
 * Firmware records carry the UEFI timestamp: BCD seconds, minutes, hours,
 * a flags byte, day, month, year, century. 0 when it is not valid BCD.
 */
static time64_t cper_bcd_timestamp(u64 ts)
{
	u8 b[8];
	unsigned int k, year;

	for (k = 0; k < 8; k++) {
		b[k] = ts >> (8 * k);
		if (k != 3 && ((b[k] & 0xf) > 9 || (b[k] >> 4) > 9))
			return 0;
	}
	year = bcd2bin(b[7]) * 100 + bcd2bin(b[6]);
	if (bcd2bin(b[5]) < 1 || bcd2bin(b[5]) > 12 || bcd2bin(b[4]) < 1 ||
	    bcd2bin(b[4]) > 31 || bcd2bin(b[2]) > 23 || bcd2bin(b[1]) > 59 ||
	    bcd2bin(b[0]) > 60 || year < 1970)
		return 0;
	return mktime64(year, bcd2bin(b[5]), bcd2bin(b[4]), bcd2bin(b[2]), bcd2bin(b[1]),
			bcd2bin(b[0]));
}

void erst_record_view(const struct erst_record *rec, struct erst_pstore_view *view)
{
	const struct cper_pstore_record *rcd = (const void *)rec->data;
	bool timestamp_valid = rcd->hdr.validation_bits & CPER_VALID_TIMESTAMP;
	u32 off, len;

	*view = (struct erst_pstore_view){
		.type = PSTORE_TYPE_MAX,
		.payload = rec->data,
		.payload_len = rec->len,
	};

	if (!guid_equal(&rcd->hdr.creator_id, &cper_creator_pstore)) {
		if (timestamp_valid)
			view->time = cper_bcd_timestamp(rcd->hdr.timestamp);
		return;
	}
	if (timestamp_valid)
		view->time = rcd->hdr.timestamp;

	/*
	 * A pstore record that does not hold together is shown whole, and so
	 * is one whose section is empty: a file of 0 bytes is nothing to
	 * archive, and the pstore core takes a read() of 0 bytes for the end
	 * of the records, which would hide this one and all after it.
	 */
	if (rec->len < sizeof(*rcd) || rcd->hdr.section_count < 1)
		return;
	off = rcd->sec.section_offset;
	len = rcd->sec.section_length;
	if (off < sizeof(*rcd) || off > rec->len || !len || len > rec->len - off)
		return;

	if (guid_equal(&rcd->sec.section_type, &cper_section_dmesg)) {
		view->type = PSTORE_TYPE_DMESG;
	} else if (guid_equal(&rcd->sec.section_type, &cper_section_dmesg_z)) {
		view->type = PSTORE_TYPE_DMESG;
		view->compressed = true;
	} else if (guid_equal(&rcd->sec.section_type, &cper_section_mce)) {
		view->type = PSTORE_TYPE_MCE;
	} else {
		return;
	}
	view->payload = rec->data + off;
	view->payload_len = len;
}

size_t erst_pstore_payload_max(void)
{
	return erst_fw_record_size() - sizeof(struct cper_pstore_record);
}

struct erst_pstore_fill {
	const guid_t *section_type;
	const void *payload;
	size_t len;
	u64 id;
};

/* Runs with the error log address range locked: build the record in place. */
static int erst_pstore_fill(void *buf, size_t size, void *arg)
{
	struct erst_pstore_fill *f = arg;
	struct cper_pstore_record *rcd = buf;

	if (sizeof(*rcd) + f->len > size)
		return -E2BIG;

	memset(rcd, 0, sizeof(*rcd));
	memcpy(rcd->hdr.signature, CPER_SIG_RECORD, CPER_SIG_SIZE);
	rcd->hdr.revision = CPER_RECORD_REV;
	rcd->hdr.signature_end = CPER_SIG_END;
	rcd->hdr.section_count = 1;
	rcd->hdr.error_severity = CPER_SEV_FATAL;
	rcd->hdr.validation_bits = CPER_VALID_TIMESTAMP;
	rcd->hdr.record_length = sizeof(*rcd) + f->len;
	rcd->hdr.timestamp = ktime_get_real_seconds();
	rcd->hdr.creator_id = cper_creator_pstore;
	rcd->hdr.notification_type = CPER_NOTIFY_MCE;
	rcd->hdr.record_id = f->id;
	rcd->hdr.flags = CPER_HW_ERROR_FLAGS_PREVERR;
	/* the serialization signature, as the kernel's erst_write() sets it */
	memcpy(&rcd->hdr.persistence_information, "ER", 2);

	rcd->sec.section_offset = sizeof(*rcd);
	rcd->sec.section_length = f->len;
	rcd->sec.revision = CPER_SEC_REV;
	rcd->sec.flags = CPER_SEC_PRIMARY;
	rcd->sec.section_type = *f->section_type;
	rcd->sec.section_severity = CPER_SEV_FATAL;

	memcpy(rcd->data, f->payload, f->len);
	return 0;
}

int erst_pstore_write(enum pstore_type_id type, bool compressed, const void *payload, size_t len,
		      u64 *ret_id)
{
	struct erst_pstore_fill f = { .payload = payload, .len = len };
	int rc;

	switch (type) {
	case PSTORE_TYPE_DMESG:
		f.section_type = compressed ? &cper_section_dmesg_z : &cper_section_dmesg;
		break;
	case PSTORE_TYPE_MCE:
		f.section_type = &cper_section_mce;
		break;
	default:
		return -EINVAL;
	}
	f.id = erst_next_record_id();
	rc = erst_fw_write(erst_pstore_fill, &f);
	if (rc) {
		pr_err("writing a record to ERST failed: %d%s\n", rc,
		       rc == -ENOSPC ? " (ERST is full: erase records, e.g. rm /sys/fs/pstore/*)" : "");
		return rc;
	}
	*ret_id = f.id;
	return 0;
}
