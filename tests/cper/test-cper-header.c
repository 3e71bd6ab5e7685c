// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * <cper.h> is self-contained: this file is built with -I lib/cper and no other include path
 * of the tree (lib/cper/Makemodule.am), as a program outside it would be, so a private
 * header that cper.h pulls in fails the build. It decodes a buffer that is no record.
 */

#include <stdlib.h>

#include <cper.h>

int main(void)
{
	__attribute__((cleanup(cper_decoder_freep))) CperDecoder *d = NULL;
	static const char buf[CPER_RECORD_HEADER_SIZE] = "not a CPER record";

	if (cper_looks_like_record(buf, sizeof(buf)))
		return EXIT_FAILURE;
	return cper_decoder_new(buf, sizeof(buf), &d) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
