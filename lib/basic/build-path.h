/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The build writes this file beside each program it makes: a program that finds it in its
 * own directory runs from the build tree, not from where it was installed.
 */
#define BUILD_TREE_MARKER ".pstored-build-tree"

/*
 * The helper program to run: $env_name if set; else, when the running program runs from the
 * build tree, the helper of the same name as installed beside it; else installed. As systemd's
 * invoke_callout_binary() (src/basic/build-path.c), so that a build runs without an install.
 * Returns 0 and a new string in *ret, or a negative errno.
 */
int helper_path(const char *env_name, const char *installed, char **ret);
