// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Section decoders for the platform sections of UEFI appendix N (memory,
 * PCIe, PCI, firmware reference, DMAr, CCIX, CXL) and the Linux pstore
 * sections, and the one table that maps a section type GUID to its
 * decoder. Processor sections live in cper-proc.c, struct mce in
 * cper-mce.c. Offsets in the comments are from the start of the section.
 */

#include <errno.h>
#include <string.h>

#include "cper-internal.h"
#include "utf8-util.h"
#include "zlib-util.h"

#define BIT(n) (UINT64_C(1) << (n))

/*
 * Platform Memory Error (N.2.5). 80 bytes since UEFI 2.3; the UEFI 2.1/2.2
 * layout ends after error_type at 73 bytes, and firmware writing 77 bytes
 * exists too: every field is read only if it lies inside the section.
 *	0 validation u64	8 error status u64	16 physical address u64
 *	24 address mask u64	32 node u16	34 card u16	36 module u16
 *	38 bank u16	40 device u16	42 row u16	44 column u16
 *	46 bit position u16	48 requestor id u64	56 responder id u64
 *	64 target id u64	72 error type u8	73 extended u8 (row bits
 *	16-17 in bits 0-1, chip id in bits 5-7)	74 rank u16
 *	76 card handle u16	78 module handle u16
 */
static const char *const mem_err_type_strs[] = {
	"unknown",
	"no error",
	"single-bit ECC",
	"multi-bit ECC",
	"single-symbol chipkill ECC",
	"multi-symbol chipkill ECC",
	"master abort",
	"target abort",
	"parity error",
	"watchdog timeout",
	"invalid address",
	"mirror Broken",
	"memory sparing",
	"scrub corrected error",
	"scrub uncorrected error",
	"physical memory map-out event",
};

/*
 * The fields both memory error sections start with, up to the bank; the bank
 * group and address validation bits are bank_bit and bank_bit + 1.
 */
static void decode_memory_head(const CperBuf *b, uint64_t v, unsigned bank_bit)
{
	CperCtx *c = b->ctx;
	uint64_t bank;

	cper_put_error_status(b, 8, v & BIT(0));
	cper_put_hex(b, "physical_address", 16, 8, v & BIT(1));
	cper_put_hex(b, "physical_address_mask", 24, 8, v & BIT(2));
	cper_put_uint(b, "node", 32, 2, v & BIT(3));
	cper_put_uint(b, "card", 34, 2, v & BIT(4));
	cper_put_uint(b, "module", 36, 2, v & BIT(5));
	cper_put_uint(b, "bank", 38, 2, v & BIT(6));
	if (cper_field(b, 38, 2, v & BIT(bank_bit), "bank_group", &bank))
		cper_emit_int(c, "bank_group", (int64_t)(bank >> 8));
	if (cper_field(b, 38, 2, v & BIT(bank_bit + 1), "bank_address", &bank))
		cper_emit_int(c, "bank_address", (int64_t)(bank & 0xff));
}

static void decode_memory(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0, ext = 0, row;

	if (!cper_section_begin(b, 73, "memory error section", &v))
		return;
	/* 80 bytes since UEFI 2.3, 73 in UEFI 2.1 and 2.2, anything else is neither. */
	const char *layout = b->len >= 80 ? "uefi-2.3" : b->len == 73 ? "uefi-2.1" : "nonstandard";
	cper_emit_string(c, "layout", layout);

	decode_memory_head(b, v, 19);
	cper_put_uint(b, "device", 40, 2, v & BIT(7));
	if (cper_field(b, 42, 2, v & (BIT(8) | BIT(18)), "row", &row)) {
		if (cper_field(b, 73, 1, v & BIT(18), "row_extension", &ext))
			row |= (ext & 0x3) << 16;
		cper_emit_int(c, "row", (int64_t)row);
	}
	cper_put_uint(b, "column", 44, 2, v & BIT(9));
	cper_put_uint(b, "bit_position", 46, 2, v & BIT(10));
	cper_put_hex(b, "requestor_id", 48, 8, v & BIT(11));
	cper_put_hex(b, "responder_id", 56, 8, v & BIT(12));
	cper_put_hex(b, "target_id", 64, 8, v & BIT(13));
	cper_put_enum(b, "error_type", 72, 1, v & BIT(14), mem_err_type_strs,
		      ARRAY_SIZE(mem_err_type_strs));
	cper_put_uint(b, "rank", 74, 2, v & BIT(15));
	cper_put_hex(b, "card_handle", 76, 2, v & BIT(16));
	cper_put_hex(b, "module_handle", 78, 2, v & BIT(17));
	if (cper_field(b, 73, 1, v & BIT(21), "chip_id", &ext))
		cper_emit_int(c, "chip_id", (int64_t)(ext >> 5));
}

/*
 * Memory Error Section 2 (N.2.6), 96 bytes:
 *	0 validation u64	8 error status u64	16 physical address u64
 *	24 address mask u64	32 node u16	34 card u16	36 module u16
 *	38 bank u16	40 device u32	44 row u32	48 column u32
 *	52 rank u32	56 bit position u32	60 chip id u8	61 error type u8
 *	62 status u8	63 reserved	64 requestor id u64	72 responder id u64
 *	80 target id u64	88 card handle u32	92 module handle u32
 */
static void decode_memory2(const CperBuf *b)
{
	uint64_t v = 0;

	if (!cper_section_begin(b, 96, "memory error 2 section", &v))
		return;
	decode_memory_head(b, v, 20);
	cper_put_uint(b, "device", 40, 4, v & BIT(7));
	cper_put_uint(b, "row", 44, 4, v & BIT(8));
	cper_put_uint(b, "column", 48, 4, v & BIT(9));
	cper_put_uint(b, "rank", 52, 4, v & BIT(10));
	cper_put_uint(b, "bit_position", 56, 4, v & BIT(11));
	cper_put_uint(b, "chip_id", 60, 1, v & BIT(12));
	cper_put_enum(b, "error_type", 61, 1, v & BIT(13), mem_err_type_strs,
		      ARRAY_SIZE(mem_err_type_strs));
	cper_put_hex(b, "status", 62, 1, v & BIT(14));
	cper_put_hex(b, "requestor_id", 64, 8, v & BIT(15));
	cper_put_hex(b, "responder_id", 72, 8, v & BIT(16));
	cper_put_hex(b, "target_id", 80, 8, v & BIT(17));
	cper_put_hex(b, "card_handle", 88, 4, v & BIT(18));
	cper_put_hex(b, "module_handle", 92, 4, v & BIT(19));
}

/*
 * PCI Express Error (N.2.7), 208 bytes:
 *	0 validation u64	8 port type u32	12 version: minor u8, major u8
 *	16 command u16	18 status u16	20 reserved u32
 *	24 device id: vendor u16, device u16, class code [3], function u8 (31),
 *	   device u8 (32), segment u16 (33), bus u8 (35), secondary bus u8 (36),
 *	   slot u16 (37, number in bits 3-15), reserved u8
 *	40 serial number lower u32, upper u32	48 bridge secondary status u16
 *	50 bridge control u16	52 capability structure [60]
 *	112 AER extended capability [96] (struct aer_capability_regs)
 */
static const char *const pcie_port_type_strs[] = {
	"PCIe end point",
	"legacy PCI end point",
	"unknown",
	"unknown",
	"root port",
	"upstream switch port",
	"downstream switch port",
	"PCIe to PCI/PCI-X bridge",
	"PCI/PCI-X to PCIe bridge",
	"root complex integrated endpoint device",
	"root complex event collector",
};

/* drivers/pci/pcie/aer.c: aer_correctable_error_string[] */
static const char *const aer_cor_strs[] = {
	[0] = "RxErr",	  [6] = "BadTLP",	[7] = "BadDLLP",     [8] = "Rollover",
	[12] = "Timeout", [13] = "NonFatalErr", [14] = "CorrIntErr", [15] = "HeaderOF",
};

/* drivers/pci/pcie/aer.c: aer_uncorrectable_error_string[] */
static const char *const aer_uncor_strs[] = {
	[0] = "Undefined",	[4] = "DLP",
	[5] = "SDES",		[12] = "TLP",
	[13] = "FCP",		[14] = "CmpltTO",
	[15] = "CmpltAbrt",	[16] = "UnxCmplt",
	[17] = "RxOF",		[18] = "MalfTLP",
	[19] = "ECRC",		[20] = "UnsupReq",
	[21] = "ACSViol",	[22] = "UncorrIntErr",
	[23] = "BlockedTLP",	[24] = "AtomicOpBlocked",
	[25] = "TLPBlockedErr", [26] = "PoisonTLPBlocked",
};

static void decode_aer(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v;

	/* struct aer_capability_regs: header, uncor status/mask/severity,
	 * cor status/mask, cap control, header log [4], root command/status,
	 * cor/uncor error source. */
	if (cper_field(b, 4, 4, true, "aer_uncor_status", &v))
		cper_put_bits(c, "aer_uncor_status", v, 4, aer_uncor_strs,
			      ARRAY_SIZE(aer_uncor_strs));
	cper_put_hex(b, "aer_uncor_mask", 8, 4, true);
	cper_put_hex(b, "aer_uncor_severity", 12, 4, true);
	if (cper_field(b, 16, 4, true, "aer_cor_status", &v))
		cper_put_bits(c, "aer_cor_status", v, 4, aer_cor_strs, ARRAY_SIZE(aer_cor_strs));
	cper_put_hex(b, "aer_cor_mask", 20, 4, true);
	cper_put_hex(b, "aer_cap_control", 24, 4, true);
	if (cper_buf_has(b, 28, 16)) {
		char tlp[40];
		snprintf(tlp, sizeof(tlp), "%08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32,
			 cper_le32(b->p + 28), cper_le32(b->p + 32), cper_le32(b->p + 36),
			 cper_le32(b->p + 40));
		cper_emit_string(c, "tlp_header", tlp);
	}
	cper_put_hex(b, "aer_root_command", 44, 4, true);
	cper_put_hex(b, "aer_root_status", 48, 4, true);
	cper_put_hex(b, "aer_cor_error_source", 52, 2, true);
	cper_put_hex(b, "aer_uncor_error_source", 54, 2, true);
}

static void decode_pcie(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0;
	char s[48];

	if (!cper_section_begin(b, 208, "PCIe error section", &v))
		return;
	cper_put_enum(b, "port_type", 8, 4, v & BIT(0), pcie_port_type_strs,
		      ARRAY_SIZE(pcie_port_type_strs));
	if ((v & BIT(1)) && cper_need(b, 14, "PCIe version")) {
		snprintf(s, sizeof(s), "%x.%x", b->p[13], b->p[12]);
		cper_emit_string(c, "version", s);
	}
	cper_put_hex(b, "command", 16, 2, v & BIT(2));
	cper_put_hex(b, "status", 18, 2, v & BIT(2));
	if ((v & BIT(3)) && cper_need(b, 40, "PCIe device id")) {
		const uint8_t *p = b->p;
		cper_emit_open_object(c, "device_id");
		snprintf(s, sizeof(s), "%04x:%02x:%02x.%x", cper_le16(p + 33), p[35], p[32], p[31]);
		cper_emit_string(c, "bdf", s);
		cper_emit_int(c, "segment", cper_le16(p + 33));
		cper_emit_int(c, "bus", p[35]);
		cper_emit_int(c, "device", p[32]);
		cper_emit_int(c, "function", p[31]);
		cper_emit_int(c, "slot", cper_le16(p + 37) >> 3);
		cper_emit_int(c, "secondary_bus", p[36]);
		cper_emit_hex(c, "vendor_id", cper_le16(p + 24), 2);
		cper_emit_hex(c, "device_id", cper_le16(p + 26), 2);
		snprintf(s, sizeof(s), "%02x%02x%02x", p[30], p[29], p[28]);
		cper_emit_string(c, "class_code", s);
		cper_emit_close(c);
	}
	cper_put_hex(b, "serial_number", 40, 8, v & BIT(4));
	cper_put_hex(b, "bridge_secondary_status", 48, 2, v & BIT(5));
	cper_put_hex(b, "bridge_control", 50, 2, v & BIT(5));
	if ((v & BIT(6)) && cper_need(b, 112, "PCIe capability structure"))
		cper_put_dump(b, "capability_dump", 52, 60);
	if ((v & BIT(7)) && cper_need(b, 208, "PCIe AER information")) {
		CperBuf ab = cper_buf_sub(b, 112, 96);
		cper_emit_open_object(c, "aer_info");
		decode_aer(&ab);
		cper_emit_close(c);
	}
}

/*
 * Firmware Error Record Reference (N.2.10):
 *	0 record type u8	1 revision u8	2 reserved [6]
 *	8 record identifier u64 (revision 0 and 2)
 *	16 record identifier GUID (revision 2 and later)
 * Firmware may append data, shown as a dump (as the kernel does).
 */
static const char *const fw_err_rec_type_strs[] = {
	"IPF SAL Error Record",
	"SOC Firmware Error Record Type1 (Legacy CrashLog Support)",
	"SOC Firmware Error Record Type2",
};

static void decode_fw_error(const CperBuf *b)
{
	size_t end;

	if (!cper_need(b, 16, "firmware error record reference section") && b->len < 2)
		return;
	cper_put_enum(b, "record_type", 0, 1, true, fw_err_rec_type_strs,
		      ARRAY_SIZE(fw_err_rec_type_strs));
	cper_put_uint(b, "revision", 1, 1, true);
	switch (b->p[1]) {
	case 0:
		cper_put_hex(b, "record_identifier", 8, 8, true);
		end = 16;
		break;
	case 1:
		end = 8;
		break;
	default:
		cper_put_hex(b, "record_identifier", 8, 8, true);
		cper_put_guid(b, "record_identifier_guid", 16, true);
		end = 32;
		break;
	}
	if (b->len > end)
		cper_put_dump(b, "data_dump", end, b->len - end);
}

/*
 * PCI/PCI-X Bus Error (N.2.8), 72 bytes:
 *	0 validation u64	8 error status u64	16 error type u16
 *	18 bus id u16 (bus number bits 0-7, segment bits 8-15)	20 reserved
 *	24 bus address u64	32 bus data u64	40 bus command u64 (bit 56:
 *	PCI-X command)	48 requestor id u64	56 completer id u64
 *	64 target id u64
 */
static const char *const pci_bus_err_type_strs[] = {
	"unknown or OEM system specific error",
	"data parity error",
	"system error",
	"master abort",
	"bus time out or retry limit exceeded",
	"master data parity error",
	"address parity error",
	"command parity error",
};

static void decode_pci_bus(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0, x;

	if (!cper_section_begin(b, 72, "PCI/PCI-X bus error section", &v))
		return;
	cper_put_error_status(b, 8, v & BIT(0));
	cper_put_enum(b, "error_type", 16, 2, v & BIT(1), pci_bus_err_type_strs,
		      ARRAY_SIZE(pci_bus_err_type_strs));
	if (cper_field(b, 18, 2, v & BIT(2), "bus_id", &x)) {
		cper_emit_int(c, "bus", (int64_t)(x & 0xff));
		cper_emit_int(c, "segment", (int64_t)(x >> 8));
	}
	cper_put_hex(b, "bus_address", 24, 8, v & BIT(3));
	cper_put_hex(b, "bus_data", 32, 8, v & BIT(4));
	if (cper_field(b, 40, 8, v & BIT(5), "bus_command", &x)) {
		cper_emit_hex(c, "bus_command", x, 8);
		cper_emit_string(c, "bus_command_type", x & BIT(56) ? "PCI-X" : "PCI");
	}
	cper_put_hex(b, "requestor_id", 48, 8, v & BIT(6));
	cper_put_hex(b, "completer_id", 56, 8, v & BIT(7));
	cper_put_hex(b, "target_id", 64, 8, v & BIT(8));
}

/*
 * PCI/PCI-X Component Error (N.2.9):
 *	0 validation u64	8 error status u64
 *	16 id: vendor u16, device u16, class code [3], function u8 (23),
 *	   device u8 (24), bus u8 (25), segment u8 (26), reserved [5]
 *	32 memory register count u32	36 I/O register count u32
 *	40 register pairs: (address u64, value u64) x (memory + I/O count)
 */
static void decode_pci_component(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0, n_mem = 0, n_io = 0;
	char s[32];

	if (!cper_section_begin(b, 40, "PCI component error section", &v))
		return;
	cper_put_error_status(b, 8, v & BIT(0));
	if ((v & BIT(1)) && cper_buf_has(b, 16, 16)) {
		const uint8_t *p = b->p;
		cper_emit_open_object(c, "device_id");
		snprintf(s, sizeof(s), "%04x:%02x:%02x.%x", p[26], p[25], p[24], p[23]);
		cper_emit_string(c, "bdf", s);
		cper_emit_hex(c, "vendor_id", cper_le16(p + 16), 2);
		cper_emit_hex(c, "device_id", cper_le16(p + 18), 2);
		snprintf(s, sizeof(s), "%02x%02x%02x", p[22], p[21], p[20]);
		cper_emit_string(c, "class_code", s);
		cper_emit_close(c);
	} else if (v & BIT(1))
		cper_error(c, b->base + 16,
			   "device_id: field marked valid lies past the end of "
			   "the structure");
	cper_field(b, 32, 4, v & BIT(2), "memory_register_count", &n_mem);
	cper_field(b, 36, 4, v & BIT(3), "io_register_count", &n_io);
	if (v & BIT(2))
		cper_emit_int(c, "memory_register_count", (int64_t)n_mem);
	if (v & BIT(3))
		cper_emit_int(c, "io_register_count", (int64_t)n_io);
	if (!(v & BIT(4)))
		return;

	uint64_t pairs = n_mem + n_io, fit = b->len > 40 ? (b->len - 40) / 16 : 0;
	if (pairs > fit) {
		cper_error(c, b->base + 32,
			   "%" PRIu64
			   " register pairs do not fit the %zu-byte section; decoding %" PRIu64,
			   pairs, b->len, fit);
		pairs = fit;
	}
	cper_emit_open_array(c, "registers");
	for (uint64_t i = 0; i < pairs; i++) {
		const uint8_t *p = b->p + 40 + 16 * i;
		cper_emit_open_object(c, NULL);
		cper_emit_string(c, "space", i < n_mem ? "memory" : "io");
		cper_emit_hex(c, "address", cper_le64(p), 8);
		cper_emit_hex(c, "value", cper_le64(p + 8), 8);
		cper_emit_close(c);
	}
	cper_emit_close(c);
}

/*
 * DMAr Generic Error (N.2.11.1), 32 bytes:
 *	0 requester id u16	2 segment u16	4 fault reason u8
 *	5 access type u8	6 address type u8	7 architecture type u8
 *	8 device address u64	16 reserved [16]
 */
static const char *const dmar_fault_strs[] = {
	[1] = "domain mapping table entry is not present",
	[2] = "invalid domain mapping table entry",
	[3] = "DMAr unit's attempt to access the domain mapping table resulted in an error",
	[4] = "reserved bit set to non-zero value in the domain mapping table",
	[5] = "DMA request to access an address beyond the device address width",
	[6] = "invalid read or write access",
	[7] = "invalid device request",
	[8] = "DMAr unit's attempt to access the address translation table resulted in an error",
	[9] = "reserved bit set to non-zero value in the address translation table",
	[10] = "illegal command",
	[11] = "DMAr unit's attempt to access the command buffer resulted in an error",
};

static void decode_dmar_generic(const CperBuf *b)
{
	static const char *const access_strs[] = {"read", "write"};
	static const char *const addr_strs[] = {"untranslated request", "translation request"};
	static const char *const arch_strs[] = {[1] = "VT-d", [2] = "IOMMU"};

	cper_need(b, 32, "DMAr generic error section");
	cper_put_hex(b, "requester_id", 0, 2, true);
	cper_put_uint(b, "segment", 2, 2, true);
	cper_put_enum(b, "fault_reason", 4, 1, true, dmar_fault_strs, ARRAY_SIZE(dmar_fault_strs));
	cper_put_enum(b, "access_type", 5, 1, true, access_strs, ARRAY_SIZE(access_strs));
	cper_put_enum(b, "address_type", 6, 1, true, addr_strs, ARRAY_SIZE(addr_strs));
	cper_put_enum(b, "architecture_type", 7, 1, true, arch_strs, ARRAY_SIZE(arch_strs));
	cper_put_hex(b, "device_address", 8, 8, true);
}

static void put_hex_list(const CperBuf *b, const char *name, size_t off, size_t n)
{
	cper_emit_open_array(b->ctx, name);
	for (size_t i = 0; i < n && cper_buf_has(b, off + 8 * i, 8); i++)
		cper_emit_hex(b->ctx, NULL, cper_le64(b->p + off + 8 * i), 8);
	cper_emit_close(b->ctx);
}

static void put_page_tables(const CperBuf *b, size_t off)
{
	static const char *const names[] = {"pte_l6", "pte_l5", "pte_l4",
					    "pte_l3", "pte_l2", "pte_l1"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		cper_put_hex(b, names[i], off + 8 * i, 8, true);
}

/*
 * Intel VT-d DMAr Error (N.2.11.2), 144 bytes:
 *	0 version u8	1 revision u8	2 OEM id [6]	8 capability u64
 *	16 extended capability u64	24 global command u32	28 global status u32
 *	32 fault status u32	36 reserved [12]	48 fault record [16]
 *	64 root entry [16]	80 context entry [16]	96 PTE L6..L1 u64 x 6
 */
static void decode_dmar_vtd(const CperBuf *b)
{
	cper_need(b, 144, "VT-d DMAr error section");
	cper_put_uint(b, "version", 0, 1, true);
	cper_put_uint(b, "revision", 1, 1, true);
	cper_put_text(b, "oem_id", 2, 6, true);
	cper_put_hex(b, "capability", 8, 8, true);
	cper_put_hex(b, "extended_capability", 16, 8, true);
	cper_put_hex(b, "global_command", 24, 4, true);
	cper_put_hex(b, "global_status", 28, 4, true);
	cper_put_hex(b, "fault_status", 32, 4, true);
	put_hex_list(b, "fault_record", 48, 2);
	put_hex_list(b, "root_entry", 64, 2);
	put_hex_list(b, "context_entry", 80, 2);
	put_page_tables(b, 96);
}

/*
 * IOMMU DMAr Error (N.2.11.3), 144 bytes:
 *	0 revision u8	1 reserved [7]	8 control u64	16 status u64
 *	24 reserved [8]	32 event log entry [16]	48 reserved [16]
 *	64 device table entry [32]	96 PTE L6..L1 u64 x 6
 */
static void decode_dmar_iommu(const CperBuf *b)
{
	cper_need(b, 144, "IOMMU DMAr error section");
	cper_put_uint(b, "revision", 0, 1, true);
	cper_put_hex(b, "control", 8, 8, true);
	cper_put_hex(b, "status", 16, 8, true);
	put_hex_list(b, "event_log_entry", 32, 2);
	put_hex_list(b, "device_table_entry", 64, 4);
	put_page_tables(b, 96);
}

/*
 * CCIX Protocol Error Record (N.2.12):
 *	0 length u32	4 validation u64	12 CCIX source id u8
 *	13 CCIX port id u8	14 reserved u16	16 CCIX PER log (length - 16)
 */
static void decode_ccix_per(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0, len = 0;

	cper_need(b, 16, "CCIX PER log section");
	if (!cper_field(b, 0, 4, true, "length", &len) ||
	    !cper_field(b, 4, 8, true, "validation_bits", &v))
		return;
	cper_emit_int(c, "length", (int64_t)len);
	cper_emit_hex(c, "validation_bits", v, 8);
	cper_put_uint(b, "ccix_source_id", 12, 1, v & BIT(0));
	cper_put_uint(b, "ccix_port_id", 13, 1, v & BIT(1));
	if (v & BIT(2)) {
		if (len < 16 || len > b->len)
			cper_error(c, b->base,
				   "CCIX PER log length %" PRIu64
				   " does not match the %zu-byte section",
				   len, b->len);
		size_t end = len >= 16 && len <= b->len ? len : b->len;
		cper_put_dump(b, "per_log_dump", 16, end > 16 ? end - 16 : 0);
	}
}

/*
 * CXL Protocol Error (N.2.13), 116 bytes then the DVSEC and the error log:
 *	0 validation u64	8 agent type u8	9 reserved [7]
 *	16 agent address: function u8, device u8, bus u8, segment u16 (BDF),
 *	   or the RCRB base address u64 for CXL 1.1 agents
 *	24 device id: vendor u16, device u16, subsystem vendor u16,
 *	   subsystem u16, class code u16, slot u16 (bits 3-15), reserved [4]
 *	40 serial number lower u32, upper u32	48 capability structure [60]
 *	108 DVSEC length u16	110 error log length u16	112 reserved [4]
 */
static const char *const cxl_agent_type_strs[] = {
	"CXL 1.1 device",
	"CXL 1.1 host downstream port",
	"CXL 2.0 device",
	"CXL 2.0 logical device",
	"CXL 2.0 fabric manager managed logical device",
	"CXL 2.0 root port",
	"CXL 2.0 downstream switch port",
	"CXL 2.0 upstream switch port",
};

static void decode_cxl_protocol(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0, agent = 0, dvsec = 0, elog = 0;
	char s[32];

	if (!cper_section_begin(b, 116, "CXL protocol error section", &v))
		return;
	bool have_agent = cper_field(b, 8, 1, v & BIT(0), "agent_type", &agent);
	if (have_agent)
		cper_put_enum_value(c, "agent_type", agent, cxl_agent_type_strs,
				    ARRAY_SIZE(cxl_agent_type_strs));
	if ((v & BIT(1)) && cper_need(b, 24, "CXL agent address")) {
		if (have_agent && agent <= 1)
			cper_put_hex(b, "rcrb_base_address", 16, 8, true);
		else {
			const uint8_t *p = b->p;
			snprintf(s, sizeof(s), "%04x:%02x:%02x.%x", cper_le16(p + 19), p[18], p[17],
				 p[16]);
			cper_emit_string(c, "agent_address", s);
		}
	}
	if ((v & BIT(2)) && cper_need(b, 40, "CXL device id")) {
		CperBuf ib = cper_buf_sub(b, 24, 16);
		cper_emit_open_object(c, "device_id");
		cper_put_hex(&ib, "vendor_id", 0, 2, true);
		cper_put_hex(&ib, "device_id", 2, 2, true);
		cper_put_hex(&ib, "subsystem_vendor_id", 4, 2, true);
		cper_put_hex(&ib, "subsystem_id", 6, 2, true);
		cper_put_hex(&ib, "class_code", 8, 2, true);
		cper_emit_int(c, "slot", cper_le16(ib.p + 10) >> 3);
		cper_emit_close(c);
	}
	cper_put_hex(b, "serial_number", 40, 8, v & BIT(3));
	if ((v & BIT(4)) && cper_need(b, 108, "CXL capability structure"))
		cper_put_dump(b, "capability_dump", 48, 60);
	if (!cper_field(b, 108, 2, true, "dvsec_length", &dvsec) ||
	    !cper_field(b, 110, 2, true, "error_log_length", &elog))
		return;
	cper_emit_int(c, "dvsec_length", (int64_t)dvsec);
	cper_emit_int(c, "error_log_length", (int64_t)elog);
	if ((v & (BIT(5) | BIT(6))) && 116 + dvsec + elog > b->len)
		cper_error(c, b->base + 108,
			   "DVSEC (%" PRIu64 " bytes) and error log (%" PRIu64
			   " bytes) run past the end of the %zu-byte section",
			   dvsec, elog, b->len);
	if (v & BIT(5))
		cper_put_dump(b, "dvsec_dump", 116, dvsec);
	if (v & BIT(6))
		cper_put_dump(b, "error_log_dump", 116 + dvsec, elog);
}

/*
 * CXL General Media and DRAM event records start their specific data with
 * the device physical address (bits 0-5: flags), memory event descriptor,
 * memory event type and transaction type.
 */
static void decode_cxl_media_event(const CperBuf *b)
{
	if (!cper_buf_has(b, 32 + 48, 11))
		return;
	CperBuf db = cper_buf_sub(b, 80, b->len - 80);
	uint64_t dpa = cper_le64(db.p);
	cper_emit_hex(b->ctx, "dpa", dpa & ~UINT64_C(0x3f), 8);
	cper_emit_hex(b->ctx, "dpa_flags", dpa & 0x3f, 1);
	cper_put_hex(&db, "descriptor", 8, 1, true);
	cper_put_uint(&db, "type", 9, 1, true);
	cper_put_uint(&db, "transaction_type", 10, 1, true);
}

/*
 * CXL Component Events (N.2.14):
 *	0 length u32	4 validation u64
 *	12 device id: vendor u16, device u16, function u8 (16), device u8 (17),
 *	   bus u8 (18), segment u16 (19), slot u16 (21), reserved u8
 *	24 serial number u64
 *	32 CXL component event log: the CXL 3.0 common event record header
 *	   (8.2.9.2.1): event class UUID [16], length u8, flags [3], handle u16,
 *	   related handle u16, timestamp u64 (ns), maintenance op class u8,
 *	   reserved [15]; then 80 bytes of event specific data.
 */
/* The event log of a component event section; media says it is a General Media or DRAM one. */
static void decode_cxl_event(const CperBuf *b, bool media)
{
	CperCtx *c = b->ctx;

	/* libcper's generated records hold a few bytes of event log, less than its header: shown
	 * raw, as libcper does; the section itself was read. */
	if (!cper_buf_has(b, 32, 48)) {
		size_t n = b->len > 32 ? b->len - 32 : 0;

		cper_note(c, b->base + 32,
			  "component event log: %zu bytes, shorter than the 48-byte event record "
			  "header; shown raw",
			  n);
		cper_put_dump(b, "event_log_dump", 32, n);
		return;
	}
	CperBuf eb = cper_buf_sub(b, 32, b->len - 32);
	if (eb.p[16] > eb.len)
		cper_error(c, eb.base + 16,
			   "component event record of %u bytes runs past the end of the section "
			   "(%zu bytes left)",
			   eb.p[16], eb.len);
	cper_emit_open_object(c, "event");
	cper_put_guid(&eb, "event_class", 0, true);
	cper_put_uint(&eb, "length", 16, 1, true);
	cper_put_hex(&eb, "flags", 17, 3, true);
	cper_put_hex(&eb, "handle", 20, 2, true);
	cper_put_hex(&eb, "related_handle", 22, 2, true);
	cper_put_uint(&eb, "timestamp_ns", 24, 8, true);
	cper_put_uint(&eb, "maintenance_operation_class", 32, 1, true);
	if (eb.len > 48)
		cper_put_dump(&eb, "data_dump", 48, eb.len - 48);
	if (media)
		decode_cxl_media_event(b);
	cper_emit_close(c);
}

static void decode_cxl_component_section(const CperBuf *b, bool media)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0, len = 0;
	char s[32];

	cper_need(b, 32, "CXL component event section");
	if (!cper_field(b, 0, 4, true, "length", &len) ||
	    !cper_field(b, 4, 8, true, "validation_bits", &v))
		return;
	cper_emit_int(c, "length", (int64_t)len);
	cper_emit_hex(c, "validation_bits", v, 8);
	if (len != b->len)
		cper_error(c, b->base,
			   "CXL component event length %" PRIu64
			   " differs from the %zu-byte section",
			   len, b->len);
	if ((v & BIT(0)) && cper_need(b, 24, "CXL device id")) {
		const uint8_t *p = b->p;
		cper_emit_open_object(c, "device_id");
		snprintf(s, sizeof(s), "%04x:%02x:%02x.%x", cper_le16(p + 19), p[18], p[17], p[16]);
		cper_emit_string(c, "bdf", s);
		cper_emit_hex(c, "vendor_id", cper_le16(p + 12), 2);
		cper_emit_hex(c, "device_id", cper_le16(p + 14), 2);
		cper_emit_int(c, "slot", cper_le16(p + 21) >> 3);
		cper_emit_close(c);
	}
	cper_put_hex(b, "serial_number", 24, 8, v & BIT(1));
	if (v & BIT(2))
		decode_cxl_event(b, media);
}

static void decode_cxl_component(const CperBuf *b)
{
	decode_cxl_component_section(b, false);
}

static void decode_cxl_media(const CperBuf *b)
{
	decode_cxl_component_section(b, true);
}

/*
 * Linux pstore sections (drivers/acpi/apei/erst.c): the kernel log as
 * text, or deflate-compressed. The text is kept as it is, except for bytes
 * that are not valid UTF-8 (shown as U+FFFD) and NULs (dropped).
 */
static void put_log_text(CperCtx *c, const void *p, size_t n)
{
	size_t len;
	_cleanup_free_ char *s = utf8_sanitize(p, n, &len);

	if (!s)
		c->oom = true;
	else
		cper_emit_stringn(c, "text", s, len);
}

static void decode_dmesg(const CperBuf *b)
{
	put_log_text(b->ctx, b->p, b->len);
}

static void decode_dmesg_z(const CperBuf *b)
{
	_cleanup_free_ void *out = NULL;
	size_t out_len;
	int r;

	cper_emit_int(b->ctx, "compressed_length", (int64_t)b->len);
	/* What it inflates to counts against the decoding budget of the whole buffer: a record
	 * whose sections all point at one blob inflates it once per section. */
	r = zlib_inflate_buffer_head(b->p, b->len, b->ctx->budget, &out, &out_len);
	if (r == -ENOMEM) {
		b->ctx->oom = true;
		return;
	}
	if (r < 0) {
		cper_error(b->ctx, b->base,
			   "compressed dmesg: corrupt deflate data; shown as a dump");
		cper_put_dump(b, "data_dump", 0, b->len);
		return;
	}
	if (r > 0) {
		cper_error(b->ctx, b->base,
			   "compressed dmesg: inflates to more than the %zu bytes left of the "
			   "decoding "
			   "budget; its first %zu bytes shown",
			   b->ctx->budget, out_len);
		b->ctx->spent = true;
	}
	b->ctx->budget -= out_len;
	put_log_text(b->ctx, out, out_len);
}

static void decode_ipf(const CperBuf *b)
{
	/* Itanium SAL error records: shown as they are. */
	cper_put_dump(b, "data_dump", 0, b->len);
}

static const CperSectionType section_types[] = {
	{CPER_GUID(0x9876ccad, 0x47b4, 0x4bdb, 0xb6, 0x5e, 0x16, 0xf1, 0x93, 0xc4, 0xf3, 0xdb),
	 "general processor error", cper_decode_proc_generic},
	{CPER_GUID(0xdc3ea0b0, 0xa144, 0x4797, 0xb9, 0x5b, 0x53, 0xfa, 0x24, 0x2b, 0x6e, 0x1d),
	 "IA32/X64 processor error", cper_decode_proc_ia},
	{CPER_GUID(0xe429faf1, 0x3cb7, 0x11d4, 0xbc, 0xa7, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81),
	 "IPF processor error", decode_ipf},
	{CPER_GUID(0xe19e3d16, 0xbc11, 0x11e4, 0x9c, 0xaa, 0xc2, 0x05, 0x1d, 0x5d, 0x46, 0xb0),
	 "ARM processor error", cper_decode_proc_arm},
	{CPER_GUID(0xa5bc1114, 0x6f64, 0x4ede, 0xb8, 0x63, 0x3e, 0x83, 0xed, 0x7c, 0x83, 0xb1),
	 "memory error", decode_memory},
	{CPER_GUID(0x61ec04fc, 0x48e6, 0xd813, 0x25, 0xc9, 0x8d, 0xaa, 0x44, 0x75, 0x0b, 0x12),
	 "memory error 2", decode_memory2},
	{CPER_GUID(0xd995e954, 0xbbc1, 0x430f, 0xad, 0x91, 0xb4, 0x4d, 0xcb, 0x3c, 0x6f, 0x35),
	 "PCIe error", decode_pcie},
	{CPER_GUID(0x81212a96, 0x09ed, 0x4996, 0x94, 0x71, 0x8d, 0x72, 0x9c, 0x8e, 0x69, 0xed),
	 "Firmware Error Record Reference", decode_fw_error},
	{CPER_GUID(0xc5753963, 0x3b84, 0x4095, 0xbf, 0x78, 0xed, 0xda, 0xd3, 0xf9, 0xc9, 0xdd),
	 "PCI/PCI-X bus error", decode_pci_bus},
	{CPER_GUID(0xeb5e4685, 0xca66, 0x4769, 0xb6, 0xa2, 0x26, 0x06, 0x8b, 0x00, 0x13, 0x26),
	 "PCI component/device error", decode_pci_component},
	{CPER_GUID(0x5b51fef7, 0xc79d, 0x4434, 0x8f, 0x1b, 0xaa, 0x62, 0xde, 0x3e, 0x2c, 0x64),
	 "DMAr generic error", decode_dmar_generic},
	{CPER_GUID(0x71761d37, 0x32b2, 0x45cd, 0xa7, 0xd0, 0xb0, 0xfe, 0xdd, 0x93, 0xe8, 0xcf),
	 "Intel VT-d DMAr error", decode_dmar_vtd},
	{CPER_GUID(0x036f84e1, 0x7f37, 0x428c, 0xa7, 0x9e, 0x57, 0x5f, 0xdf, 0xaa, 0x84, 0xec),
	 "IOMMU DMAr error", decode_dmar_iommu},
	{CPER_GUID(0x91335ef6, 0xebfb, 0x4478, 0xa6, 0xa6, 0x88, 0xb7, 0x28, 0xcf, 0x75, 0xd7),
	 "CCIX PER log", decode_ccix_per},
	{CPER_GUID(0x80b9efb4, 0x52b5, 0x4de3, 0xa7, 0x77, 0x68, 0x78, 0x4b, 0x77, 0x10, 0x48),
	 "CXL Protocol Error", decode_cxl_protocol},
	{CPER_GUID(0xfbcd0a77, 0xc260, 0x417f, 0x85, 0xa9, 0x08, 0x8b, 0x16, 0x21, 0xeb, 0xa6),
	 "CXL General Media Event", decode_cxl_media},
	{CPER_GUID(0x601dcbb3, 0x9c06, 0x4eab, 0xb8, 0xaf, 0x4e, 0x9b, 0xfb, 0x5c, 0x96, 0x24),
	 "CXL DRAM Event", decode_cxl_media},
	{CPER_GUID(0xfe927475, 0xdd59, 0x4339, 0xa5, 0x86, 0x79, 0xba, 0xb1, 0x13, 0xb7, 0x74),
	 "CXL Memory Module Event", decode_cxl_component},
	{CPER_GUID(0x77cf9271, 0x9c02, 0x470b, 0x9f, 0xe4, 0xbc, 0x7b, 0x75, 0xf2, 0xda, 0x97),
	 "CXL Physical Switch Event", decode_cxl_component},
	{CPER_GUID(0x40d26425, 0x3396, 0x4c4d, 0xa5, 0xda, 0x3d, 0x47, 0x26, 0x3a, 0xf4, 0x25),
	 "CXL Virtual Switch Event", decode_cxl_component},
	{CPER_GUID(0x8dc44363, 0x0c96, 0x4710, 0xb7, 0xbf, 0x04, 0xbb, 0x99, 0x53, 0x4c, 0x3f),
	 "CXL MLD Port Event", decode_cxl_component},
	{CPER_GUID(0xc197e04e, 0xd545, 0x4a70, 0x9c, 0x17, 0xa5, 0x54, 0x94, 0x19, 0xeb, 0x12),
	 "Linux pstore dmesg", decode_dmesg},
	{CPER_GUID(0x4f118707, 0x04dd, 0x4055, 0xb5, 0xdd, 0x95, 0x6d, 0x34, 0xdd, 0xfa, 0xc6),
	 "Linux pstore dmesg (deflate compressed)", decode_dmesg_z},
	{CPER_GUID(0xfe08ffbe, 0x95e4, 0x4be7, 0xbc, 0x73, 0x40, 0x96, 0x04, 0x4a, 0x38, 0xfc),
	 "Linux x86 machine check", cper_decode_mce},
};

const CperSectionType *cper_section_type_find(const uint8_t *guid)
{
	for (size_t i = 0; i < ARRAY_SIZE(section_types); i++)
		if (memcmp(section_types[i].guid, guid, 16) == 0)
			return &section_types[i];
	return NULL;
}

static const struct {
	uint8_t guid[16];
	const char *name;
} guid_names[] = {
	{CPER_GUID(0x75a574e3, 0x5052, 0x4b29, 0x8a, 0x8e, 0xbe, 0x2c, 0x64, 0x90, 0xb8, 0x9d),
	 "Linux pstore/MCE"},
	{CPER_GUID(0xcf07c4bd, 0xb789, 0x4e18, 0xb3, 0xc4, 0x1f, 0x73, 0x2c, 0xb5, 0x71, 0x31),
	 "Microsoft WHEA"},
	{CPER_GUID(0x2dce8bb1, 0xbdd7, 0x450e, 0xb9, 0xad, 0x9c, 0xf4, 0xeb, 0xd4, 0xf8, 0x90),
	 "CMC"},
	{CPER_GUID(0x4e292f96, 0xd843, 0x4a55, 0xa8, 0xc2, 0xd4, 0x81, 0xf2, 0x7e, 0xbe, 0xee),
	 "CPE"},
	{CPER_GUID(0xe8f56ffe, 0x919c, 0x4cc5, 0xba, 0x88, 0x65, 0xab, 0xe1, 0x49, 0x13, 0xbb),
	 "MCE"},
	{CPER_GUID(0xcf93c01f, 0x1a16, 0x4dfc, 0xb8, 0xbc, 0x9c, 0x4d, 0xaf, 0x67, 0xc1, 0x04),
	 "PCIe"},
	{CPER_GUID(0xcc5263e8, 0x9308, 0x454a, 0x89, 0xd0, 0x34, 0x0b, 0xd3, 0x9b, 0xc9, 0x8e),
	 "INIT"},
	{CPER_GUID(0x5bad89ff, 0xb7e6, 0x42c9, 0x81, 0x4a, 0xcf, 0x24, 0x85, 0xd6, 0xe9, 0x8a),
	 "NMI"},
	{CPER_GUID(0x3d61a466, 0xab40, 0x409a, 0xa6, 0x98, 0xf3, 0x62, 0xd4, 0x64, 0xb3, 0x8f),
	 "BOOT"},
	{CPER_GUID(0x667dd791, 0xc6b3, 0x4c27, 0x8a, 0x6b, 0x0f, 0x8e, 0x72, 0x2d, 0xeb, 0x41),
	 "DMAr"},
	{CPER_GUID(0x9a78788a, 0xbbe8, 0x11e4, 0x80, 0x9e, 0x67, 0x61, 0x1e, 0x5d, 0x46, 0xb0),
	 "SEA"},
	{CPER_GUID(0x5c284c81, 0xb0ae, 0x4e87, 0xa3, 0x22, 0xb0, 0x4c, 0x85, 0x62, 0x43, 0x23),
	 "SEI"},
	{CPER_GUID(0x09a9d5ac, 0x5204, 0x4214, 0x96, 0xe5, 0x94, 0x99, 0x2e, 0x75, 0x2b, 0xcd),
	 "PEI"},
	{CPER_GUID(0x69293bc9, 0x41df, 0x49a3, 0xb4, 0xbd, 0x4f, 0xb0, 0xdb, 0x30, 0x41, 0xf6),
	 "CXL"},
};

const char *cper_guid_name(const uint8_t *guid)
{
	for (size_t i = 0; i < ARRAY_SIZE(guid_names); i++)
		if (memcmp(guid_names[i].guid, guid, 16) == 0)
			return guid_names[i].name;
	return NULL;
}
