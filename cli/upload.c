// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl upload [ID...] [--target=NAME] [--force] [--config=FILE]: send
 * crashes to the collectors now. The uploader and libcurl, with the few
 * dozen libraries it pulls in, would cost every pstorectl run 15 ms of
 * start-up, most of what "pstorectl list" takes: so pstorectl resolves the
 * crash ids and runs the upload helper (pstorectl-upload.c) in its place.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-path.h"
#include "crash-util.h"
#include "log.h"
#include "macro.h"
#include "pstorectl.h"
#include "upload-options.h"

/* "--NAME=VALUE" into argv[*n], unless value is NULL. */
static int push_option(char **argv, size_t *n, const char *name, const char *value)
{
	if (!value)
		return 0;
	if (asprintf(&argv[*n], "--%s=%s", name, value) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

int verb_upload(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *helper = NULL;
	/* The helper logs at pstorectl's level (0 to 7). */
	char level[] = {'0' + log_get_max_level(), '\0'};
	char **args;
	size_t n = 0;
	int r;

	/* Installed, or beside pstorectl in the build tree; $PSTORECTL_UPLOAD_HELPER overrides both. */
	if (helper_path("PSTORECTL_UPLOAD_HELPER", PSTORECTL_UPLOAD_HELPER, &helper) < 0)
		return log_oom();

	/* "pstorectl" --log-level --store-dir --config --target --dmi-dir --force "--" IDs NULL */
	args = calloc(argc + 8, sizeof(char *));
	if (!args)
		return log_oom();
	args[n++] = (char *)program_invocation_short_name;
	if (push_option(args, &n, "log-level", level) < 0 ||
	    push_option(args, &n, "store-dir", arg_store_dir) < 0 ||
	    push_option(args, &n, "config", arg_upload_config) < 0 ||
	    push_option(args, &n, "target", arg_upload_target) < 0 ||
	    push_option(args, &n, "dmi-dir", arg_upload_dmi_dir) < 0 ||
	    (arg_upload_force && !(args[n++] = strdup("--force"))) || !(args[n++] = strdup("--"))) {
		r = log_oom();
		goto finish;
	}

	/* Ids are resolved here, with the messages of every other verb. */
	if (argc > 1) {
		r = open_store(arg_store_dir, false, &s);
		if (r < 0)
			goto finish;
	}
	for (int i = 1; i < argc; i++) {
		r = resolve_crash_id(s, argv[i], &args[n]);
		if (r < 0)
			goto finish;
		n++;
	}

	fflush(stdout);
	execv(helper, args);
	r = log_error_errno(errno,
			    "Failed to run the uploader %s: %m (pstorectl upload needs it: "
			    "reinstall pstored).",
			    helper);
finish:
	for (size_t i = 1; i < n; i++)
		free(args[i]);
	free(args);
	return r;
}
