// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstored: archive the kernel's pstore records at boot (see pstored(8)).
 *
 * "upload" is not done here: it runs pstored-upload (pstored-upload.c), the
 * one program of pstored that links libcurl and the thirty libraries it
 * pulls in, which would cost "pstored archive" at boot half of its start-up
 * and 4 MiB of memory for nothing.
 */

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "build-path.h"
#include "log.h"
#include "macro.h"
#include "pstored.h"

/*
 * The helper gets the whole command line, argv[0] too: its messages are pstored's. It is
 * installed, or beside pstored in the build tree; $PSTORED_UPLOAD_HELPER overrides both.
 */
static int run_upload_helper(int argc, char *argv[])
{
	_cleanup_free_ char *helper = NULL;

	if (helper_path("PSTORED_UPLOAD_HELPER", PSTORED_UPLOAD_HELPER, &helper) < 0)
		return log_oom();

	execv(helper, pstored_argv);
	return log_error_errno(errno,
			       "Failed to run the uploader %s: %m (pstored upload needs it: "
			       "reinstall pstored).",
			       helper);
}

static const Verb verbs[] = {
	{"archive", 1, 1, true, verb_archive,
	 "Move pstore records into the store and the journal (default)"},
	{"upload", 1, 1, false, run_upload_helper,
	 "Send the crashes that are due to the collectors"},
	{"verify-config", 1, 1, false, verb_verify_config,
	 "Show the problems in the configuration; fail if there is one"},
};

int main(int argc, char *argv[])
{
	return pstored_main(argc, argv, verbs, ARRAY_SIZE(verbs));
}
