// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kmsg dumper of the standalone mode. On a panic, oops or emergency
 * restart it writes the last kmsg_bytes of the kernel log to ERST, newest
 * first, in records headed "<Reason>#<n> Part<m>" (Part1 the newest chunk,
 * <n> counting dumps since boot), the format pstore uses.
 *
 * As the 2011 RFC "pstore: Don't use persistent store for normal shutdown"
 * argued, a normal shutdown, halt, power-off or kexec should not fill the
 * few kilobytes of firmware storage with routine logs: those are stored only
 * with record_shutdown=1 (kmsg_dumper.max_reason carries that policy).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "pstore_erst.h"

static char *erst_dump_buf;
static size_t erst_dump_bufsize;
static unsigned int erst_dump_count;
static bool erst_dumped_panic;
static DEFINE_SPINLOCK(erst_dump_lock);

static void erst_dump(struct kmsg_dumper *dumper, enum kmsg_dump_reason reason)
{
	struct kmsg_dump_iter iter;
	unsigned int part = 1, count;
	size_t total = 0, hsize, len;
	unsigned long flags;
	u64 id;
	int rc;

	/* a concurrent dump on another CPU may never finish: never wait in panic */
	if (oops_in_progress || reason == KMSG_DUMP_PANIC) {
		if (!spin_trylock_irqsave(&erst_dump_lock, flags)) {
			pr_err("dump skipped: another dump is in progress\n");
			return;
		}
	} else {
		spin_lock_irqsave(&erst_dump_lock, flags);
	}

	/*
	 * panic() with panic= set ends in emergency_restart(), which dumps
	 * again: that log would only repeat the panic's, in scarce storage.
	 */
	if (reason == KMSG_DUMP_EMERG && erst_dumped_panic)
		goto out_unlock;
	erst_dumped_panic |= reason == KMSG_DUMP_PANIC;

	count = ++erst_dump_count;
	kmsg_dump_rewind(&iter);
	while (total < READ_ONCE(erst_kmsg_bytes)) {
		hsize = scnprintf(erst_dump_buf, erst_dump_bufsize, "%s#%u Part%u\n",
				  kmsg_dump_reason_str(reason), count, part);
		if (!kmsg_dump_get_buffer(&iter, true, erst_dump_buf + hsize,
					  erst_dump_bufsize - hsize, &len))
			break;
		rc = erst_pstore_write(PSTORE_TYPE_DMESG, false, erst_dump_buf, hsize + len, &id);
		if (rc) {
			if (rc == -ENOSPC)
				WRITE_ONCE(erst_nospc_dumps, erst_nospc_dumps + 1);
			break;
		}
		total += len;
		part++;
	}
out_unlock:
	spin_unlock_irqrestore(&erst_dump_lock, flags);
}

static struct kmsg_dumper erst_dumper = {
	.dump = erst_dump,
};

int erst_dump_init(void)
{
	int rc;

	erst_dump_bufsize = erst_pstore_payload_max();
	erst_dump_buf = kmalloc(erst_dump_bufsize, GFP_KERNEL);
	if (!erst_dump_buf)
		return -ENOMEM;
	erst_dumper.max_reason = erst_max_reason();
	rc = kmsg_dump_register(&erst_dumper);
	if (rc) {
		pr_err("registering the kmsg dumper failed: %d\n", rc);
		kfree(erst_dump_buf);
		erst_dump_buf = NULL;
	}
	return rc;
}

void erst_dump_exit(void)
{
	kmsg_dump_unregister(&erst_dumper);
	kfree(erst_dump_buf);
	erst_dump_buf = NULL;
}
