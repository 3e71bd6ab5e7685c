// SPDX-License-Identifier: GPL-2.0-only
/*
 * pstore_erst: pstore on ACPI ERST for kernels whose own ERST driver is
 * disabled (erst_disable) or absent.
 *
 *   mode=pstore      a backend of the kernel's pstore core (/sys/fs/pstore)
 *   mode=standalone  a filesystem and a kmsg dumper of this module's own
 *   mode=auto        pstore when the kernel has a pstore core (default)
 *
 * Two drivers must never drive one firmware interface, so the module
 * refuses to load while the kernel's own ERST driver is active.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pstore_erst.h"

enum erst_mode {
	ERST_MODE_AUTO,
	ERST_MODE_PSTORE,
	ERST_MODE_STANDALONE,
	_ERST_MODE_MAX,
};

static const char *const erst_mode_names[] = {
	[ERST_MODE_AUTO] = "auto",
	[ERST_MODE_PSTORE] = "pstore",
	[ERST_MODE_STANDALONE] = "standalone",
};

static char *mode = "auto";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "pstore (backend of the kernel's pstore), standalone (own filesystem and kmsg dumper) or auto (pstore when the kernel has a pstore core; default)");

static char *fsname = "pstore";
module_param(fsname, charp, 0444);
MODULE_PARM_DESC(fsname, "name of the standalone filesystem, for mount -t (default: pstore; use another name next to the kernel's pstore)");

unsigned int erst_kmsg_bytes = 10240;

/* A dump of 0 bytes would store nothing: refuse it, at load and in sysfs. */
static int erst_kmsg_bytes_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, UINT_MAX);
}

static const struct kernel_param_ops erst_kmsg_bytes_ops = {
	.set = erst_kmsg_bytes_set,
	.get = param_get_uint,
};
module_param_cb(kmsg_bytes, &erst_kmsg_bytes_ops, &erst_kmsg_bytes, 0644);
__MODULE_PARM_TYPE(kmsg_bytes, "uint");
MODULE_PARM_DESC(kmsg_bytes, "standalone mode: bytes of the kernel log one dump keeps, split into records (default: 10240; also a mount option)");

bool erst_record_shutdown;
module_param_named(record_shutdown, erst_record_shutdown, bool, 0444);
MODULE_PARM_DESC(record_shutdown, "also store the log at a normal shutdown, halt, power-off or restart (default: no, only panic, oops and emergency)");

unsigned int erst_timeout_us = 1000;
module_param_named(timeout_us, erst_timeout_us, uint, 0444);
MODULE_PARM_DESC(timeout_us, "longest wait for the firmware to finish one operation, in microseconds (default: 1000)");

static enum erst_mode erst_active_mode;

/*
 * What the firmware tells, read-only in /sys/module/pstore_erst/parameters/:
 * ACPI ERST has no action that reports the capacity, only the records
 * stored and, when a write fails, that there was no space for it.
 */
static int erst_status_set(const char *val, const struct kernel_param *kp)
{
	pr_err("%s is read-only: it reports what the firmware tells\n", kp->name);
	return -EPERM;
}

static int erst_record_count_get(char *buffer, const struct kernel_param *kp)
{
	ssize_t count = erst_fw_record_count();

	if (count < 0)
		return count;
	return sysfs_emit(buffer, "%zd\n", count);
}

static const struct kernel_param_ops erst_record_count_ops = {
	.set = erst_status_set,
	.get = erst_record_count_get,
};
module_param_cb(record_count, &erst_record_count_ops, NULL, 0444);
__MODULE_PARM_TYPE(record_count, "uint");
MODULE_PARM_DESC(record_count, "read-only: records stored in ERST now (GET_RECORD_COUNT)");

static int erst_record_size_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%zu\n", erst_fw_record_size());
}

static const struct kernel_param_ops erst_record_size_ops = {
	.set = erst_status_set,
	.get = erst_record_size_get,
};
module_param_cb(record_size, &erst_record_size_ops, NULL, 0444);
__MODULE_PARM_TYPE(record_size, "uint");
MODULE_PARM_DESC(record_size, "read-only: bytes of the firmware's record buffer, the largest record (error log address range)");

unsigned int erst_nospc_dumps;

static const struct kernel_param_ops erst_nospc_dumps_ops = {
	.set = erst_status_set,
	.get = param_get_uint,
};
module_param_cb(nospc_dumps, &erst_nospc_dumps_ops, &erst_nospc_dumps, 0444);
__MODULE_PARM_TYPE(nospc_dumps, "uint");
MODULE_PARM_DESC(nospc_dumps, "read-only: dumps since the module was loaded that ERST refused, wholly or in part, for lack of space");

/*
 * The reason policy of the 2011 RFC: a normal shutdown, halt, power-off or
 * restart stores nothing unless record_shutdown=1.
 */
int erst_max_reason(void)
{
	return erst_record_shutdown ? KMSG_DUMP_SHUTDOWN : KMSG_DUMP_EMERG;
}

/*
 * The kernel's ERST driver exports erst_disable, which is 0 exactly when
 * it initialised and drives the firmware; kernels without one do not have
 * the symbol.
 */
static bool erst_kernel_driver_active(void)
{
	int *kernel_erst_disable = __symbol_get("erst_disable");
	bool active;

	if (!kernel_erst_disable)
		return false;
	active = !READ_ONCE(*kernel_erst_disable);
	__symbol_put("erst_disable");
	return active;
}

static int __init pstore_erst_init(void)
{
	int m, rc;

	m = match_string(erst_mode_names, ARRAY_SIZE(erst_mode_names), mode);
	if (m < 0) {
		pr_err("unknown mode '%s': use auto, pstore or standalone\n", mode);
		return -EINVAL;
	}
	BUILD_BUG_ON(ARRAY_SIZE(erst_mode_names) != _ERST_MODE_MAX);

	if (erst_kernel_driver_active()) {
		pr_err("the kernel's own ERST driver is active; two drivers must not drive one firmware interface: boot with erst_disable to use this module\n");
		return -EBUSY;
	}

	rc = erst_fw_init();
	if (rc)
		return rc;

	erst_active_mode = m;
	if (erst_active_mode == ERST_MODE_AUTO)
		erst_active_mode = erst_backend_available() ? ERST_MODE_PSTORE : ERST_MODE_STANDALONE;

	if (erst_active_mode == ERST_MODE_PSTORE) {
		rc = erst_backend_init();
		if (rc)
			goto out_fw;
		return 0;
	}

	rc = erst_dump_init();
	if (rc)
		goto out_fw;
	rc = erst_fs_init(fsname);
	if (rc)
		goto out_dump;
	pr_info("standalone: mount -t %s none DIR to see the records\n", fsname);
	return 0;

out_dump:
	erst_dump_exit();
out_fw:
	erst_fw_exit();
	return rc;
}

static void __exit pstore_erst_exit(void)
{
	if (erst_active_mode == ERST_MODE_PSTORE) {
		erst_backend_exit();
	} else {
		erst_fs_exit();
		erst_dump_exit();
	}
	erst_fw_exit();
}

module_init(pstore_erst_init);
module_exit(pstore_erst_exit);

MODULE_AUTHOR("pstored developers");
MODULE_DESCRIPTION("pstore on ACPI ERST: ERST driver, pstore backend and standalone pstore filesystem");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
