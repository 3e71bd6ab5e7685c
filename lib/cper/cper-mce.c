// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * x86 machine-check records: struct mce of arch/x86/include/uapi/asm/mce.h,
 * the payload of pstore mce-* files and of the Linux MCE CPER section.
 * The structure grew over the years (88 bytes in 2.6.39, 128 since 5.8,
 * 144 with the SMCA syndromes); a field is decoded if the record holds it.
 *	0 status u64 (MCi_STATUS)	8 misc u64	16 addr u64
 *	24 mcgstatus u64	32 ip u64	40 tsc u64	48 time u64
 *	56 cpuvendor u8	57 inject_flags u8	58 severity u8	59 pad u8
 *	60 cpuid u32 (CPUID 1 EAX)	64 cs u8	65 bank u8	66 cpu u8
 *	67 finished u8	68 extcpu u32	72 socketid u32	76 apicid u32
 *	80 mcgcap u64	88 synd u64	96 ipid u64	104 ppin u64
 *	112 microcode u32	120 kflags u64	128 synd1 u64	136 synd2 u64
 */

#include <errno.h>
#include <time.h>

#include "cper-internal.h"

#define BIT(n) (UINT64_C(1) << (n))
#define FIELD(v, lo, bits) (((v) >> (lo)) & ((UINT64_C(1) << (bits)) - 1))

#define MCE_MIN_SIZE 80 /* up to and including apicid */

/* The kernel's enum of X86_VENDOR_* (arch/x86/include/asm/processor.h). */
static const char *const vendor_strs[] = {
	[0] = "Intel",	   [1] = "Cyrix", [2] = "AMD",	 [3] = "UMC",	   [5] = "Centaur",
	[7] = "Transmeta", [8] = "NSC",	  [9] = "Hygon", [10] = "Zhaoxin", [11] = "Vortex",
};

static const char *const status_strs_intel[64] = {
	[55] = "AR", [56] = "S",  [57] = "PCC",	 [58] = "ADDRV", [59] = "MISCV",
	[60] = "EN", [61] = "UC", [62] = "OVER", [63] = "VAL",
};

static const char *const status_strs_amd[64] = {
	[43] = "Poison",       [44] = "Deferred", [53] = "SyndV", [55] = "TCC",
	[56] = "ErrCoreIdVal", [57] = "PCC",	  [58] = "ADDRV", [59] = "MISCV",
	[60] = "EN",	       [61] = "UC",	  [62] = "OVER",  [63] = "VAL",
};

static const char *const mcg_status_strs[] = {"RIPV", "EIPV", "MCIP", "LMCES"};

static const char *const tt_strs[] = {"instruction", "data", "generic", "reserved"};
static const char *const ll_strs[] = {"L0", "L1", "L2", "generic"};
static const char *const rrrr_strs[] = {
	"generic error",     "generic read", "generic write", "data read", "data write",
	"instruction fetch", "prefetch",     "eviction",      "snoop",
};
static const char *const pp_strs[] = {"local processor originated request",
				      "local processor responded to request",
				      "local processor observed", "generic"};
static const char *const ii_strs[] = {"memory access", "reserved", "I/O", "other transaction"};
static const char *const mmm_strs[] = {"generic undefined request", "memory read error",
				       "memory write error", "address/command error",
				       "memory scrubbing error"};

static void put_str(CperCtx *c, const char *k, const char *const *strs, size_t n, uint64_t v)
{
	cper_emit_string(c, k, v < n && strs[v] ? strs[v] : "reserved");
}

/* The MCA error codes with one meaning each, or NULL. */
static const char *mca_simple_code(uint16_t code)
{
	switch (code) {
	case 0x0000:
		return "no error";
	case 0x0001:
		return "unclassified";
	case 0x0002:
		return "microcode ROM parity error";
	case 0x0003:
		return "external error";
	case 0x0004:
		return "FRC error";
	case 0x0005:
		return "internal parity error";
	case 0x0006:
		return "SMM handler code access violation";
	case 0x0400:
		return "internal timer error";
	case 0x0e0b:
		return "I/O error";
	}
	if ((code & 0xfc00) == 0x0400)
		return "internal unclassified";
	return NULL;
}

/* The compound codes; k is the code without its filter bit. */
static void decode_mca_compound(CperCtx *c, uint16_t k)
{
	if ((k & 0xf800) == 0x0800) {
		cper_emit_string(c, "class", "bus/interconnect");
		put_str(c, "participation", pp_strs, ARRAY_SIZE(pp_strs), FIELD(k, 9, 2));
		cper_emit_bool(c, "timeout", k & 0x100);
		put_str(c, "request", rrrr_strs, ARRAY_SIZE(rrrr_strs), FIELD(k, 4, 4));
		put_str(c, "memory_or_io", ii_strs, ARRAY_SIZE(ii_strs), FIELD(k, 2, 2));
		put_str(c, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else if ((k & 0xff00) == 0x0100) {
		cper_emit_string(c, "class", "cache");
		put_str(c, "request", rrrr_strs, ARRAY_SIZE(rrrr_strs), FIELD(k, 4, 4));
		put_str(c, "transaction_type", tt_strs, ARRAY_SIZE(tt_strs), FIELD(k, 2, 2));
		put_str(c, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else if ((k & 0xff80) == 0x0080) {
		cper_emit_string(c, "class", "memory controller");
		put_str(c, "request", mmm_strs, ARRAY_SIZE(mmm_strs), FIELD(k, 4, 3));
		if (FIELD(k, 0, 4) == 0xf)
			cper_emit_string(c, "channel", "unspecified");
		else
			cper_emit_int(c, "channel", (int64_t)FIELD(k, 0, 4));
	} else if ((k & 0xfff0) == 0x0010) {
		cper_emit_string(c, "class", "TLB");
		put_str(c, "transaction_type", tt_strs, ARRAY_SIZE(tt_strs), FIELD(k, 2, 2));
		put_str(c, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else if ((k & 0xfffc) == 0x000c) {
		cper_emit_string(c, "class", "generic cache hierarchy");
		put_str(c, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else
		cper_emit_string(c, "class", "unknown");
}

/*
 * The MCA error code, bits 0-15 of MCi_STATUS (Intel SDM vol. 3B,
 * "Interpreting the MCA Error Codes"; AMD uses the same encoding).
 * Bit 12 of the compound codes is the correction report filter.
 */
static void decode_mca_code(CperCtx *c, uint16_t code)
{
	const char *simple = mca_simple_code(code);

	cper_emit_hex(c, "code", code, 2);
	if (simple) {
		cper_emit_string(c, "class", simple);
		return;
	}
	cper_emit_bool(c, "filtered", code & 0x1000);
	decode_mca_compound(c, code & ~0x1000);
}

/* "time": Unix seconds of the kernel's clock, and "time_utc" when plausible. */
static void put_mce_time(const CperBuf *b)
{
	uint64_t t;
	char when[48];
	struct tm tm;

	if (!cper_field(b, 48, 8, true, "time", &t))
		return;
	time_t s = (time_t)t;
	cper_emit_int(b->ctx, "time", (int64_t)(t & INT64_MAX));
	if (t > 0 && t < (UINT64_C(1) << 40) && gmtime_r(&s, &tm)) {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		cper_emit_string(b->ctx, "time_utc", when);
	}
}

/* CPUID 1 EAX and the family, model and stepping it encodes. */
static void put_mce_cpuid(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t eax;

	if (!cper_field(b, 60, 4, true, "cpuid", &eax))
		return;
	unsigned family = FIELD(eax, 8, 4), model = FIELD(eax, 4, 4);
	if (family == 0xf)
		family += FIELD(eax, 20, 8);
	if (family >= 6)
		model += FIELD(eax, 16, 4) << 4;
	cper_emit_hex(c, "cpuid", eax, 4);
	cper_emit_int(c, "family", family);
	cper_emit_int(c, "model", model);
	cper_emit_int(c, "stepping", (int64_t)FIELD(eax, 0, 4));
}

/* Later additions to struct mce: present when the record is long enough. */
static void put_mce_additions(const CperBuf *b, bool amd)
{
	cper_put_hex(b, "mcgcap", 80, 8, b->len >= 88);
	cper_put_hex(b, "synd", 88, 8, amd && b->len >= 96);
	cper_put_hex(b, "ipid", 96, 8, amd && b->len >= 104);
	cper_put_hex(b, "ppin", 104, 8, b->len >= 112);
	cper_put_hex(b, "microcode", 112, 4, b->len >= 116);
	cper_put_hex(b, "kflags", 120, 8, b->len >= 128);
	cper_put_hex(b, "synd1", 128, 8, amd && b->len >= 136);
	cper_put_hex(b, "synd2", 136, 8, amd && b->len >= 144);
}

void cper_decode_mce(const CperBuf *b)
{
	CperCtx *c = b->ctx;
	uint64_t status = 0, mcg = 0, vendor = 0;
	bool amd = false;

	cper_need(b, MCE_MIN_SIZE, "struct mce");
	if (!cper_field(b, 0, 8, true, "status", &status))
		return;
	if (cper_field(b, 56, 1, true, "cpuvendor", &vendor)) {
		cper_put_enum_value(c, "cpuvendor", vendor, vendor_strs, ARRAY_SIZE(vendor_strs));
		amd = vendor == 2 || vendor == 9;
	}

	cper_put_bits(c, "status", status, 8, amd ? status_strs_amd : status_strs_intel, 64);
	cper_put_uint(b, "bank", 65, 1, true);
	cper_emit_open_object(c, "mca_error");
	decode_mca_code(c, (uint16_t)status);
	cper_emit_close(c);
	cper_emit_hex(c, "model_specific_error_code", FIELD(status, 16, 16), 2);
	if (!amd && !(status & BIT(61)))
		cper_emit_int(c, "corrected_error_count", (int64_t)FIELD(status, 38, 15));

	/* MISC and ADDR hold data only when the status says so. */
	cper_put_hex(b, "misc", 8, 8, status & BIT(59));
	cper_put_hex(b, "addr", 16, 8, status & BIT(58));
	if (cper_field(b, 24, 8, true, "mcgstatus", &mcg))
		cper_put_bits(c, "mcgstatus", mcg, 8, mcg_status_strs, ARRAY_SIZE(mcg_status_strs));
	cper_put_hex(b, "ip", 32, 8, true);
	cper_put_hex(b, "cs", 64, 1, true);
	cper_put_uint(b, "tsc", 40, 8, true);
	put_mce_time(b);
	put_mce_cpuid(b);
	cper_put_uint(b, "cpu", 66, 1, true);
	cper_put_uint(b, "finished", 67, 1, true);
	cper_put_uint(b, "extcpu", 68, 4, true);
	cper_put_uint(b, "socketid", 72, 4, true);
	cper_put_hex(b, "apicid", 76, 4, true);
	cper_put_uint(b, "inject_flags", 57, 1, true);
	cper_put_uint(b, "severity", 58, 1, true);
	put_mce_additions(b, amd);
}

int cper_mce_decode_json(const void *buf, size_t len, json_t **ret)
{
	CperCtx c = {};
	json_auto_t *doc = NULL;

	if (!buf && len > 0)
		return -EINVAL;
	c.errors = json_array();
	doc = json_pack("{s:i,s:{},s:o}", "schema_version", CPER_SCHEMA_VERSION, "mce", "errors",
			c.errors);
	if (!doc)
		return -ENOMEM;

	CperBuf b = {.p = buf, .len = len, .base = 0, .ctx = &c};
	c.tree[c.depth++] = json_object_get(doc, "mce");
	cper_decode_mce(&b);
	if (c.oom)
		return -ENOMEM;
	*ret = TAKE_PTR(doc);
	return 0;
}
