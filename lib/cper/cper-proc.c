// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Processor sections: Processor Generic (N.2.4.1), IA32/X64 (N.2.4.2) and
 * ARM (N.2.4.4). Offsets in the comments are from the start of the section
 * or of the structure named.
 */

#include <string.h>

#include "cper-internal.h"

#define BIT(n) (UINT64_C(1) << (n))
#define FIELD(v, lo, bits) (((v) >> (lo)) & ((UINT64_C(1) << (bits)) - 1))

/* Bit i of the processor error type: the kernel's cper_proc_error_type_strs. */
static const char *const proc_error_type_strs[] = {
	"cache error",
	"TLB error",
	"bus error",
	"micro-architectural error",
};

/*
 * Processor Generic Error (N.2.4.1), 192 bytes:
 *	0 validation u64	8 type u8	9 ISA u8	10 error type u8
 *	11 operation u8	12 flags u8	13 level u8	14 reserved u16
 *	16 CPU version u64	24 brand string [128]	152 processor id u64
 *	160 target address u64	168 requestor id u64	176 responder id u64
 *	184 instruction pointer u64
 */
void cper_decode_proc_generic(const CperBuf *b)
{
	static const char *const type_strs[] = {"IA32/X64", "IA64", "ARM"};
	static const char *const isa_strs[] = {"IA32", "IA64", "X64", "ARM A32/T32", "ARM A64"};
	static const char *const op_strs[] = {"unknown or generic", "data read", "data write",
					      "instruction execution"};
	static const char *const flag_strs[] = {"restartable", "precise IP", "overflow",
						"corrected"};
	CperCtx *c = b->ctx;
	uint64_t v = 0, x;

	if (!cper_section_begin(b, 192, "processor generic error section", &v))
		return;
	cper_put_enum(b, "processor_type", 8, 1, v & BIT(0), type_strs, ARRAY_SIZE(type_strs));
	cper_put_enum(b, "processor_isa", 9, 1, v & BIT(1), isa_strs, ARRAY_SIZE(isa_strs));
	if (cper_field(b, 10, 1, v & BIT(2), "error_type", &x))
		cper_put_bits(c, "error_type", x, 1, proc_error_type_strs,
			      ARRAY_SIZE(proc_error_type_strs));
	cper_put_enum(b, "operation", 11, 1, v & BIT(3), op_strs, ARRAY_SIZE(op_strs));
	if (cper_field(b, 12, 1, v & BIT(4), "flags", &x))
		cper_put_bits(c, "flags", x, 1, flag_strs, ARRAY_SIZE(flag_strs));
	cper_put_uint(b, "level", 13, 1, v & BIT(5));
	cper_put_hex(b, "version_info", 16, 8, v & BIT(6));
	cper_put_text(b, "brand_string", 24, 128, v & BIT(7));
	cper_put_hex(b, "processor_id", 152, 8, v & BIT(8));
	cper_put_hex(b, "target_address", 160, 8, v & BIT(9));
	cper_put_hex(b, "requestor_id", 168, 8, v & BIT(10));
	cper_put_hex(b, "responder_id", 176, 8, v & BIT(11));
	cper_put_hex(b, "IP", 184, 8, v & BIT(12));
}

/*
 * IA32/X64 Processor Error (N.2.4.2):
 *	0 validation u64 (bit 0 local APIC id, bit 1 CPUID, bits 2-7 number of
 *	  error information structures, bits 8-13 number of context structures)
 *	8 local APIC id u64	16 CPUID information [48]
 *	64 error information structures, 64 bytes each:
 *	   0 type GUID	16 validation u64 (check info, target, requestor,
 *	   responder, IP)	24 check info u64	32 target id u64
 *	   40 requestor id u64	48 responder id u64	56 IP u64
 *	then context structures: 0 register context type u16
 *	   2 register array size u16	4 MSR address u32	8 MM register address
 *	   u64	16 register array [size]
 */
enum { IA_CACHE, IA_TLB, IA_BUS, IA_MS, IA_UNKNOWN };

static const uint8_t ia_err_guids[][16] = {
	[IA_CACHE] = CPER_GUID(0xa55701f5, 0xe3ef, 0x43de, 0xac, 0x72, 0x24, 0x9b, 0x57, 0x3f, 0xad,
			       0x2c),
	[IA_TLB] = CPER_GUID(0xfc06b535, 0x5e1f, 0x4562, 0x9f, 0x25, 0x0a, 0x3b, 0x9a, 0xdb, 0x63,
			     0xc3),
	[IA_BUS] = CPER_GUID(0x1cf3f8b3, 0xc5b1, 0x49a2, 0xaa, 0x59, 0x5e, 0xef, 0x92, 0xff, 0xa6,
			     0x3c),
	[IA_MS] = CPER_GUID(0x48ab7f57, 0xdc34, 0x4f6c, 0xa7, 0xd3, 0xb0, 0xb5, 0xb0, 0xa7, 0x43,
			    0x14),
};

static const char *const ia_trans_strs[] = {"Instruction", "Data Access", "Generic"};
static const char *const ia_op_strs[] = {
	"generic error",     "generic read", "generic write", "data read", "data write",
	"instruction fetch", "prefetch",     "eviction",      "snoop",
};
static const char *const ia_part_strs[] = {
	"Local Processor originated request",
	"Local Processor responded to request",
	"Local Processor observed",
	"Generic",
};
static const char *const ia_addr_space_strs[] = {"Memory Access", "Reserved", "I/O",
						 "Other Transaction"};
static const char *const ia_ms_type_strs[] = {
	"No Error",	  "Unclassified", "Microcode ROM Parity Error",
	"External Error", "FRC Error",	  "Internal Unclassified",
};
static const char *const ia_ctx_strs[] = {
	"Unclassified Data",
	"MSR Registers (Machine Check and other MSRs)",
	"32-bit Mode Execution Context",
	"64-bit Mode Execution Context",
	"FXSAVE Context",
	"32-bit Mode Debug Registers (DR0-DR7)",
	"64-bit Mode Debug Registers (DR0-DR7)",
	"Memory Mapped Registers",
};

static void put_flag(CperCtx *c, const char *name, uint64_t check, unsigned bit)
{
	cper_emit_bool(c, name, check & BIT(bit));
}

/*
 * Runs of flags in check information (bits 0-15 say which fields are valid):
 * names[i] is bit first_bit + i, valid when bit first_valid + i is set.
 */
static void put_flags(CperCtx *c, uint64_t check, unsigned first_valid, unsigned first_bit,
		      const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (check & BIT(first_valid + i))
			put_flag(c, names[i], check, first_bit + (unsigned)i);
}

static const char *const ia_flag_names[] = {"processor_context_corrupt", "uncorrected",
					    "precise_ip", "restartable_ip", "overflow"};

/* Check information (N.2.4.2.2 - N.2.4.2.5): bits 0-15 say which fields are valid. */
static void decode_ia_check(CperCtx *c, int type, uint64_t check)
{
	uint64_t valid = check & 0xffff;

	if (type == IA_MS) {
		if (valid & BIT(0))
			cper_put_enum_value(c, "error_type", FIELD(check, 16, 3), ia_ms_type_strs,
					    ARRAY_SIZE(ia_ms_type_strs));
		put_flags(c, check, 1, 19, ia_flag_names, ARRAY_SIZE(ia_flag_names));
		return;
	}

	if (valid & BIT(0))
		cper_put_enum_value(c, "transaction_type", FIELD(check, 16, 2), ia_trans_strs,
				    ARRAY_SIZE(ia_trans_strs));
	/* Cache checks have nine operations; TLB and bus checks the first seven. */
	if (valid & BIT(1))
		cper_put_enum_value(c, "operation", FIELD(check, 18, 4), ia_op_strs,
				    type == IA_CACHE ? 9 : 7);
	if (valid & BIT(2))
		cper_emit_int(c, "level", (int64_t)FIELD(check, 22, 3));
	put_flags(c, check, 3, 25, ia_flag_names, ARRAY_SIZE(ia_flag_names));
	if (type != IA_BUS)
		return;
	if (valid & BIT(8))
		cper_put_enum_value(c, "participation_type", FIELD(check, 30, 2), ia_part_strs,
				    ARRAY_SIZE(ia_part_strs));
	if (valid & BIT(9))
		put_flag(c, "time_out", check, 32);
	if (valid & BIT(10))
		cper_put_enum_value(c, "address_space", FIELD(check, 33, 2), ia_addr_space_strs,
				    ARRAY_SIZE(ia_addr_space_strs));
}

static void decode_ia_err_info(const CperBuf *e)
{
	static const char *const type_names[] = {
		[IA_CACHE] = "cache error", [IA_TLB] = "TLB error",
		[IA_BUS] = "bus error",	    [IA_MS] = "micro-architectural error",
		[IA_UNKNOWN] = "unknown",
	};
	CperCtx *c = e->ctx;
	uint64_t v, check;
	int type = IA_UNKNOWN;

	for (int i = 0; i < IA_UNKNOWN; i++)
		if (memcmp(e->p, ia_err_guids[i], 16) == 0)
			type = i;
	cper_emit_guid(c, "error_structure_type", e->p);
	cper_emit_string(c, "error_structure_type_name", type_names[type]);
	v = cper_le64(e->p + 16);
	cper_emit_hex(c, "validation_bits", v, 8);
	if (cper_field(e, 24, 8, v & BIT(0), "check_information", &check)) {
		cper_emit_hex(c, "check_information", check, 8);
		if (type != IA_UNKNOWN) {
			cper_emit_open_object(c, "check");
			decode_ia_check(c, type, check);
			cper_emit_close(c);
		}
	}
	cper_put_hex(e, "target_identifier", 32, 8, v & BIT(1));
	cper_put_hex(e, "requestor_identifier", 40, 8, v & BIT(2));
	cper_put_hex(e, "responder_identifier", 48, 8, v & BIT(3));
	cper_put_hex(e, "instruction_pointer", 56, 8, v & BIT(4));
}

/* The error information structures from *off; false if they run past the section. */
static bool decode_ia_err_infos(const CperBuf *b, unsigned n_err, size_t *off)
{
	CperCtx *c = b->ctx;

	cper_emit_open_array(c, "error_information");
	for (unsigned i = 0; i < n_err; i++, *off += 64) {
		if (!cper_buf_has(b, *off, 64)) {
			cper_error(c, b->base + *off,
				   "error information structure %u of %u lies past the end of the "
				   "%zu-byte section",
				   i, n_err, b->len);
			return false;
		}
		CperBuf e = cper_buf_sub(b, *off, 64);
		cper_emit_open_object(c, NULL);
		decode_ia_err_info(&e);
		cper_emit_close(c);
	}
	cper_emit_close(c);
	return true;
}

/* One context information structure at off; false if it runs past the section. */
static bool decode_ia_context(const CperBuf *b, unsigned i, size_t off)
{
	CperCtx *c = b->ctx;
	const uint8_t *p = b->p + off;
	uint16_t type = cper_le16(p), size = cper_le16(p + 2);

	cper_put_enum_value(c, "register_context_type", type, ia_ctx_strs, ARRAY_SIZE(ia_ctx_strs));
	cper_emit_int(c, "register_array_size", size);
	if (type == 1)
		cper_emit_hex(c, "msr_address", cper_le32(p + 4), 4);
	if (type == 7)
		cper_emit_hex(c, "mm_register_address", cper_le64(p + 8), 8);
	if (!cper_buf_has(b, off + 16, size))
		cper_error(c, b->base + off + 2,
			   "context information structure %u: register array of %u bytes "
			   "runs past the end of the %zu-byte section",
			   i, size, b->len);
	cper_put_dump(b, "register_array_dump", off + 16, size);
	return cper_buf_has(b, off + 16, size);
}

void cper_decode_proc_ia(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v = 0;
	size_t off = 64;

	if (!cper_section_begin(b, 64, "IA32/X64 processor error section", &v))
		return;
	cper_put_hex(b, "local_apic_id", 8, 8, v & BIT(0));
	if ((v & BIT(1)) && cper_need(b, 64, "CPUID information"))
		cper_put_dump(b, "cpuid_dump", 16, 48);

	unsigned n_err = FIELD(v, 2, 6), n_ctx = FIELD(v, 8, 6);
	if (!decode_ia_err_infos(b, n_err, &off))
		return;

	cper_emit_open_array(c, "context_information");
	for (unsigned i = 0; i < n_ctx; i++) {
		if (!cper_buf_has(b, off, 16)) {
			cper_error(
				c, b->base + off,
				"context information structure %u of %u lies past the end of the "
				"%zu-byte section",
				i, n_ctx, b->len);
			return;
		}
		cper_emit_open_object(c, NULL);
		if (!decode_ia_context(b, i, off))
			return;
		cper_emit_close(c);
		off += 16 + (size_t)cper_le16(b->p + off + 2);
	}
}

/*
 * ARM Processor Error (N.2.4.4):
 *	0 validation u32 (MPIDR, affinity level, running state, vendor info)
 *	4 error information count u16	6 context information count u16
 *	8 section length u32	12 error affinity level u8	13 reserved [3]
 *	16 MPIDR_EL1 u64	24 MIDR_EL1 u64	32 running state u32
 *	36 PSCI state u32
 *	40 error information structures, 32 bytes each:
 *	   0 version u8	1 length u8	2 validation u16 (multiple error, flags,
 *	   error info, virtual address, physical address)	4 type u8 (UEFI 2.10:
 *	   bit 1 cache, 2 TLB, 3 bus, 4 micro-architectural)	5 multiple
 *	   error u16	7 flags u8	8 error information u64
 *	   16 virtual fault address u64	24 physical fault address u64
 *	then context structures: 0 version u16	2 register context type u16
 *	   4 register array size u32	8 register array, the whole structure
 *	   padded to 16 bytes (as drivers/firmware/efi/cper-arm.c reads it);
 *	then vendor specific data up to the section length.
 */
static const char *const arm_ctx_strs[] = {
	"AArch32 general purpose registers", "AArch32 EL1 context registers",
	"AArch32 EL2 context registers",     "AArch32 secure context registers",
	"AArch64 general purpose registers", "AArch64 EL1 context registers",
	"AArch64 EL2 context registers",     "AArch64 EL3 context registers",
	"Misc. system register structure",
};

static const char *const arm_trans_strs[] = {"Instruction", "Data Access", "Generic"};
static const char *const arm_cache_op_strs[] = {
	"Generic error", "Generic read",      "Generic write", "Data read",
	"Data write",	 "Instruction fetch", "Prefetch",      "Eviction",
	"Snooping",	 "Snooped",	      "Management",
};
static const char *const arm_tlb_op_strs[] = {
	"Generic error",
	"Generic read",
	"Generic write",
	"Data read",
	"Data write",
	"Instruction fetch",
	"Prefetch",
	"Local management operation",
	"External management operation",
};
static const char *const arm_part_strs[] = {
	"Local processor originated request",
	"Local processor responded to request",
	"Local processor observed",
	"Generic",
};
static const char *const arm_addr_space_strs[] = {
	"External Memory Access", "Internal Memory Access", "Unknown", "Device Memory Access"};

static const char *const arm_flag_names[] = {"processor_context_corrupt", "corrected", "precise_pc",
					     "restartable_pc"};

static void decode_arm_error_info(CperCtx *c, uint8_t type, uint64_t info)
{
	bool cache = type & BIT(1), tlb = type & BIT(2), bus = type & BIT(3);
	uint64_t valid = info & 0xffff;

	/* Micro-architectural (vendor) errors carry vendor specific information. */
	if (!cache && !tlb && !bus)
		return;
	if (valid & BIT(0))
		cper_put_enum_value(c, "transaction_type", FIELD(info, 16, 2), arm_trans_strs,
				    ARRAY_SIZE(arm_trans_strs));
	if (valid & BIT(1)) {
		if (cache)
			cper_put_enum_value(c, "operation", FIELD(info, 18, 4), arm_cache_op_strs,
					    ARRAY_SIZE(arm_cache_op_strs));
		else if (tlb)
			cper_put_enum_value(c, "operation", FIELD(info, 18, 4), arm_tlb_op_strs,
					    ARRAY_SIZE(arm_tlb_op_strs));
		else
			cper_put_enum_value(c, "operation", FIELD(info, 18, 4), arm_cache_op_strs,
					    7);
	}
	if (valid & BIT(2))
		cper_emit_int(c, "level", (int64_t)FIELD(info, 22, 3));
	put_flags(c, info, 3, 25, arm_flag_names, ARRAY_SIZE(arm_flag_names));
	if (!bus)
		return;
	if (valid & BIT(7))
		cper_put_enum_value(c, "participation_type", FIELD(info, 29, 2), arm_part_strs,
				    ARRAY_SIZE(arm_part_strs));
	if (valid & BIT(8))
		put_flag(c, "time_out", info, 31);
	if (valid & BIT(9))
		cper_put_enum_value(c, "address_space", FIELD(info, 32, 2), arm_addr_space_strs,
				    ARRAY_SIZE(arm_addr_space_strs));
	if (valid & BIT(10))
		cper_emit_hex(c, "memory_attributes", FIELD(info, 34, 9), 2);
	if (valid & BIT(11))
		cper_emit_string(c, "access_mode", FIELD(info, 43, 1) ? "normal" : "secure");
}

/* One error information structure (32 bytes). */
static void decode_arm_err_info(const CperBuf *e)
{
	static const char *const flag_strs[] = {"first", "last", "propagated", "overflow"};
	static const char *const type_strs[] = {
		[1] = "cache error",
		[2] = "TLB error",
		[3] = "bus error",
		[4] = "micro-architectural error",
	};
	CperCtx *c = e->ctx;
	const uint8_t *p = e->p;
	uint16_t ev = cper_le16(p + 2);

	cper_emit_int(c, "version", p[0]);
	cper_emit_int(c, "length", p[1]);
	cper_emit_hex(c, "validation_bits", ev, 2);
	cper_put_bits(c, "error_type", p[4], 1, type_strs, ARRAY_SIZE(type_strs));
	/* The count is of errors beyond the first (cper-arm.c prints it + 1). */
	if (ev & BIT(0))
		cper_emit_int(c, "multiple_error", cper_le16(p + 5));
	if (ev & BIT(1))
		cper_put_bits(c, "flags", p[7], 1, flag_strs, ARRAY_SIZE(flag_strs));
	if (ev & BIT(2)) {
		uint64_t info = cper_le64(p + 8);
		cper_emit_hex(c, "error_info", info, 8);
		cper_emit_open_object(c, "error_info_decoded");
		decode_arm_error_info(c, p[4], info);
		cper_emit_close(c);
	}
	cper_put_hex(e, "virtual_fault_address", 16, 8, ev & BIT(3));
	cper_put_hex(e, "physical_fault_address", 24, 8, ev & BIT(4));
}

/* The error information structures from *off up to end; false if they run past it. */
static bool decode_arm_err_infos(const CperBuf *b, uint64_t n_err, size_t end, size_t *off)
{
	CperCtx *c = b->ctx;

	cper_emit_open_array(c, "error_information");
	for (unsigned i = 0; i < n_err; i++, *off += 32) {
		if (*off + 32 > end) {
			cper_error(c, b->base + *off,
				   "error information structure %u of %" PRIu64
				   " lies past the end of the section",
				   i, n_err);
			return false;
		}
		CperBuf e = cper_buf_sub(b, *off, 32);
		cper_emit_open_object(c, NULL);
		decode_arm_err_info(&e);
		cper_emit_close(c);
	}
	cper_emit_close(c);
	return true;
}

/*
 * The context information structures from *off up to end, each padded to 16 bytes; false if
 * they run past it.
 */
static bool decode_arm_contexts(const CperBuf *b, uint64_t n_ctx, size_t end, size_t *off)
{
	CperCtx *c = b->ctx;

	cper_emit_open_array(c, "context_information");
	for (unsigned i = 0; i < n_ctx; i++) {
		if (*off + 8 > end) {
			cper_error(c, b->base + *off,
				   "context information structure %u of %" PRIu64
				   " lies past the end of the section",
				   i, n_ctx);
			return false;
		}
		const uint8_t *p = b->p + *off;
		uint16_t type = cper_le16(p + 2);
		uint32_t size = cper_le32(p + 4);
		cper_emit_open_object(c, NULL);
		cper_emit_int(c, "version", cper_le16(p));
		cper_put_enum_value(c, "register_context_type", type, arm_ctx_strs,
				    ARRAY_SIZE(arm_ctx_strs));
		cper_emit_int(c, "register_array_size", size);
		uint64_t total = ((uint64_t)size + 8 + 15) & ~UINT64_C(15);
		if (size > end - *off - 8) {
			cper_error(c, b->base + *off + 4,
				   "context information structure %u: register array of %" PRIu32
				   " bytes runs past the end of the section",
				   i, size);
			cper_put_dump(b, "register_array_dump", *off + 8, end - *off - 8);
			return false;
		}
		cper_put_dump(b, "register_array_dump", *off + 8, size);
		cper_emit_close(c);
		*off = total > end - *off ? end : *off + total;
	}
	cper_emit_close(c);
	return true;
}

void cper_decode_proc_arm(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t v, n_err, n_ctx, slen;
	size_t off = 40;

	if (!cper_need(b, 40, "ARM processor error section"))
		return;
	v = cper_le32(b->p);
	n_err = cper_le16(b->p + 4);
	n_ctx = cper_le16(b->p + 6);
	slen = cper_le32(b->p + 8);
	cper_emit_hex(c, "validation_bits", v, 4);
	cper_emit_int(c, "error_info_num", (int64_t)n_err);
	cper_emit_int(c, "context_info_num", (int64_t)n_ctx);
	cper_emit_int(c, "section_length", (int64_t)slen);
	cper_put_uint(b, "error_affinity_level", 12, 1, v & BIT(1));
	cper_put_hex(b, "MPIDR", 16, 8, v & BIT(0));
	cper_put_hex(b, "MIDR", 24, 8, true);
	cper_put_hex(b, "running_state", 32, 4, v & BIT(2));
	cper_put_uint(b, "psci_state", 36, 4, v & BIT(2));

	size_t end = b->len;
	if (slen != b->len) {
		cper_error(c, b->base + 8,
			   "ARM section length %" PRIu64
			   " differs from the %zu bytes of the section",
			   slen, b->len);
		end = MIN((size_t)slen, b->len);
	}

	if (!decode_arm_err_infos(b, n_err, end, &off) || !decode_arm_contexts(b, n_ctx, end, &off))
		return;
	if ((v & BIT(3)) || off < end)
		cper_put_dump(b, "vendor_specific_dump", off, end > off ? end - off : 0);
}
