/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Optional libraries loaded with dlopen(3) when first needed, as systemd loads its own
 * (src/shared/dlfcn-util.h): a program that links them would load them, and every library they
 * need, at each start, and could not run where they are not installed. sym_foo is foo.
 */

#include <stddef.h>

#define DLSYM_PROTOTYPE(f) extern typeof(f) *sym_##f
#define DLSYM_DEFINE(f) typeof(f) *sym_##f
#define DLSYM_ARG(f)                                                                               \
	{                                                                                          \
		(void **)&sym_##f, #f                                                              \
	}

typedef struct DlSymbol {
	void **sym;
	const char *name;
} DlSymbol;

/*
 * Loads soname into *dl, unless it is there already, and each of the n symbols: 0, or
 * -EOPNOTSUPP when the library or a symbol is missing (then *dl stays NULL). Never closed: the
 * symbols are used until the program exits.
 */
int dlopen_symbols(void **dl, const char *soname, const DlSymbol *symbols, size_t n);
