// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstored-upload: what "pstored upload" runs (main.c), with the same command
 * line, so that only this program links the uploader and libcurl. Its one
 * verb is upload-verb.c.
 */

#include "macro.h"
#include "pstored.h"

static const Verb verbs[] = {
	{"upload", 1, 1, true, verb_upload, "Send the crashes that are due to the collectors"},
};

int main(int argc, char *argv[])
{
	return pstored_main(argc, argv, verbs, ARRAY_SIZE(verbs));
}
