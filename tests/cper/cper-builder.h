/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * A small CPER record builder for the tests, the fuzzer's seed corpus and
 * the benchmark: lays out a record header, the section descriptors and the
 * section bodies as UEFI appendix N describes, independently of the
 * decoder's code.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct CperSectionSpec {
	const char *type; /* GUID string */
	uint32_t severity;
	uint32_t flags;
	uint8_t validation;
	const char *fru_id; /* GUID string, or NULL */
	const char *fru_text;
	const void *body;
	size_t body_len;
} CperSectionSpec;

typedef struct CperRecordSpec {
	uint32_t severity;
	uint32_t validation;
	uint8_t timestamp[8];
	const char *platform_id, *partition_id, *creator_id, *notification_type;
	uint64_t record_id;
	uint32_t flags;
	uint64_t persistence;
	size_t n_sections;
	const CperSectionSpec *sections;
} CperRecordSpec;

/* Writes the record to out (cap bytes); returns its length, or 0 if it does not fit. */
size_t cper_build_record(const CperRecordSpec *spec, uint8_t *out, size_t cap);

void guid_parse(const char *s, uint8_t out[16]);
void put_le(uint8_t *p, uint64_t v, size_t n);

/* Timestamps in the three encodings. */
void timestamp_bcd(uint8_t t[8], unsigned year, unsigned mon, unsigned day, unsigned h, unsigned m,
		   unsigned s, int precise);
void timestamp_binary(uint8_t t[8], unsigned year, unsigned mon, unsigned day, unsigned h,
		      unsigned m, unsigned s, int precise);
void timestamp_unix(uint8_t t[8], uint64_t secs);

/* A Linux pstore ERST record around payload, as drivers/acpi/apei/erst.c writes it. */
size_t cper_build_pstore_record(const char *section_type, const void *payload, size_t len,
				uint64_t secs, uint64_t record_id, uint8_t *out, size_t cap);

#define GUID_DMESG "c197e04e-d545-4a70-9c17-a5549419eb12"
#define GUID_DMESG_Z "4f118707-04dd-4055-b5dd-956d34ddfac6"
#define GUID_MCE "fe08ffbe-95e4-4be7-bc73-4096044a38fc"
#define GUID_CREATOR_LINUX "75a574e3-5052-4b29-8a8e-be2c6490b89d"
#define GUID_CREATOR_WHEA "cf07c4bd-b789-4e18-b3c4-1f732cb57131"
#define GUID_NOTIFY_MCE "e8f56ffe-919c-4cc5-ba88-65abe14913bb"
#define GUID_NOTIFY_CMC "2dce8bb1-bdd7-450e-b9ad-9cf4ebd4f890"
#define GUID_PROC_GENERIC "9876ccad-47b4-4bdb-b65e-16f193c4f3db"
#define GUID_PROC_IA "dc3ea0b0-a144-4797-b95b-53fa242b6e1d"
#define GUID_PROC_IPF "e429faf1-3cb7-11d4-bca7-0080c73c8881"
#define GUID_PROC_ARM "e19e3d16-bc11-11e4-9caa-c2051d5d46b0"
#define GUID_MEMORY "a5bc1114-6f64-4ede-b863-3e83ed7c83b1"
#define GUID_MEMORY2 "61ec04fc-48e6-d813-25c9-8daa44750b12"
#define GUID_PCIE "d995e954-bbc1-430f-ad91-b44dcb3c6f35"
#define GUID_FW_ERROR "81212a96-09ed-4996-9471-8d729c8e69ed"
#define GUID_PCI_BUS "c5753963-3b84-4095-bf78-eddad3f9c9dd"
#define GUID_PCI_DEV "eb5e4685-ca66-4769-b6a2-26068b001326"
#define GUID_DMAR_GENERIC "5b51fef7-c79d-4434-8f1b-aa62de3e2c64"
#define GUID_DMAR_VTD "71761d37-32b2-45cd-a7d0-b0fedd93e8cf"
#define GUID_DMAR_IOMMU "036f84e1-7f37-428c-a79e-575fdfaa84ec"
#define GUID_CCIX_PER "91335ef6-ebfb-4478-a6a6-88b728cf75d7"
#define GUID_CXL_PROTOCOL "80b9efb4-52b5-4de3-a777-68784b771048"
#define GUID_CXL_GEN_MEDIA "fbcd0a77-c260-417f-85a9-088b1621eba6"
#define GUID_CXL_DRAM "601dcbb3-9c06-4eab-b8af-4e9bfb5c9624"
#define GUID_CXL_MEM_MODULE "fe927475-dd59-4339-a586-79bab113b774"
#define GUID_CXL_PHYS_SWITCH "77cf9271-9c02-470b-9fe4-bc7b75f2da97"
#define GUID_CXL_VIRT_SWITCH "40d26425-3396-4c4d-a5da-3d47263af425"
#define GUID_CXL_MLD_PORT "8dc44363-0c96-4710-b7bf-04bb99534c3f"
#define GUID_IA_CACHE "a55701f5-e3ef-43de-ac72-249b573fad2c"
#define GUID_IA_TLB "fc06b535-5e1f-4562-9f25-0a3b9adb63c3"
#define GUID_IA_BUS "1cf3f8b3-c5b1-49a2-aa59-5eef92ffa63c"
#define GUID_IA_MS "48ab7f57-dc34-4f6c-a7d3-b0b5b0a74314"
