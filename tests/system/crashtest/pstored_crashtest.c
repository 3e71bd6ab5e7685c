// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstored_crashtest: ends the kernel the way the whole-system test asks, so
 * that each crash has a known reason and a known faulting function.
 *
 *   insmod pstored_crashtest.ko action=null     NULL pointer write (an oops)
 *   insmod pstored_crashtest.ko action=bug      BUG()
 *   insmod pstored_crashtest.ko action=lockup   spin with preemption off
 *                                               (a soft lockup)
 *   insmod pstored_crashtest.ko action=none     nothing: the module stays
 *                                               loaded, as a driver would
 *
 * With kernel.panic_on_oops=1 or kernel.softlockup_panic=1 each of these
 * panics, and pstore keeps the log. The functions are noinline so that they
 * show up by name in the RIP line and the call trace; crashtest_act() is
 * always inlined, so that the call trace's first frame, a return address in
 * crashtest_init(), is in an inlined function (the symbolizer's test).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/string.h>

static char *action = "";
module_param(action, charp, 0444);
MODULE_PARM_DESC(action, "How to crash: null, bug or lockup; or none");

static unsigned int lockup_seconds = 120;
module_param(lockup_seconds, uint, 0444);
MODULE_PARM_DESC(lockup_seconds, "How long action=lockup spins before giving up");

/* Read through READ_ONCE() so that the compiler cannot see the NULL. */
static int *crashtest_target;

static noinline void crashtest_null_deref(void)
{
	WRITE_ONCE(*READ_ONCE(crashtest_target), 1);
}

static noinline void crashtest_bug(void)
{
	BUG();
}

static noinline void crashtest_spin(void)
{
	unsigned long end = jiffies + lockup_seconds * HZ;

	preempt_disable();
	while (time_before(READ_ONCE(jiffies), end))
		cpu_relax();
	preempt_enable();
}

/* 0 when the action was to do nothing, -EIO when a crash did not happen. */
static __always_inline int crashtest_act(const char *what)
{
	if (!strcmp(what, "none"))
		return 0;
	if (!strcmp(what, "null"))
		crashtest_null_deref();
	else if (!strcmp(what, "bug"))
		crashtest_bug();
	else if (!strcmp(what, "lockup"))
		crashtest_spin();
	else
		return -EINVAL;

	/* Only reached when the lockup was not detected in time. */
	pr_err("action=%s did not crash the kernel\n", what);
	return -EIO;
}

static int __init crashtest_init(void)
{
	pr_info("action=%s\n", action);
	return crashtest_act(action);
}
module_init(crashtest_init);

/* For action=none: what stays loaded can be removed before the next insmod. */
static void __exit crashtest_exit(void)
{
}
module_exit(crashtest_exit);

MODULE_DESCRIPTION("Crashes the kernel on purpose for the pstored system test");
MODULE_LICENSE("GPL");
