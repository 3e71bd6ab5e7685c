/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Retention of the crash store: store_vacuum(). */

#include <errno.h>

#include "store-internal.h"

static uint64_t summary_uint(json_t *summary, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(summary, key));

	return v > 0 ? (uint64_t)v : 0;
}

/* Whether the limits want a crash gone while the store holds count crashes of use bytes. */
static bool vacuum_wants(const StoreVacuumLimits *limits, json_t *summary, uint64_t count,
			 uint64_t use, uint64_t now)
{
	uint64_t archived = summary_uint(summary, "archived_at");
	bool too_old = limits->max_age > 0 && archived + limits->max_age < now;
	bool too_many = limits->max_crashes > 0 && count > limits->max_crashes;
	bool too_big = limits->max_use > 0 && use > limits->max_use;

	if (!too_old && !too_many && !too_big)
		return false;
	return !(limits->keep_unsent && summary_is_unsent(summary));
}

int store_vacuum(Store *s, const StoreVacuumLimits *limits, uint64_t now, json_t **ret_removed)
{
	_cleanup_close_ int lock_fd = -1;
	json_auto_t *summaries = NULL, *removed = NULL;
	uint64_t use = 0, count;
	json_t *summary;
	size_t i;
	int r;

	lock_fd = store_lock(s, true);
	if (lock_fd < 0)
		return lock_fd;
	r = index_repair(s, &summaries);
	if (r < 0)
		return r;
	removed = json_array();
	if (!removed)
		return -ENOMEM;

	count = json_array_size(summaries);
	json_array_foreach(summaries, i, summary)
		use += summary_uint(summary, "stored_bytes");

	json_array_foreach(summaries, i, summary) {
		const char *id = json_string_value(json_object_get(summary, "id"));

		if (!vacuum_wants(limits, summary, count, use, now))
			continue;
		r = store_delete_locked(s, id);
		if (r < 0)
			return r;
		if (json_array_append_new(removed, json_string(id)) < 0)
			return -ENOMEM;
		count--;
		use -= MIN(use, summary_uint(summary, "stored_bytes"));
	}

	r = (int)MIN(json_array_size(removed), (size_t)INT32_MAX);
	if (ret_removed)
		*ret_removed = TAKE_PTR(removed);
	return r;
}
