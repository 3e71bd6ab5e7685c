// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ACPI Error Record Serialization Table (ERST) interface, ACPI 6.5
 * section 18.5 (17.4 in ACPI 4.0).
 *
 * The firmware describes each serialization action (begin a write, set the
 * record offset, execute, check busy status, ...) as a short program of
 * instructions in the ERST table: read or write a register given by a
 * generic address, compare, stall, skip, jump. This file validates the
 * table, claims and maps every register and the error log address range
 * (the buffer records pass through) once at load time, and interprets the
 * programs. Nothing here allocates, maps or sleeps after load, so a write
 * can run in the panic path; there the lock is only tried, never waited
 * for, because its holder may be a CPU that was stopped while holding it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/acpi.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/nmi.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/spinlock.h>

#include "pstore_erst.h"

#define ERST_RES_NAME "pstore_erst"

/* Error log address range attributes (GET_ERROR_LOG_ADDRESS_RANGE_ATTRIBUTES) */
#define ERST_RANGE_NVRAM 0x0002

/* Record ids with a meaning of their own (ACPI 6.5 table 18.24). */
#define ERST_ID_UNSPECIFIED 0ULL
#define ERST_ID_END (~0ULL)

/* A CPER record header is 128 bytes; its length field is at offset 20. */
#define CPER_HEADER_LEN 128
#define CPER_LENGTH_OFFSET 20

/* Busy-status polling step, and the longest single STALL honoured. */
#define ERST_SPIN_NS 100
#define ERST_MAX_STALL_US 50

/* A firmware program that runs longer than this is looping. */
#define ERST_MAX_STEPS 4096

/* Upper bound on records collected in one scan. */
#define ERST_MAX_RECORDS 1024

/* An instruction that changes the instruction pointer itself. */
#define ERST_SET_IP 1

struct erst_reg {
	void __iomem *vaddr; /* SystemMemory registers; NULL for SystemIO */
	u8 width;	     /* access width in bits */
};

struct erst_region {
	u8 space_id;
	u64 start;
	u64 end; /* exclusive */
	void __iomem *vaddr;
	bool claimed;
};

struct erst_ctx {
	u64 value; /* the action's input, then its output */
	u64 var1;
	u64 var2;
	u64 src_base;
	u64 dst_base;
	u32 ip;
};

static struct {
	struct acpi_table_header *table;
	const struct acpi_whea_header *entries;
	u32 nr_entries;
	struct erst_reg *regs;
	struct erst_region *regions;
	unsigned int nr_regions;
	u64 erange_base;
	u64 erange_size;
	void *erange;
	bool ready; /* under erst_lock: the tables are mapped (sysfs may ask before and after) */
} erst;

/*
 * Serialises the firmware programs (firmware is not required to cope with
 * two at once) and guards the error log address range.
 */
static DEFINE_RAW_SPINLOCK(erst_lock);

static const char *const erst_action_names[] = {
	[ACPI_ERST_BEGIN_WRITE] = "BEGIN_WRITE",
	[ACPI_ERST_BEGIN_READ] = "BEGIN_READ",
	[ACPI_ERST_BEGIN_CLEAR] = "BEGIN_CLEAR",
	[ACPI_ERST_END] = "END",
	[ACPI_ERST_SET_RECORD_OFFSET] = "SET_RECORD_OFFSET",
	[ACPI_ERST_EXECUTE_OPERATION] = "EXECUTE_OPERATION",
	[ACPI_ERST_CHECK_BUSY_STATUS] = "CHECK_BUSY_STATUS",
	[ACPI_ERST_GET_COMMAND_STATUS] = "GET_COMMAND_STATUS",
	[ACPI_ERST_GET_RECORD_ID] = "GET_RECORD_IDENTIFIER",
	[ACPI_ERST_SET_RECORD_ID] = "SET_RECORD_IDENTIFIER",
	[ACPI_ERST_GET_RECORD_COUNT] = "GET_RECORD_COUNT",
	[ACPI_ERST_BEGIN_DUMMY_WRIITE] = "BEGIN_DUMMY_WRITE",
	[ACPI_ERST_NOT_USED] = "RESERVED",
	[ACPI_ERST_GET_ERROR_RANGE] = "GET_ERROR_LOG_ADDRESS_RANGE",
	[ACPI_ERST_GET_ERROR_LENGTH] = "GET_ERROR_LOG_ADDRESS_RANGE_LENGTH",
	[ACPI_ERST_GET_ERROR_ATTRIBUTES] = "GET_ERROR_LOG_ADDRESS_RANGE_ATTRIBUTES",
	[ACPI_ERST_EXECUTE_TIMINGS] = "GET_EXECUTE_OPERATION_TIMINGS",
};

/* The actions this driver runs and the firmware must therefore provide. */
static const u8 erst_required_actions[] = {
	ACPI_ERST_SET_RECORD_OFFSET,  ACPI_ERST_EXECUTE_OPERATION, ACPI_ERST_CHECK_BUSY_STATUS,
	ACPI_ERST_GET_COMMAND_STATUS, ACPI_ERST_GET_RECORD_ID,	   ACPI_ERST_SET_RECORD_ID,
	ACPI_ERST_GET_RECORD_COUNT,   ACPI_ERST_GET_ERROR_RANGE,   ACPI_ERST_GET_ERROR_LENGTH,
	ACPI_ERST_GET_ERROR_ATTRIBUTES,
};

static bool erst_ins_uses_register(u8 ins)
{
	switch (ins) {
	case ACPI_ERST_NOOP:
	case ACPI_ERST_ADD:
	case ACPI_ERST_SUBTRACT:
	case ACPI_ERST_STALL:
	case ACPI_ERST_GOTO:
		return false;
	default:
		return true;
	}
}

static int erst_status_to_errno(u64 status)
{
	switch (status) {
	case ACPI_ERST_SUCCESS:
		return 0;
	case ACPI_ERST_NO_SPACE:
		return -ENOSPC;
	case ACPI_ERST_NOT_AVAILABLE:
		return -ENODEV;
	case ACPI_ERST_RECORD_EMPTY:
	case ACPI_ERST_NOT_FOUND:
		return -ENOENT;
	default:
		return -EIO;
	}
}

static int erst_reg_read_raw(u32 i, u64 *ret)
{
	const struct acpi_generic_address *gar = &erst.entries[i].register_region;
	const struct erst_reg *reg = &erst.regs[i];
	u32 port_val;

	if (reg->vaddr) {
		switch (reg->width) {
		case 8:
			*ret = readb(reg->vaddr);
			return 0;
		case 16:
			*ret = readw(reg->vaddr);
			return 0;
		case 32:
			*ret = readl(reg->vaddr);
			return 0;
		case 64:
			*ret = readq(reg->vaddr);
			return 0;
		}
		return -EINVAL;
	}
	if (ACPI_FAILURE(acpi_os_read_port(gar->address, &port_val, reg->width)))
		return -EIO;
	*ret = port_val;
	return 0;
}

static int erst_reg_write_raw(u32 i, u64 val)
{
	const struct acpi_generic_address *gar = &erst.entries[i].register_region;
	const struct erst_reg *reg = &erst.regs[i];

	if (reg->vaddr) {
		switch (reg->width) {
		case 8:
			writeb(val, reg->vaddr);
			return 0;
		case 16:
			writew(val, reg->vaddr);
			return 0;
		case 32:
			writel(val, reg->vaddr);
			return 0;
		case 64:
			writeq(val, reg->vaddr);
			return 0;
		}
		return -EINVAL;
	}
	if (ACPI_FAILURE(acpi_os_write_port(gar->address, val, reg->width)))
		return -EIO;
	return 0;
}

/* The register's field: shifted down by the bit offset, masked. */
static int erst_reg_read(u32 i, u64 *ret)
{
	const struct acpi_whea_header *e = &erst.entries[i];
	u64 val;
	int rc;

	rc = erst_reg_read_raw(i, &val);
	if (rc)
		return rc;
	*ret = (val >> e->register_region.bit_offset) & e->mask;
	return 0;
}

static int erst_reg_write(u32 i, u64 val)
{
	const struct acpi_whea_header *e = &erst.entries[i];
	u8 shift = e->register_region.bit_offset;
	u64 old;
	int rc;

	val = (val & e->mask) << shift;
	if (e->flags & ACPI_ERST_PRESERVE) {
		rc = erst_reg_read_raw(i, &old);
		if (rc)
			return rc;
		val |= old & ~(e->mask << shift);
	}
	return erst_reg_write_raw(i, val);
}

/*
 * Busy-wait in steps without reading a clock: in the panic path the
 * timekeeping locks may be held by a stopped CPU.
 */
static bool erst_spin(u64 *budget_ns, u64 step_ns)
{
	if (*budget_ns < step_ns)
		return false;
	*budget_ns -= step_ns;
	ndelay(step_ns);
	touch_nmi_watchdog();
	return true;
}

/*
 * One instruction. The Value field is what STALL, STALL_WHILE_TRUE,
 * SKIP_NEXT_INSTRUCTION_IF_TRUE, GOTO and ADD/SUBTRACT_VALUE use, as the
 * specification says. WRITE_REGISTER_VALUE also leaves its value as the
 * running value, as Linux's own interpreter does; firmware is tested
 * against that.
 */
static int erst_exec_one(struct erst_ctx *ctx, u32 i)
{
	const struct acpi_whea_header *e = &erst.entries[i];
	u64 budget = (u64)erst_timeout_us * NSEC_PER_USEC;
	u64 val;
	int rc = 0;

	switch (e->instruction) {
	case ACPI_ERST_READ_REGISTER:
		return erst_reg_read(i, &ctx->value);
	case ACPI_ERST_READ_REGISTER_VALUE:
		rc = erst_reg_read(i, &val);
		ctx->value = val == e->value;
		return rc;
	case ACPI_ERST_WRITE_REGISTER:
		return erst_reg_write(i, ctx->value);
	case ACPI_ERST_WRITE_REGISTER_VALUE:
		ctx->value = e->value;
		return erst_reg_write(i, e->value);
	case ACPI_ERST_NOOP:
		return 0;
	case ACPI_ERST_LOAD_VAR1:
		return erst_reg_read(i, &ctx->var1);
	case ACPI_ERST_LOAD_VAR2:
		return erst_reg_read(i, &ctx->var2);
	case ACPI_ERST_STORE_VAR1:
		return erst_reg_write(i, ctx->var1);
	case ACPI_ERST_ADD:
		ctx->var1 += ctx->var2;
		return 0;
	case ACPI_ERST_SUBTRACT:
		ctx->var1 -= ctx->var2;
		return 0;
	case ACPI_ERST_ADD_VALUE:
	case ACPI_ERST_SUBTRACT_VALUE:
		rc = erst_reg_read(i, &val);
		if (rc)
			return rc;
		val = e->instruction == ACPI_ERST_ADD_VALUE ? val + e->value : val - e->value;
		return erst_reg_write(i, val);
	case ACPI_ERST_STALL:
		udelay(min_t(u64, e->value, ERST_MAX_STALL_US));
		return 0;
	case ACPI_ERST_STALL_WHILE_TRUE:
		for (;;) {
			rc = erst_reg_read(i, &val);
			if (rc)
				return rc;
			if (val != e->value)
				return 0;
			if (!erst_spin(&budget, min_t(u64, ctx->var1, ERST_MAX_STALL_US) *
							NSEC_PER_USEC + ERST_SPIN_NS))
				return -ETIMEDOUT;
		}
	case ACPI_ERST_SKIP_NEXT_IF_TRUE:
		rc = erst_reg_read(i, &val);
		if (rc)
			return rc;
		if (val != e->value)
			return 0;
		ctx->ip += 2;
		return ERST_SET_IP;
	case ACPI_ERST_GOTO:
		ctx->ip = e->value;
		return ERST_SET_IP;
	case ACPI_ERST_SET_SRC_ADDRESS_BASE:
		return erst_reg_read(i, &ctx->src_base);
	case ACPI_ERST_SET_DST_ADDRESS_BASE:
		return erst_reg_read(i, &ctx->dst_base);
	}
	/* erst_check_entry() let no other instruction through */
	return -EINVAL;
}

/*
 * Run the program of one action: its entries in table order, the
 * instruction pointer counting only this action's entries. An action
 * without entries (BEGIN_* and END are optional) does nothing.
 */
static int erst_run(struct erst_ctx *ctx, u8 action)
{
	unsigned int steps = 0;
	u32 i, ip;
	int rc;

	ctx->ip = 0;
rewind:
	ip = 0;
	for (i = 0; i < erst.nr_entries; i++) {
		if (erst.entries[i].action != action)
			continue;
		if (ip == ctx->ip) {
			if (++steps > ERST_MAX_STEPS)
				return -ELOOP;
			rc = erst_exec_one(ctx, i);
			if (rc < 0)
				return rc;
			if (rc != ERST_SET_IP)
				ctx->ip++;
		}
		ip++;
		if (ctx->ip < ip)
			goto rewind;
	}
	return 0;
}

static int erst_run_value(u8 action, u64 input, u64 *ret)
{
	struct erst_ctx ctx = { .value = input };
	int rc;

	rc = erst_run(&ctx, action);
	if (rc)
		return rc;
	if (ret)
		*ret = ctx.value;
	return 0;
}

/* EXECUTE_OPERATION, wait while busy, fetch the status, END. */
static int erst_execute(void)
{
	u64 budget = (u64)erst_timeout_us * NSEC_PER_USEC;
	u64 busy, status;
	int rc;

	rc = erst_run_value(ACPI_ERST_EXECUTE_OPERATION, 0, NULL);
	if (rc)
		return rc;
	for (;;) {
		rc = erst_run_value(ACPI_ERST_CHECK_BUSY_STATUS, 0, &busy);
		if (rc)
			return rc;
		if (!busy)
			break;
		if (!erst_spin(&budget, ERST_SPIN_NS)) {
			pr_warn_ratelimited(FW_WARN
					    "operation not finished after %u us; giving up (raise the timeout_us parameter if the firmware is slow)\n",
					    erst_timeout_us);
			return -ETIMEDOUT;
		}
	}
	rc = erst_run_value(ACPI_ERST_GET_COMMAND_STATUS, 0, &status);
	if (rc)
		return rc;
	rc = erst_run_value(ACPI_ERST_END, 0, NULL);
	if (rc)
		return rc;
	return erst_status_to_errno(status);
}

/* Callers of the __erst_* operations hold erst_lock. */
static int __erst_read(u64 id)
{
	int rc;

	rc = erst_run_value(ACPI_ERST_BEGIN_READ, 0, NULL);
	if (!rc)
		rc = erst_run_value(ACPI_ERST_SET_RECORD_OFFSET, 0, NULL);
	if (!rc)
		rc = erst_run_value(ACPI_ERST_SET_RECORD_ID, id, NULL);
	if (!rc)
		rc = erst_execute();
	return rc;
}

static int __erst_write(void)
{
	int rc;

	rc = erst_run_value(ACPI_ERST_BEGIN_WRITE, 0, NULL);
	if (!rc)
		rc = erst_run_value(ACPI_ERST_SET_RECORD_OFFSET, 0, NULL);
	if (!rc)
		rc = erst_execute();
	return rc;
}

static int __erst_clear(u64 id)
{
	int rc;

	rc = erst_run_value(ACPI_ERST_BEGIN_CLEAR, 0, NULL);
	if (!rc)
		rc = erst_run_value(ACPI_ERST_SET_RECORD_ID, id, NULL);
	if (!rc)
		rc = erst_execute();
	return rc;
}

/*
 * In the panic path (oops_in_progress) or in NMI context the lock holder
 * may never run again: only try.
 */
static bool erst_lock_irqsave(unsigned long *flags)
{
	if (in_nmi() || oops_in_progress)
		return raw_spin_trylock_irqsave(&erst_lock, *flags);
	raw_spin_lock_irqsave(&erst_lock, *flags);
	return true;
}

size_t erst_fw_record_size(void)
{
	return erst.erange_size;
}

int erst_fw_write(int (*fill)(void *buf, size_t size, void *arg), void *arg)
{
	unsigned long flags;
	int rc;

	if (!erst_lock_irqsave(&flags))
		return -EBUSY;
	rc = fill(erst.erange, erst.erange_size, arg);
	if (!rc)
		rc = __erst_write();
	raw_spin_unlock_irqrestore(&erst_lock, flags);
	return rc;
}

int erst_fw_clear(u64 record_id)
{
	unsigned long flags;
	int rc;

	if (!erst_lock_irqsave(&flags))
		return -EBUSY;
	rc = __erst_clear(record_id);
	raw_spin_unlock_irqrestore(&erst_lock, flags);
	return rc;
}

ssize_t erst_fw_record_count(void)
{
	unsigned long flags;
	u64 count;
	int rc;

	if (!erst_lock_irqsave(&flags))
		return -EBUSY;
	rc = erst.ready ? erst_run_value(ACPI_ERST_GET_RECORD_COUNT, 0, &count) : -ENODEV;
	raw_spin_unlock_irqrestore(&erst_lock, flags);
	return rc ? rc : (ssize_t)count;
}

void erst_records_free(struct list_head *records)
{
	struct erst_record *rec, *tmp;

	list_for_each_entry_safe(rec, tmp, records, node) {
		list_del(&rec->node);
		kfree(rec);
	}
}

static bool erst_records_contain(const struct list_head *records, u64 id)
{
	const struct erst_record *rec;

	list_for_each_entry(rec, records, node)
		if (rec->id == id)
			return true;
	return false;
}

/*
 * Step the firmware's record id iterator (GET_RECORD_IDENTIFIER) and read
 * each record it names, until it answers "end", names a record already
 * seen (firmware that starts over, or that only moves on once a record was
 * read), or the bound is reached. The records are appended to @records,
 * whole and byte for byte; the lock is held for one record at a time.
 *
 * A record is copied out of the error log address range, under the lock,
 * into one buffer of the range's size, and from there into an allocation of
 * its own length: reading costs that buffer and what the records hold, not
 * the range's size (up to 1 MiB) for every record.
 */
int erst_fw_read_all(struct list_head *records)
{
	unsigned int steps, found = 0;
	struct erst_record *rec;
	u64 id, first = ERST_ID_END;
	unsigned long flags;
	void *buf;
	u32 len = 0;
	int rc = 0;

	buf = kvmalloc(erst.erange_size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	for (steps = 0; steps < 2 * ERST_MAX_RECORDS && found < ERST_MAX_RECORDS; steps++) {
		raw_spin_lock_irqsave(&erst_lock, flags);
		rc = erst_run_value(ACPI_ERST_GET_RECORD_ID, 0, &id);
		if (rc || id == ERST_ID_END || id == ERST_ID_UNSPECIFIED || id == first ||
		    erst_records_contain(records, id)) {
			raw_spin_unlock_irqrestore(&erst_lock, flags);
			break;
		}
		if (first == ERST_ID_END)
			first = id;
		rc = __erst_read(id);
		if (!rc) {
			__le32 raw_len;

			memcpy(&raw_len, (u8 *)erst.erange + CPER_LENGTH_OFFSET, sizeof(raw_len));
			len = le32_to_cpu(raw_len);
			if (len >= CPER_HEADER_LEN && len <= erst.erange_size)
				memcpy(buf, erst.erange, len);
			else
				rc = -EBADMSG;
		}
		raw_spin_unlock_irqrestore(&erst_lock, flags);

		if (rc == -ENOENT) {
			/* erased since the id was handed out */
			rc = 0;
			continue;
		}
		if (rc == -EBADMSG) {
			pr_warn(FW_BUG "record %#llx has an invalid length %u (range %llu); skipped\n",
				id, len, erst.erange_size);
			rc = 0;
			continue;
		}
		if (rc) {
			pr_err("reading record %#llx failed: %d\n", id, rc);
			break;
		}
		rec = kmalloc(struct_size(rec, data, len), GFP_KERNEL);
		if (!rec) {
			rc = -ENOMEM;
			break;
		}
		memcpy(rec->data, buf, len);
		rec->id = id;
		rec->len = len;
		list_add_tail(&rec->node, records);
		found++;
	}
	kvfree(buf);
	return rc;
}

static const char *erst_action_name(u8 action)
{
	if (action < ARRAY_SIZE(erst_action_names) && erst_action_names[action])
		return erst_action_names[action];
	return "unknown";
}

/* Access width in bits from the GAR, with the fixups Linux's APEI applies. */
static int erst_check_entry(u32 i, u8 *ret_width)
{
	const struct acpi_whea_header *e = &erst.entries[i];
	const struct acpi_generic_address *gar = &e->register_region;
	u64 addr = gar->address;
	u8 width;

	if (e->instruction >= ACPI_ERST_INSTRUCTION_RESERVED) {
		pr_err(FW_BUG "ERST entry %u (%s) has unknown instruction %u\n", i,
		       erst_action_name(e->action), e->instruction);
		return -EINVAL;
	}
	if (e->instruction == ACPI_ERST_MOVE_DATA) {
		/* would need mapping memory with the lock held and interrupts off */
		pr_err("ERST entry %u (%s) uses MOVE_DATA, which this driver does not support\n", i,
		       erst_action_name(e->action));
		return -EOPNOTSUPP;
	}
	if (!erst_ins_uses_register(e->instruction)) {
		*ret_width = 0;
		return 0;
	}
	if (!addr || gar->access_width < 1 || gar->access_width > 4) {
		pr_err(FW_BUG "ERST entry %u (%s): invalid register [%#llx, access size %u]\n", i,
		       erst_action_name(e->action), addr, gar->access_width);
		return -EINVAL;
	}
	width = 1U << (gar->access_width + 2);
	/* common firmware bug: a byte access size on an aligned dword or qword */
	if (gar->bit_offset == 0 && gar->bit_width == 32 && !(addr & 3) && width < 32)
		width = 32;
	else if (gar->bit_offset == 0 && gar->bit_width == 64 && !(addr & 7) && width < 64)
		width = 64;
	if (gar->bit_width + gar->bit_offset > width) {
		pr_err(FW_BUG "ERST entry %u (%s): bit width %u + offset %u exceed access width %u\n",
		       i, erst_action_name(e->action), gar->bit_width, gar->bit_offset, width);
		return -EINVAL;
	}
	if (gar->space_id != ACPI_ADR_SPACE_SYSTEM_MEMORY &&
	    (gar->space_id != ACPI_ADR_SPACE_SYSTEM_IO || width > 32)) {
		pr_err(FW_BUG "ERST entry %u (%s): unsupported address space %u (width %u)\n", i,
		       erst_action_name(e->action), gar->space_id, width);
		return -EINVAL;
	}
	*ret_width = width;
	return 0;
}

static int erst_check_table(void)
{
	const struct acpi_table_erst *tab = (const struct acpi_table_erst *)erst.table;
	bool present[ACPI_ERST_ACTION_RESERVED] = {};
	unsigned int k;
	u32 i;

	BUILD_BUG_ON(ARRAY_SIZE(erst_action_names) != ACPI_ERST_ACTION_RESERVED);

	if (tab->header.length < sizeof(*tab) ||
	    (tab->header_length != sizeof(*tab) &&
	     tab->header_length != sizeof(*tab) - sizeof(tab->header)) ||
	    tab->entries != (tab->header.length - sizeof(*tab)) / sizeof(struct acpi_erst_entry)) {
		pr_err(FW_BUG "ERST table is invalid (length %u, header length %u, %u entries)\n",
		       tab->header.length, tab->header_length, tab->entries);
		return -EINVAL;
	}
	erst.entries = (const struct acpi_whea_header *)(tab + 1);
	erst.nr_entries = tab->entries;
	for (i = 0; i < erst.nr_entries; i++)
		if (erst.entries[i].action < ACPI_ERST_ACTION_RESERVED)
			present[erst.entries[i].action] = true;
	for (k = 0; k < ARRAY_SIZE(erst_required_actions); k++) {
		if (!present[erst_required_actions[k]]) {
			pr_err(FW_BUG "ERST table has no instructions for %s\n",
			       erst_action_name(erst_required_actions[k]));
			return -EINVAL;
		}
	}
	return 0;
}

static int erst_region_cmp(const void *a, const void *b)
{
	const struct erst_region *x = a, *y = b;

	if (x->space_id != y->space_id)
		return x->space_id < y->space_id ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* Sort the register ranges and merge those that overlap or touch. */
static void erst_regions_merge(void)
{
	unsigned int k, n = 0;

	if (!erst.nr_regions)
		return;
	sort(erst.regions, erst.nr_regions, sizeof(*erst.regions), erst_region_cmp, NULL);
	for (k = 1; k < erst.nr_regions; k++) {
		struct erst_region *last = &erst.regions[n], *r = &erst.regions[k];

		if (r->space_id == last->space_id && r->start <= last->end)
			last->end = max(last->end, r->end);
		else
			erst.regions[++n] = *r;
	}
	erst.nr_regions = n + 1;
}

static void erst_unmap_registers(void)
{
	unsigned int k;

	for (k = 0; k < erst.nr_regions; k++) {
		struct erst_region *r = &erst.regions[k];

		if (r->vaddr)
			iounmap(r->vaddr);
		if (r->claimed && r->space_id == ACPI_ADR_SPACE_SYSTEM_MEMORY)
			release_mem_region(r->start, r->end - r->start);
		else if (r->claimed)
			release_region(r->start, r->end - r->start);
	}
	kfree(erst.regions);
	kfree(erst.regs);
	erst.regions = NULL;
	erst.regs = NULL;
	erst.nr_regions = 0;
}

/* Validate every entry, claim and map the registers they name. */
static int erst_map_registers(void)
{
	const struct acpi_generic_address *gar;
	struct erst_region *r;
	unsigned int k;
	u32 i;
	int rc;

	erst.regs = kcalloc(erst.nr_entries, sizeof(*erst.regs), GFP_KERNEL);
	erst.regions = kcalloc(erst.nr_entries, sizeof(*erst.regions), GFP_KERNEL);
	if (!erst.regs || !erst.regions) {
		rc = -ENOMEM;
		goto out_unmap;
	}

	for (i = 0; i < erst.nr_entries; i++) {
		rc = erst_check_entry(i, &erst.regs[i].width);
		if (rc)
			goto out_unmap;
		if (!erst.regs[i].width)
			continue;
		gar = &erst.entries[i].register_region;
		erst.regions[erst.nr_regions++] = (struct erst_region){
			.space_id = gar->space_id,
			.start = gar->address,
			.end = gar->address + erst.regs[i].width / 8,
		};
	}
	erst_regions_merge();

	for (k = 0; k < erst.nr_regions; k++) {
		u64 len;

		r = &erst.regions[k];
		len = r->end - r->start;
		if (r->space_id == ACPI_ADR_SPACE_SYSTEM_MEMORY)
			r->claimed = request_mem_region(r->start, len, ERST_RES_NAME);
		else
			r->claimed = request_region(r->start, len, ERST_RES_NAME);
		if (!r->claimed) {
			pr_err("cannot claim ERST registers [%s %#010llx-%#010llx]: another driver holds them (see /proc/iomem and /proc/ioports)\n",
			       r->space_id == ACPI_ADR_SPACE_SYSTEM_MEMORY ? "mem" : "io",
			       r->start, r->end - 1);
			rc = -EBUSY;
			goto out_unmap;
		}
		if (r->space_id != ACPI_ADR_SPACE_SYSTEM_MEMORY)
			continue;
		r->vaddr = ioremap(r->start, len);
		if (!r->vaddr) {
			rc = -ENOMEM;
			goto out_unmap;
		}
	}

	for (i = 0; i < erst.nr_entries; i++) {
		gar = &erst.entries[i].register_region;
		if (!erst.regs[i].width || gar->space_id != ACPI_ADR_SPACE_SYSTEM_MEMORY)
			continue;
		for (k = 0; k < erst.nr_regions; k++) {
			r = &erst.regions[k];
			if (r->space_id == gar->space_id && gar->address >= r->start &&
			    gar->address < r->end)
				erst.regs[i].vaddr = r->vaddr + (gar->address - r->start);
		}
	}
	return 0;

out_unmap:
	erst_unmap_registers();
	return rc;
}

static int erst_map_erange(void)
{
	unsigned long flags;
	u64 attr;
	int rc;

	raw_spin_lock_irqsave(&erst_lock, flags);
	rc = erst_run_value(ACPI_ERST_GET_ERROR_RANGE, 0, &erst.erange_base);
	if (!rc)
		rc = erst_run_value(ACPI_ERST_GET_ERROR_LENGTH, 0, &erst.erange_size);
	if (!rc)
		rc = erst_run_value(ACPI_ERST_GET_ERROR_ATTRIBUTES, 0, &attr);
	raw_spin_unlock_irqrestore(&erst_lock, flags);
	if (rc) {
		pr_err("cannot get the error log address range from the firmware: %d\n", rc);
		return rc;
	}
	if (attr & ERST_RANGE_NVRAM) {
		pr_err("the error log address range is NVRAM, which this driver does not support\n");
		return -EOPNOTSUPP;
	}
	if (!erst.erange_base || erst.erange_size < CPER_HEADER_LEN + 72 + 1 ||
	    erst.erange_size > SZ_1M) {
		pr_err(FW_BUG "invalid error log address range [%#llx, %llu bytes]\n",
		       erst.erange_base, erst.erange_size);
		return -EINVAL;
	}
	if (!request_mem_region(erst.erange_base, erst.erange_size, ERST_RES_NAME)) {
		pr_err("cannot claim the error log address range [mem %#010llx-%#010llx]: another driver holds it (see /proc/iomem)\n",
		       erst.erange_base, erst.erange_base + erst.erange_size - 1);
		return -EBUSY;
	}
	erst.erange = memremap(erst.erange_base, erst.erange_size, MEMREMAP_WB);
	if (!erst.erange) {
		release_mem_region(erst.erange_base, erst.erange_size);
		return -ENOMEM;
	}
	return 0;
}

/* The module's parameters in sysfs exist before erst_fw_init() and after erst_fw_exit(). */
static void erst_set_ready(bool ready)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&erst_lock, flags);
	erst.ready = ready;
	raw_spin_unlock_irqrestore(&erst_lock, flags);
}

int erst_fw_init(void)
{
	acpi_status status;
	int rc;

	if (acpi_disabled) {
		pr_err("ACPI is disabled (acpi=off): there is no ERST\n");
		return -ENODEV;
	}
	status = acpi_get_table(ACPI_SIG_ERST, 0, &erst.table);
	if (status == AE_NOT_FOUND) {
		pr_err("this machine has no ERST table (firmware without error record serialization; QEMU needs -device acpi-erst)\n");
		return -ENODEV;
	}
	if (ACPI_FAILURE(status)) {
		pr_err("cannot get the ERST table: %s\n", acpi_format_exception(status));
		return -EINVAL;
	}

	rc = erst_check_table();
	if (rc)
		goto out_put_table;
	rc = erst_map_registers();
	if (rc)
		goto out_put_table;
	rc = erst_map_erange();
	if (rc)
		goto out_unmap_registers;
	erst_set_ready(true);

	pr_info("ERST: %u instructions, error log address range [mem %#010llx-%#010llx], %zd records stored\n",
		erst.nr_entries, erst.erange_base, erst.erange_base + erst.erange_size - 1,
		erst_fw_record_count());
	return 0;

out_unmap_registers:
	erst_unmap_registers();
out_put_table:
	acpi_put_table(erst.table);
	erst.table = NULL;
	return rc;
}

void erst_fw_exit(void)
{
	erst_set_ready(false);
	memunmap(erst.erange);
	release_mem_region(erst.erange_base, erst.erange_size);
	erst_unmap_registers();
	acpi_put_table(erst.table);
	memset(&erst, 0, sizeof(erst));
}
