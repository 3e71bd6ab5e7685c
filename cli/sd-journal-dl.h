/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * sd-journal, loaded with dlopen(3) when a journal source is read, as systemd
 * loads its optional libraries: linked, libsystemd and the eight libraries it
 * needs would be loaded by every run of pstorectl, "pstorectl list" on the
 * store too (see cli/Makemodule.am). sym_sd_journal_foo is sd_journal_foo.
 */

#include <systemd/sd-journal.h>

#include "dlopen-util.h"

DLSYM_PROTOTYPE(sd_journal_open);
DLSYM_PROTOTYPE(sd_journal_open_directory);
DLSYM_PROTOTYPE(sd_journal_open_files);
DLSYM_PROTOTYPE(sd_journal_close);
DLSYM_PROTOTYPE(sd_journal_add_match);
DLSYM_PROTOTYPE(sd_journal_next);
DLSYM_PROTOTYPE(sd_journal_restart_data);
DLSYM_PROTOTYPE(sd_journal_enumerate_data);
DLSYM_PROTOTYPE(sd_journal_get_realtime_usec);
DLSYM_PROTOTYPE(sd_journal_set_data_threshold);

/* Loads libsystemd.so.0 once: 0, or -EOPNOTSUPP if it or a symbol is missing. */
int dlopen_sd_journal(void);
