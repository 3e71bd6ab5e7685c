// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The on-disk index of a debug file's function symbols (symbol-index.h).
 *
 * Format, version 1: little-endian numbers, no padding.
 *
 *	offset	size	field
 *	0	8	magic "PSTSYMIX"
 *	8	4	version: 1
 *	12	4	number of entries N
 *	16	8	size in bytes of the debug file it was made of
 *	24	4	entries in that file's symbol table (libdwfl's count: the null symbol too)
 *	28	1	length L of its GNU build id, 1 to 64
 *	29	3	zero
 *	32	64	the build id, L bytes, then zeros
 *	96	8 * N	entries, in the order of their symbols' names (strcmp(), then address):
 *		4	the symbol's index in the symbol table, 1 to the count - 1
 *		4	the index of the next symbol of its section by address, or 0xffffffff
 *
 * The file is exactly 96 + 8 * N bytes. Anything else, another version included, is refused and
 * the caller builds the index again from the debug file. The order of the entries is not
 * checked here, since that needs the names: an index out of order makes symbol_index_find()
 * miss, and the caller then searches an index built afresh before it says a function is not
 * in the file.
 */

#include <errno.h>
#include <string.h>

#include "elf-note.h"
#include "macro.h"
#include "symbol-index.h"
#include "unaligned.h"

#define MAGIC "PSTSYMIX"
#define FORMAT_VERSION 1
#define HEADER_SIZE 96
#define ENTRY_SIZE 8

enum {
	OFF_VERSION = 8,
	OFF_N_ENTRIES = 12,
	OFF_FILE_SIZE = 16,
	OFF_N_SYMBOLS = 24,
	OFF_BUILD_ID_LEN = 28,
	OFF_BUILD_ID = 32,
};
BUILD_BUG_ON(OFF_BUILD_ID + ELF_BUILD_ID_MAX != HEADER_SIZE);

size_t symbol_index_size(size_t n_entries)
{
	return HEADER_SIZE + ENTRY_SIZE * n_entries;
}

void symbol_index_write(const SymbolIndexKey *key, const SymbolIndexEntry *entries, size_t n,
			uint8_t *buf)
{
	memset(buf, 0, HEADER_SIZE);
	memcpy(buf, MAGIC, strlen(MAGIC));
	unaligned_write_le32(buf + OFF_VERSION, FORMAT_VERSION);
	unaligned_write_le32(buf + OFF_N_ENTRIES, (uint32_t)n);
	unaligned_write_le64(buf + OFF_FILE_SIZE, key->file_size);
	unaligned_write_le32(buf + OFF_N_SYMBOLS, key->n_symbols);
	buf[OFF_BUILD_ID_LEN] = (uint8_t)key->build_id_len;
	memcpy(buf + OFF_BUILD_ID, key->build_id, key->build_id_len);
	for (size_t i = 0; i < n; i++) {
		unaligned_write_le32(buf + HEADER_SIZE + ENTRY_SIZE * i, entries[i].symbol);
		unaligned_write_le32(buf + HEADER_SIZE + ENTRY_SIZE * i + 4, entries[i].next);
	}
}

int symbol_index_parse(const uint8_t *buf, size_t len, const SymbolIndexKey *key, SymbolIndex *ret)
{
	static const uint8_t zeros[ELF_BUILD_ID_MAX];
	size_t n, id_len;

	if (len < HEADER_SIZE || memcmp(buf, MAGIC, strlen(MAGIC)) != 0 ||
	    unaligned_read_le32(buf + OFF_VERSION) != FORMAT_VERSION)
		return -EBADMSG;
	n = unaligned_read_le32(buf + OFF_N_ENTRIES);
	id_len = buf[OFF_BUILD_ID_LEN];
	if (n >= SYMBOL_INDEX_SYMBOLS_MAX || len != symbol_index_size(n) || id_len == 0 ||
	    id_len > ELF_BUILD_ID_MAX || memcmp(buf + OFF_BUILD_ID_LEN + 1, zeros, 3) != 0 ||
	    memcmp(buf + OFF_BUILD_ID + id_len, zeros, ELF_BUILD_ID_MAX - id_len) != 0)
		return -EBADMSG;
	if (id_len != key->build_id_len || memcmp(buf + OFF_BUILD_ID, key->build_id, id_len) != 0 ||
	    unaligned_read_le64(buf + OFF_FILE_SIZE) != key->file_size ||
	    unaligned_read_le32(buf + OFF_N_SYMBOLS) != key->n_symbols)
		return -ESTALE;
	/* Every symbol once at most, the null symbol never. */
	if (n >= key->n_symbols)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		uint32_t symbol = unaligned_read_le32(buf + HEADER_SIZE + ENTRY_SIZE * i),
			 next = unaligned_read_le32(buf + HEADER_SIZE + ENTRY_SIZE * i + 4);

		if (symbol == 0 || symbol >= key->n_symbols ||
		    (next != SYMBOL_INDEX_NONE && (next == 0 || next >= key->n_symbols)))
			return -EBADMSG;
	}
	*ret = (SymbolIndex){.entries = buf + HEADER_SIZE, .n_entries = n};
	return 0;
}

SymbolIndexEntry symbol_index_entry(const SymbolIndex *index, size_t i)
{
	const uint8_t *p = index->entries + ENTRY_SIZE * i;

	return (SymbolIndexEntry){.symbol = unaligned_read_le32(p),
				  .next = unaligned_read_le32(p + 4)};
}

/* strcmp() of name and entry i's name into *ret; -EBADMSG when the entry names nothing. */
static int compare_entry(const SymbolIndex *index, size_t i, const char *name,
			 SymbolNameFn symbol_name, void *userdata, int *ret)
{
	const char *s = symbol_name(symbol_index_entry(index, i).symbol, userdata);

	if (!s)
		return -EBADMSG;
	*ret = strcmp(name, s);
	return 0;
}

int symbol_index_find(const SymbolIndex *index, const char *name, SymbolNameFn symbol_name,
		      void *userdata, size_t *ret_first, size_t *ret_end)
{
	size_t lo = 0, hi = index->n_entries, first, end;
	int c = 1, r;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		r = compare_entry(index, mid, name, symbol_name, userdata, &c);
		if (r < 0)
			return r;
		if (c == 0) {
			lo = mid;
			break;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (c != 0)
		return 0;
	for (first = lo; first > 0; first--) {
		r = compare_entry(index, first - 1, name, symbol_name, userdata, &c);
		if (r < 0)
			return r;
		if (c != 0)
			break;
	}
	for (end = lo + 1; end < index->n_entries; end++) {
		r = compare_entry(index, end, name, symbol_name, userdata, &c);
		if (r < 0)
			return r;
		if (c != 0)
			break;
	}
	*ret_first = first;
	*ret_end = end;
	return 1;
}
