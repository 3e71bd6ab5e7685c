// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the pstored.conf parser: every input is a
 * configuration file, loaded through a memfd so that the real file path
 * (open, fstat, the line reader) is exercised. Built with ./configure
 * --enable-fuzzing CC=clang; seeds: tests/config/cases/\*\/pstored.conf.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	PstoredConfig *c = NULL;
	char *error = NULL;

	if (fd < 0) {
		fd = memfd_create("pstored.conf", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	if (pstored_config_load(path, NULL, &c, &error) == 0) {
		json_t *j = NULL;

		if (!error && pstored_config_to_json(c, &j) == 0) {
			free(json_dumps(j, JSON_COMPACT));
			json_decref(j);
		}
		pstored_config_free(c);
	} else if (!error)
		abort(); /* every failure on a readable file has a message */
	free(error);
	return 0;
}
