/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The retention limits of pstored.conf's [Store] section as store_vacuum()
 * takes them, so that pstored and `pstorectl vacuum` apply the same ones.
 */

#include "config/config.h"
#include "store.h"

/* PSTORED_CONFIG_UNLIMITED becomes 0 ("off"), as store_vacuum() wants it. */
StoreVacuumLimits store_vacuum_limits_from_config(const PstoredConfig *c);
