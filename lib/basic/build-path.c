// SPDX-License-Identifier: LGPL-2.1-or-later

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-path.h"
#include "macro.h"

/*
 * The running program's directory if BUILD_TREE_MARKER is there, else NULL: a program whose
 * place cannot be told (no /proc, out of memory) counts as installed.
 */
static char *build_tree_dir(void)
{
	_cleanup_free_ char *exe = realpath("/proc/self/exe", NULL);
	_cleanup_free_ char *marker = NULL;
	char *slash = exe ? strrchr(exe, '/') : NULL;

	if (!slash)
		return NULL;
	*slash = '\0';
	if (asprintf(&marker, "%s/" BUILD_TREE_MARKER, exe) < 0) {
		marker = NULL;
		return NULL;
	}
	if (faccessat(AT_FDCWD, marker, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	return TAKE_PTR(exe);
}

int helper_path(const char *env_name, const char *installed, char **ret)
{
	_cleanup_free_ char *dir = NULL;
	const char *e = secure_getenv(env_name), *name;
	char *p;

	if (!e)
		dir = build_tree_dir();
	if (dir) {
		name = strrchr(installed, '/');
		if (asprintf(&p, "%s/%s", dir, name ? name + 1 : installed) < 0)
			return -ENOMEM;
	} else {
		p = strdup(e ?: installed);
		if (!p)
			return -ENOMEM;
	}
	*ret = p;
	return 0;
}
