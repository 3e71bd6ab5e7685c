// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * symbolize_nested: a call inlined in a call inlined in a function, for tests/cli/test-symbolize.sh
 * (built with -g, never loaded): the frame in nested_outer must name both inlined calls, as
 * eu-addr2line -i does.
 */

#include <linux/compiler.h>
#include <linux/module.h>

static int nested_value;

static __always_inline int nested_inner(int x)
{
	return READ_ONCE(nested_value) * x;
}

static __always_inline int nested_middle(int x)
{
	return nested_inner(x) + READ_ONCE(nested_value);
}

static noinline int nested_outer(int x)
{
	return nested_middle(x) * 3;
}

static int __init nested_init(void)
{
	return nested_outer(READ_ONCE(nested_value)) ? 0 : -EINVAL;
}
module_init(nested_init);

MODULE_DESCRIPTION("Nested inlined calls for the symbolization test");
MODULE_LICENSE("GPL");
