// SPDX-License-Identifier: LGPL-2.1-or-later

#include <dlfcn.h>
#include <errno.h>

#include "dlopen-util.h"

int dlopen_symbols(void **dl, const char *soname, const DlSymbol *symbols, size_t n)
{
	if (*dl)
		return 0;
	*dl = dlopen(soname, RTLD_NOW | RTLD_NODELETE);
	if (!*dl)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < n; i++) {
		*symbols[i].sym = dlsym(*dl, symbols[i].name);
		if (!*symbols[i].sym) {
			(void)dlclose(*dl);
			*dl = NULL;
			return -EOPNOTSUPP;
		}
	}
	return 0;
}
