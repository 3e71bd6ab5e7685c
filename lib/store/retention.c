/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "retention.h"

static uint64_t limit(uint64_t v)
{
	return v == PSTORED_CONFIG_UNLIMITED ? 0 : v;
}

StoreVacuumLimits store_vacuum_limits_from_config(const PstoredConfig *c)
{
	return (StoreVacuumLimits){
		.max_age = limit(c->max_age_usec),
		.max_use = limit(c->max_use),
		.max_crashes = limit(c->max_crashes),
		.keep_unsent = c->keep_unsent,
	};
}
