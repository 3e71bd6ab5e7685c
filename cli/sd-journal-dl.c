// SPDX-License-Identifier: GPL-2.0-or-later

#include "dlopen-util.h"
#include "macro.h"
#include "sd-journal-dl.h"

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
	static const DlSymbol symbols[] = {
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

	return dlopen_symbols(&dl, "libsystemd.so.0", symbols, ARRAY_SIZE(symbols));
}
