// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "cper-builder.h"
#include "cper-samples.h"

#define V(all_valid, bits) ((all_valid) ? (bits) : 0)

static size_t proc_generic(uint8_t *o, bool all)
{
	memset(o, 0, 192);
	put_le(o, V(all, 0x1fff), 8);
	o[8] = 0;    /* IA32/X64 */
	o[9] = 2;    /* X64 */
	o[10] = 0x1; /* cache error */
	o[11] = 1;   /* data read */
	o[12] = 0x9; /* restartable, corrected */
	o[13] = 2;
	put_le(o + 16, 0x306c3, 8);
	memcpy(o + 24, "Intel(R) Xeon(R) CPU    ", 24);
	put_le(o + 152, 0x22, 8);
	put_le(o + 160, 0x1000, 8);
	put_le(o + 168, 0x11, 8);
	put_le(o + 176, 0x12, 8);
	put_le(o + 184, 0xffffffff81234567, 8);
	return 192;
}

static size_t proc_ia(uint8_t *o, bool all)
{
	memset(o, 0, 224);
	/* LAPIC id, CPUID, two error structures, one context structure */
	put_le(o, V(all, 0x1 | 0x2 | 2 << 2 | 1 << 8), 8);
	put_le(o + 8, 0x22, 8);
	for (int i = 0; i < 48; i++)
		o[16 + i] = (uint8_t)i;

	guid_parse(GUID_IA_CACHE, o + 64);
	put_le(o + 80, 0x1f, 8);
	/* valid 0xff; data access, data read, level 1, uncorrected */
	put_le(o + 88, 0xff | 1 << 16 | 3 << 18 | 1 << 22 | 1 << 26, 8);
	put_le(o + 96, 0x1000, 8);
	put_le(o + 104, 0x11, 8);
	put_le(o + 112, 0x12, 8);
	put_le(o + 120, 0xffffffff81000000, 8);

	guid_parse(GUID_IA_BUS, o + 128);
	put_le(o + 144, 0x1, 8);
	/* valid 0x7ff; generic, generic read, level 3, PCC, overflow, responded, timeout, I/O */
	put_le(o + 152,
	       0x7ff | 2 << 16 | 1 << 18 | 3 << 22 | 1 << 25 | 1 << 29 | UINT64_C(1) << 30 |
		       UINT64_C(1) << 32 | UINT64_C(2) << 33,
	       8);

	put_le(o + 192, 1, 2); /* MSR context */
	put_le(o + 194, 16, 2);
	put_le(o + 196, 0x179, 4);
	memset(o + 208, 0xaa, 16);
	return 224;
}

static size_t proc_arm(uint8_t *o, bool all)
{
	memset(o, 0, 112);
	put_le(o, V(all, 0xf), 4);
	put_le(o + 4, 1, 2);
	put_le(o + 6, 1, 2);
	put_le(o + 8, 112, 4);
	o[12] = 2;
	put_le(o + 16, 0x80000001, 8);
	put_le(o + 24, 0x410fd0c0, 8);
	put_le(o + 32, 1, 4);

	uint8_t *e = o + 40;
	e[0] = 1;
	e[1] = 32;
	put_le(e + 2, V(all, 0x1f), 2);
	e[4] = 0x2; /* cache error (UEFI 2.10 bit 1) */
	put_le(e + 5, 3, 2);
	e[7] = 0x3; /* first, last */
	/* valid 0x7f; data access, data read, level 1, corrected, precise, restartable */
	put_le(e + 8, 0x7f | 1 << 16 | 3 << 18 | 1 << 22 | 1 << 26 | 1 << 27 | 1 << 28, 8);
	put_le(e + 16, 0xffff000012345678, 8);
	put_le(e + 24, 0x80001000, 8);

	uint8_t *c = o + 72;
	put_le(c + 2, 5, 2); /* AArch64 EL1 */
	put_le(c + 4, 16, 4);
	memset(c + 8, 0x11, 16); /* 24 bytes, padded to 32 */
	memset(o + 104, 0xee, 8);
	return 112;
}

static void memory_common(uint8_t *o, uint64_t valid)
{
	put_le(o, valid, 8);
	put_le(o + 8, 4 << 8 | 1 << 18, 8); /* DRAM storage error, data signal */
	put_le(o + 16, 0x12345000, 8);
	put_le(o + 24, 0xfffffffffffff000, 8);
	put_le(o + 32, 1, 2);
	put_le(o + 34, 2, 2);
	put_le(o + 36, 3, 2);
	put_le(o + 38, 0x0205, 2); /* bank group 2, bank address 5 */
	put_le(o + 40, 4, 2);
	put_le(o + 42, 0x1234, 2);
	put_le(o + 44, 0x56, 2);
	put_le(o + 46, 7, 2);
	put_le(o + 48, 0x11, 8);
	put_le(o + 56, 0x12, 8);
	put_le(o + 64, 0x13, 8);
	o[72] = 2; /* single-bit ECC */
}

static size_t memory(uint8_t *o, bool all)
{
	memset(o, 0, 80);
	memory_common(o, V(all, 0x3fffff));
	o[73] = 0x1 | 3 << 5; /* row bit 16, chip id 3 */
	put_le(o + 74, 1, 2);
	put_le(o + 76, 0x10, 2);
	put_le(o + 78, 0x20, 2);
	return 80;
}

/* UEFI 2.1/2.2: ends after the error type. */
static size_t memory_uefi_2_1(uint8_t *o, bool all)
{
	memset(o, 0, 73);
	memory_common(o, V(all, 0x7fff));
	return 73;
}

/* 77 bytes: the extended byte and the rank, but no handles. */
static size_t memory_77(uint8_t *o, bool all)
{
	memset(o, 0, 77);
	memory_common(o, V(all, 0xffff));
	put_le(o + 74, 1, 2);
	return 77;
}

static size_t memory2(uint8_t *o, bool all)
{
	memset(o, 0, 96);
	put_le(o, V(all, 0x3fffff), 8);
	put_le(o + 8, 4 << 8 | 1 << 18, 8);
	put_le(o + 16, 0x12345000, 8);
	put_le(o + 24, 0xfffffffffffff000, 8);
	put_le(o + 32, 1, 2);
	put_le(o + 34, 2, 2);
	put_le(o + 36, 3, 2);
	put_le(o + 38, 0x0205, 2);
	put_le(o + 40, 4, 4);
	put_le(o + 44, 0x12345, 4);
	put_le(o + 48, 0x56, 4);
	put_le(o + 52, 1, 4);
	put_le(o + 56, 7, 4);
	o[60] = 3;
	o[61] = 3; /* multi-bit ECC */
	o[62] = 1;
	put_le(o + 64, 0x11, 8);
	put_le(o + 72, 0x12, 8);
	put_le(o + 80, 0x13, 8);
	put_le(o + 88, 0x10, 4);
	put_le(o + 92, 0x20, 4);
	return 96;
}

static size_t pcie(uint8_t *o, bool all)
{
	memset(o, 0, 208);
	put_le(o, V(all, 0xff), 8);
	put_le(o + 8, 4, 4); /* root port */
	o[12] = 0x1;	     /* version 4.1 */
	o[13] = 0x4;
	put_le(o + 16, 0x0547, 2);
	put_le(o + 18, 0x0010, 2);
	put_le(o + 24, 0x8086, 2);
	put_le(o + 26, 0x2030, 2);
	o[28] = 0x00, o[29] = 0x04, o[30] = 0x06; /* class 060400: PCI bridge */
	o[31] = 1;				  /* function */
	o[32] = 2;				  /* device */
	put_le(o + 33, 0, 2);			  /* segment */
	o[35] = 0x3a;				  /* bus */
	o[36] = 0x3b;				  /* secondary bus */
	put_le(o + 37, 5 << 3, 2);		  /* slot 5 */
	put_le(o + 40, 0x11223344, 4);
	put_le(o + 44, 0x55667788, 4);
	put_le(o + 48, 0x1234, 2);
	put_le(o + 50, 0x0003, 2);
	for (int i = 0; i < 60; i++)
		o[52 + i] = (uint8_t)i;
	uint8_t *a = o + 112; /* struct aer_capability_regs */
	put_le(a, 0x14820001, 4);
	put_le(a + 4, 0x00100000, 4); /* UnsupReq */
	put_le(a + 12, 0x00462030, 4);
	put_le(a + 16, 0x1, 4); /* RxErr */
	put_le(a + 20, 0x2000, 4);
	put_le(a + 24, 0xa0, 4);
	put_le(a + 28, 0x40000001, 4);
	put_le(a + 32, 0x0000000f, 4);
	put_le(a + 36, 0xfee00000, 4);
	put_le(a + 54, 0x3a00, 2);
	return 208;
}

static size_t fw_error(uint8_t *o, bool all)
{
	memset(o, 0, 32);
	o[0] = 2;
	o[1] = 2;
	put_le(o + 8, 0x1122334455667788, 8);
	guid_parse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", o + 16);
	return 32;
}

static size_t pci_bus(uint8_t *o, bool all)
{
	memset(o, 0, 72);
	put_le(o, V(all, 0x1ff), 8);
	put_le(o + 8, 16 << 8 | 1 << 16 | 1 << 20, 8); /* bus error: address, by requester */
	put_le(o + 16, 3, 2);			       /* master abort */
	put_le(o + 18, 0x0105, 2);		       /* segment 1, bus 5 */
	put_le(o + 24, 0xfed00000, 8);
	put_le(o + 32, 0xdeadbeef, 8);
	put_le(o + 40, 0x0100000000000006, 8); /* PCI-X */
	put_le(o + 48, 0x11, 8);
	put_le(o + 56, 0x12, 8);
	put_le(o + 64, 0x13, 8);
	return 72;
}

static size_t pci_component(uint8_t *o, bool all)
{
	memset(o, 0, 72);
	put_le(o, V(all, 0x1f), 8);
	put_le(o + 8, 1 << 8, 8);
	put_le(o + 16, 0x10de, 2);
	put_le(o + 18, 0x1eb8, 2);
	o[20] = 0x00, o[21] = 0x02, o[22] = 0x03; /* class 030200 */
	o[23] = 0;				  /* function */
	o[24] = 0x1c;				  /* device */
	o[25] = 0x3b;				  /* bus */
	o[26] = 0;				  /* segment */
	put_le(o + 32, 1, 4);
	put_le(o + 36, 1, 4);
	put_le(o + 40, 0xf0000000, 8);
	put_le(o + 48, 1, 8);
	put_le(o + 56, 0x3f8, 8);
	put_le(o + 64, 2, 8);
	return 72;
}

static size_t dmar_generic(uint8_t *o, bool all)
{
	memset(o, 0, 32);
	put_le(o, 0x00e8, 2);
	put_le(o + 2, 1, 2);
	o[4] = 5; /* beyond the device address width */
	o[5] = 1; /* write */
	o[6] = 0; /* untranslated */
	o[7] = 1; /* VT-d */
	put_le(o + 8, 0xfffff000, 8);
	return 32;
}

static void page_tables(uint8_t *o)
{
	put_le(o + 16, 0x34560003, 8);
	put_le(o + 24, 0x45670003, 8);
	put_le(o + 32, 0x56780003, 8);
	put_le(o + 40, 0x67890003, 8);
}

static size_t dmar_vtd(uint8_t *o, bool all)
{
	memset(o, 0, 144);
	o[0] = 1;
	memcpy(o + 2, "INTEL ", 6);
	put_le(o + 8, 0x00d2008c40660462, 8);
	put_le(o + 16, 0xf050da, 8);
	put_le(o + 24, 0xc0000000, 4);
	put_le(o + 28, 0xc0000000, 4);
	put_le(o + 32, 2, 4);
	put_le(o + 48, 0x12345000, 8);
	put_le(o + 56, 0x8000000500e80000, 8);
	put_le(o + 64, 0x12340001, 8);
	put_le(o + 80, 0x23450001, 8);
	put_le(o + 88, 0x102, 8);
	page_tables(o + 96);
	return 144;
}

static size_t dmar_iommu(uint8_t *o, bool all)
{
	memset(o, 0, 144);
	o[0] = 1;
	put_le(o + 8, 0xf05, 8);
	put_le(o + 16, 1, 8);
	put_le(o + 32, 0x0000000200000010, 8);
	put_le(o + 40, 0xfffff000, 8);
	for (int i = 0; i < 4; i++)
		put_le(o + 64 + 8 * i, (uint64_t)i + 1, 8);
	page_tables(o + 96);
	return 144;
}

static size_t ccix_per(uint8_t *o, bool all)
{
	memset(o, 0, 24);
	put_le(o, 24, 4);
	put_le(o + 4, V(all, 0x7), 8);
	o[12] = 3;
	o[13] = 1;
	for (int i = 0; i < 8; i++)
		o[16 + i] = (uint8_t)(i + 1);
	return 24;
}

static size_t cxl_protocol(uint8_t *o, bool all)
{
	memset(o, 0, 132);
	put_le(o, V(all, 0x7f), 8);
	o[8] = 2;     /* CXL 2.0 device */
	o[18] = 0x0c; /* bus */
	put_le(o + 24, 0x8086, 2);
	put_le(o + 26, 0x0d93, 2);
	put_le(o + 28, 0x8086, 2);
	put_le(o + 30, 0x0001, 2);
	put_le(o + 32, 0x0502, 2);
	put_le(o + 34, 3 << 3, 2);
	put_le(o + 40, 0x01020304, 4);
	put_le(o + 44, 0x05060708, 4);
	memset(o + 48, 0x5a, 60);
	put_le(o + 108, 8, 2);
	put_le(o + 110, 8, 2);
	memset(o + 116, 0x11, 8);
	memset(o + 124, 0x22, 8);
	return 132;
}

static size_t cxl_event(uint8_t *o, bool all, const char *guid, bool media)
{
	memset(o, 0, 160);
	put_le(o, 160, 4);
	put_le(o + 4, V(all, 0x7), 8);
	put_le(o + 12, 0x8086, 2);
	put_le(o + 14, 0x0d93, 2);
	o[18] = 0x0d; /* bus */
	put_le(o + 21, 3 << 3, 2);
	put_le(o + 24, 0x1122334455667788, 8);
	uint8_t *e = o + 32; /* CXL common event record */
	guid_parse(guid, e);
	e[16] = 128;
	e[17] = 1;
	put_le(e + 20, 1, 2);
	put_le(e + 24, 1700000000000000000, 8);
	if (media) {
		put_le(e + 48, 0x12345000 | 0x2, 8);
		e[56] = 1;
		e[58] = 2;
	}
	return 160;
}

static size_t cxl_general_media(uint8_t *o, bool all)
{
	return cxl_event(o, all, GUID_CXL_GEN_MEDIA, true);
}

static size_t cxl_dram(uint8_t *o, bool all)
{
	return cxl_event(o, all, GUID_CXL_DRAM, true);
}

static size_t cxl_memory_module(uint8_t *o, bool all)
{
	return cxl_event(o, all, GUID_CXL_MEM_MODULE, false);
}

static size_t cxl_physical_switch(uint8_t *o, bool all)
{
	return cxl_event(o, all, GUID_CXL_PHYS_SWITCH, false);
}

static size_t cxl_virtual_switch(uint8_t *o, bool all)
{
	return cxl_event(o, all, GUID_CXL_VIRT_SWITCH, false);
}

static size_t cxl_mld_port(uint8_t *o, bool all)
{
	return cxl_event(o, all, GUID_CXL_MLD_PORT, false);
}

static size_t ipf(uint8_t *o, bool all)
{
	for (int i = 0; i < 8; i++)
		o[i] = (uint8_t)(i + 1);
	return 8;
}

static size_t dmesg(uint8_t *o, bool all)
{
	static const char log[] = "Oops#1 Part1\n<1>[    3.141592] BUG: kernel NULL pointer "
				  "dereference, address: 0000000000000000\n";
	memcpy(o, log, sizeof(log) - 1);
	return sizeof(log) - 1;
}

const CperSample cper_samples[] = {
	{"proc-generic", GUID_PROC_GENERIC, "general processor error", proc_generic},
	{"proc-ia", GUID_PROC_IA, "IA32/X64 processor error", proc_ia},
	{"proc-arm", GUID_PROC_ARM, "ARM processor error", proc_arm},
	{"ipf", GUID_PROC_IPF, "IPF processor error", ipf},
	{"memory", GUID_MEMORY, "memory error", memory},
	{"memory-uefi-2-1", GUID_MEMORY, "memory error", memory_uefi_2_1},
	{"memory-77", GUID_MEMORY, "memory error", memory_77},
	{"memory2", GUID_MEMORY2, "memory error 2", memory2},
	{"pcie", GUID_PCIE, "PCIe error", pcie},
	{"fw-error", GUID_FW_ERROR, "Firmware Error Record Reference", fw_error},
	{"pci-bus", GUID_PCI_BUS, "PCI/PCI-X bus error", pci_bus},
	{"pci-component", GUID_PCI_DEV, "PCI component/device error", pci_component},
	{"dmar-generic", GUID_DMAR_GENERIC, "DMAr generic error", dmar_generic},
	{"dmar-vtd", GUID_DMAR_VTD, "Intel VT-d DMAr error", dmar_vtd},
	{"dmar-iommu", GUID_DMAR_IOMMU, "IOMMU DMAr error", dmar_iommu},
	{"ccix-per", GUID_CCIX_PER, "CCIX PER log", ccix_per},
	{"cxl-protocol", GUID_CXL_PROTOCOL, "CXL Protocol Error", cxl_protocol},
	{"cxl-general-media", GUID_CXL_GEN_MEDIA, "CXL General Media Event", cxl_general_media},
	{"cxl-dram", GUID_CXL_DRAM, "CXL DRAM Event", cxl_dram},
	{"cxl-memory-module", GUID_CXL_MEM_MODULE, "CXL Memory Module Event", cxl_memory_module},
	{"cxl-physical-switch", GUID_CXL_PHYS_SWITCH, "CXL Physical Switch Event",
	 cxl_physical_switch},
	{"cxl-virtual-switch", GUID_CXL_VIRT_SWITCH, "CXL Virtual Switch Event",
	 cxl_virtual_switch},
	{"cxl-mld-port", GUID_CXL_MLD_PORT, "CXL MLD Port Event", cxl_mld_port},
	{"dmesg", GUID_DMESG, "Linux pstore dmesg", dmesg},
};

const size_t cper_n_samples = sizeof(cper_samples) / sizeof(cper_samples[0]);

void cper_sample_mce(uint8_t m[128])
{
	memset(m, 0, 128);
	put_le(m + 0, 0xbe00000000800092, 8); /* VAL UC EN MISCV ADDRV PCC; memory read, ch 2 */
	put_le(m + 8, 0x86, 8);
	put_le(m + 16, 0x12345000, 8);
	put_le(m + 24, 0x5, 8); /* RIPV, MCIP */
	put_le(m + 32, 0xffffffff81000000, 8);
	put_le(m + 40, 123456789, 8);
	put_le(m + 48, 1700000000, 8);
	put_le(m + 60, 0x000306c3, 4);
	m[64] = 0x10;
	m[65] = 4;
	put_le(m + 68, 2, 4);
	put_le(m + 72, 1, 4);
	put_le(m + 76, 0x22, 4);
	put_le(m + 80, 0x1c09, 8);
	put_le(m + 112, 0x28, 4);
}

size_t cper_sample_cxl_short_event_log(uint8_t o[CPER_SAMPLE_CXL_SHORT_LOG_LEN])
{
	static const uint8_t event_log[19] = {
		0x0e, 0x75, 0x94, 0x92, 0x08, 0x93, 0xe2, 0x31, 0x6e, 0x6d,
		0x2e, 0xab, 0x10, 0x95, 0x89, 0xff, 0x3e, 0x14, 0x01,
	};

	memset(o, 0, CPER_SAMPLE_CXL_SHORT_LOG_LEN);
	put_le(o, CPER_SAMPLE_CXL_SHORT_LOG_LEN, 4);
	put_le(o + 4, 0x5, 8); /* device id, event log; no serial number */
	put_le(o + 12, 54846, 2);
	put_le(o + 14, 8598, 2);
	o[16] = 241; /* function */
	o[17] = 15;  /* device */
	o[18] = 158; /* bus */
	put_le(o + 19, 4013, 2);
	put_le(o + 21, 7269, 2);
	memcpy(o + 32, event_log, sizeof(event_log));
	return CPER_SAMPLE_CXL_SHORT_LOG_LEN;
}
