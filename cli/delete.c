// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl delete ID...: removes crashes from the store. Every id is
 * resolved before anything is removed, so that a typo deletes nothing.
 */

#include <errno.h>
#include <stdlib.h>

#include "crash-util.h"
#include "log.h"
#include "pstorectl.h"

int verb_delete(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *ids = json_array(), *removed = json_array();
	json_t *v;
	size_t i;
	int r;

	if (!ids || !removed)
		return log_oom();
	r = open_store(arg_store_dir, true, &s);
	if (r < 0)
		return r;

	for (int k = 1; k < argc; k++) {
		_cleanup_free_ char *id = NULL;

		r = resolve_crash_id(s, argv[k], &id);
		if (r < 0)
			return r;
		if (json_array_append_new(ids, json_string(id)) < 0)
			return log_oom();
	}

	json_array_foreach(ids, i, v) {
		const char *id = json_string_value(v);

		r = store_delete_crash(s, id);
		/* Named twice on the command line: gone already, which is what was asked. */
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return log_store_error(r, id);
		if (json_array_append(removed, v) < 0)
			return log_oom();
		if (arg_json == JSON_OFF)
			log_info("Deleted crash %s.", id);
	}

	if (arg_json != JSON_OFF) {
		/* The key of vacuum too: both remove crashes from the store. */
		json_auto_t *out = json_pack("{s:O}", "removed", removed);

		if (!out)
			return log_oom();
		return print_json(out);
	}
	return 0;
}
