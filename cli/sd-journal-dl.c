// SPDX-License-Identifier: GPL-2.0-or-later

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "macro.h"
#include "sd-journal-dl.h"

#define DLSYM_DEFINE(f) typeof(f) *sym_##f
#define DLSYM_ARG(f)                                                                               \
	{                                                                                          \
		(void **)&sym_##f, #f                                                              \
	}

DLSYM_DEFINE(sd_journal_open);
DLSYM_DEFINE(sd_journal_open_directory);
DLSYM_DEFINE(sd_journal_open_files);
DLSYM_DEFINE(sd_journal_close);
DLSYM_DEFINE(sd_journal_add_match);
DLSYM_DEFINE(sd_journal_next);
DLSYM_DEFINE(sd_journal_restart_data);
DLSYM_DEFINE(sd_journal_enumerate_data);
DLSYM_DEFINE(sd_journal_get_realtime_usec);
DLSYM_DEFINE(sd_journal_set_data_threshold);

int dlopen_sd_journal(void)
{
	static const struct {
		void **sym;
		const char *name;
	} symbols[] = {
		DLSYM_ARG(sd_journal_open),
		DLSYM_ARG(sd_journal_open_directory),
		DLSYM_ARG(sd_journal_open_files),
		DLSYM_ARG(sd_journal_close),
		DLSYM_ARG(sd_journal_add_match),
		DLSYM_ARG(sd_journal_next),
		DLSYM_ARG(sd_journal_restart_data),
		DLSYM_ARG(sd_journal_enumerate_data),
		DLSYM_ARG(sd_journal_get_realtime_usec),
		DLSYM_ARG(sd_journal_set_data_threshold),
	};
	static void *dl;

	if (dl)
		return 0;
	/* Never closed: the symbols are used until the program exits. */
	dl = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_NODELETE);
	if (!dl)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < ARRAY_SIZE(symbols); i++) {
		*symbols[i].sym = dlsym(dl, symbols[i].name);
		if (!*symbols[i].sym) {
			(void)dlclose(dl);
			dl = NULL;
			return -EOPNOTSUPP;
		}
	}
	return 0;
}
