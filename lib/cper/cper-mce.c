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

/* MCi_STATUS bits (Intel SDM vol. 3B, 15.3.2.2) that grade an error. */
#define MCI_STATUS_VAL BIT(63)
#define MCI_STATUS_UC BIT(61)
#define MCI_STATUS_PCC BIT(57)

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

static void put_str(CperCtx *c, json_t *o, const char *k, const char *const *strs, size_t n,
		    uint64_t v)
{
	cper_set(c, o, k, json_string(v < n && strs[v] ? strs[v] : "reserved"));
}

/*
 * The MCA error code, bits 0-15 of MCi_STATUS (Intel SDM vol. 3B,
 * "Interpreting the MCA Error Codes"; AMD uses the same encoding).
 * Bit 12 of the compound codes is the correction report filter.
 */
static void decode_mca_code(CperCtx *c, json_t *o, uint16_t code)
{
	uint16_t k = code & ~0x1000;
	const char *simple = NULL;

	cper_set(c, o, "code", cper_hex_u64(code, 2));
	switch (code) {
	case 0x0000:
		simple = "no error";
		break;
	case 0x0001:
		simple = "unclassified";
		break;
	case 0x0002:
		simple = "microcode ROM parity error";
		break;
	case 0x0003:
		simple = "external error";
		break;
	case 0x0004:
		simple = "FRC error";
		break;
	case 0x0005:
		simple = "internal parity error";
		break;
	case 0x0006:
		simple = "SMM handler code access violation";
		break;
	case 0x0400:
		simple = "internal timer error";
		break;
	case 0x0e0b:
		simple = "I/O error";
		break;
	}
	if (!simple && (code & 0xfc00) == 0x0400)
		simple = "internal unclassified";
	if (simple) {
		cper_set(c, o, "class", json_string(simple));
		return;
	}

	cper_set(c, o, "filtered", json_boolean(code & 0x1000));
	if ((k & 0xf800) == 0x0800) {
		cper_set(c, o, "class", json_string("bus/interconnect"));
		put_str(c, o, "participation", pp_strs, ARRAY_SIZE(pp_strs), FIELD(k, 9, 2));
		cper_set(c, o, "timeout", json_boolean(k & 0x100));
		put_str(c, o, "request", rrrr_strs, ARRAY_SIZE(rrrr_strs), FIELD(k, 4, 4));
		put_str(c, o, "memory_or_io", ii_strs, ARRAY_SIZE(ii_strs), FIELD(k, 2, 2));
		put_str(c, o, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else if ((k & 0xff00) == 0x0100) {
		cper_set(c, o, "class", json_string("cache"));
		put_str(c, o, "request", rrrr_strs, ARRAY_SIZE(rrrr_strs), FIELD(k, 4, 4));
		put_str(c, o, "transaction_type", tt_strs, ARRAY_SIZE(tt_strs), FIELD(k, 2, 2));
		put_str(c, o, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else if ((k & 0xff80) == 0x0080) {
		cper_set(c, o, "class", json_string("memory controller"));
		put_str(c, o, "request", mmm_strs, ARRAY_SIZE(mmm_strs), FIELD(k, 4, 3));
		if (FIELD(k, 0, 4) == 0xf)
			cper_set(c, o, "channel", json_string("unspecified"));
		else
			cper_set(c, o, "channel", json_integer((json_int_t)FIELD(k, 0, 4)));
	} else if ((k & 0xfff0) == 0x0010) {
		cper_set(c, o, "class", json_string("TLB"));
		put_str(c, o, "transaction_type", tt_strs, ARRAY_SIZE(tt_strs), FIELD(k, 2, 2));
		put_str(c, o, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else if ((k & 0xfffc) == 0x000c) {
		cper_set(c, o, "class", json_string("generic cache hierarchy"));
		put_str(c, o, "level", ll_strs, ARRAY_SIZE(ll_strs), FIELD(k, 0, 2));
	} else
		cper_set(c, o, "class", json_string("unknown"));
}

const char *cper_mce_severity(const void *buf, size_t len)
{
	uint64_t status;

	if (len < 8)
		return NULL;
	status = cper_le64(buf);
	if (!(status & MCI_STATUS_VAL))
		return "informational";
	if (status & MCI_STATUS_UC)
		return status & MCI_STATUS_PCC ? "fatal" : "recoverable";
	return "corrected";
}

void cper_decode_mce(const CperBuf *b, json_t *body)
{
	CperCtx *c = b->ctx;
	uint64_t status = 0, mcg = 0, vendor = 0, eax = 0, t = 0;
	bool amd = false;

	cper_need(b, MCE_MIN_SIZE, "struct mce");
	if (!cper_field(b, 0, 8, true, "status", &status))
		return;
	if (cper_field(b, 56, 1, true, "cpuvendor", &vendor)) {
		cper_put_enum_value(c, body, "cpuvendor", vendor, vendor_strs,
				    ARRAY_SIZE(vendor_strs));
		amd = vendor == 2 || vendor == 9;
	}

	cper_put_bits(c, body, "status", status, 8, amd ? status_strs_amd : status_strs_intel, 64);
	cper_put_uint(b, body, "bank", 65, 1, true);
	json_t *mca = cper_child_object(c, body, "mca_error");
	if (mca)
		decode_mca_code(c, mca, (uint16_t)status);
	cper_set(c, body, "model_specific_error_code", cper_hex_u64(FIELD(status, 16, 16), 2));
	if (!amd && !(status & MCI_STATUS_UC))
		cper_set(c, body, "corrected_error_count",
			 json_integer((json_int_t)FIELD(status, 38, 15)));

	/* MISC and ADDR hold data only when the status says so. */
	cper_put_hex(b, body, "misc", 8, 8, status & BIT(59));
	cper_put_hex(b, body, "addr", 16, 8, status & BIT(58));
	if (cper_field(b, 24, 8, true, "mcgstatus", &mcg))
		cper_put_bits(c, body, "mcgstatus", mcg, 8, mcg_status_strs,
			      ARRAY_SIZE(mcg_status_strs));
	cper_put_hex(b, body, "ip", 32, 8, true);
	cper_put_hex(b, body, "cs", 64, 1, true);
	cper_put_uint(b, body, "tsc", 40, 8, true);
	if (cper_field(b, 48, 8, true, "time", &t)) {
		char when[48];
		time_t s = (time_t)t;
		struct tm tm;
		cper_set(c, body, "time", json_integer((json_int_t)(t & INT64_MAX)));
		if (t > 0 && t < (UINT64_C(1) << 40) && gmtime_r(&s, &tm)) {
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
			cper_set(c, body, "time_utc", json_string(when));
		}
	}
	if (cper_field(b, 60, 4, true, "cpuid", &eax)) {
		unsigned family = FIELD(eax, 8, 4), model = FIELD(eax, 4, 4);
		if (family == 0xf)
			family += FIELD(eax, 20, 8);
		if (family >= 6)
			model += FIELD(eax, 16, 4) << 4;
		cper_set(c, body, "cpuid", cper_hex_u64(eax, 4));
		cper_set(c, body, "family", json_integer(family));
		cper_set(c, body, "model", json_integer(model));
		cper_set(c, body, "stepping", json_integer((json_int_t)FIELD(eax, 0, 4)));
	}
	cper_put_uint(b, body, "cpu", 66, 1, true);
	cper_put_uint(b, body, "finished", 67, 1, true);
	cper_put_uint(b, body, "extcpu", 68, 4, true);
	cper_put_uint(b, body, "socketid", 72, 4, true);
	cper_put_hex(b, body, "apicid", 76, 4, true);
	cper_put_uint(b, body, "inject_flags", 57, 1, true);
	cper_put_uint(b, body, "severity", 58, 1, true);

	/* Later additions: present when the record is long enough. */
	cper_put_hex(b, body, "mcgcap", 80, 8, b->len >= 88);
	cper_put_hex(b, body, "synd", 88, 8, amd && b->len >= 96);
	cper_put_hex(b, body, "ipid", 96, 8, amd && b->len >= 104);
	cper_put_hex(b, body, "ppin", 104, 8, b->len >= 112);
	cper_put_hex(b, body, "microcode", 112, 4, b->len >= 116);
	cper_put_hex(b, body, "kflags", 120, 8, b->len >= 128);
	cper_put_hex(b, body, "synd1", 128, 8, amd && b->len >= 136);
	cper_put_hex(b, body, "synd2", 136, 8, amd && b->len >= 144);
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
	cper_decode_mce(&b, json_object_get(doc, "mce"));
	if (c.oom)
		return -ENOMEM;
	*ret = TAKE_PTR(doc);
	return 0;
}
