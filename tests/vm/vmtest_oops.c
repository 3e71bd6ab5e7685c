// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmtest_oops: oopses when loaded, for tests/vm. An oops is a dump that
 * does not end the machine (panic_on_oops=0), so the guest can tell what
 * the ERST module made of it afterwards; sysrq has only the panic.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init vmtest_oops_init(void)
{
	BUG();
	return 0;
}
module_init(vmtest_oops_init);

MODULE_DESCRIPTION("tests/vm: an oops when loaded");
MODULE_LICENSE("GPL");
