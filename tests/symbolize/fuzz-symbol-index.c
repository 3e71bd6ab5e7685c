// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the reader of the on-disk symbol index (lib/symbolize/symbol-index.c):
 * any bytes as the index of a made-up debug file of 256 symbols, symbol i named "s%03u" of
 * i / 2 (names come in pairs, as static functions of one name in two files), every 17th not a
 * function. What the reader accepts must keep every index in range, and a lookup must return
 * only entries of the name looked for. Built with ./configure --enable-fuzzing CC=clang; seeds:
 * indexes of that table (tests/lib/fuzz-seeds).
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbol-index.h"

#define N_SYMBOLS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char names[N_SYMBOLS][8];

static const char *symbol_name(uint32_t symbol, void *userdata)
{
	(void)userdata;
	if (symbol == 0 || symbol >= N_SYMBOLS)
		abort(); /* the reader let an index out of range through */
	return symbol % 17 == 0 ? NULL : names[symbol];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t build_id[20] = {0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56,
					     0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d,
					     0x5e, 0x5f, 0x60, 0x61, 0x62, 0x63};
	const SymbolIndexKey key = {
		.build_id = build_id,
		.build_id_len = sizeof(build_id),
		.file_size = 1 << 20,
		.n_symbols = N_SYMBOLS,
	};
	SymbolIndex index;
	int r;

	for (unsigned i = 1; i < N_SYMBOLS; i++)
		snprintf(names[i], sizeof(names[i]), "s%03u", i / 2);
	r = symbol_index_parse(data, size, &key, &index);
	if (r == -EBADMSG || r == -ESTALE)
		return 0;
	if (r != 0 || index.n_entries >= N_SYMBOLS)
		abort();
	for (size_t i = 0; i < index.n_entries; i++) {
		SymbolIndexEntry e = symbol_index_entry(&index, i);

		if (e.symbol == 0 || e.symbol >= N_SYMBOLS ||
		    (e.next != SYMBOL_INDEX_NONE && (e.next == 0 || e.next >= N_SYMBOLS)))
			abort();
	}
	for (unsigned n = 0; n < N_SYMBOLS / 2 + 1; n += 7) {
		char name[8];
		size_t first, end;

		snprintf(name, sizeof(name), "s%03u", n);
		r = symbol_index_find(&index, name, symbol_name, NULL, &first, &end);
		if (r < 0 && r != -EBADMSG)
			abort();
		if (r <= 0)
			continue;
		if (first >= end || end > index.n_entries)
			abort();
		for (size_t i = first; i < end; i++)
			if (strcmp(symbol_name(symbol_index_entry(&index, i).symbol, NULL), name) !=
			    0)
				abort();
	}
	return 0;
}
