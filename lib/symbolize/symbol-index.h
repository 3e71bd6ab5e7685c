/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The index of a debug file's function symbols by name, as kept on disk between runs of
 * pstorectl-symbolize (symbolize.c) so that a warm lookup does not sort vmlinux's 130,000
 * symbols again. Its format is described in symbol-index.c, which reads it. It holds indexes
 * into the debug file's symbol table, nothing else: names, addresses and sizes are always read
 * from the debug file itself, so a wrong index can at worst make a lookup fail (and then be
 * rebuilt), never give another function's lines. No libdw here: the reader is fuzzed alone.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "No next symbol": the symbol is the last of its section. */
#define SYMBOL_INDEX_NONE UINT32_MAX
/* The most entries of a symbol table the format takes: vmlinux has about 150,000. */
#define SYMBOL_INDEX_SYMBOLS_MAX (1U << 24)

/* The debug file an index is made of, which one read must match. */
typedef struct SymbolIndexKey {
	const uint8_t *build_id;
	size_t build_id_len; /* 1 to ELF_BUILD_ID_MAX */
	uint64_t file_size;
	uint32_t n_symbols; /* entries in its symbol table, the null symbol included */
} SymbolIndexKey;

typedef struct SymbolIndexEntry {
	uint32_t symbol; /* in the symbol table, 1 to n_symbols - 1 */
	uint32_t next;	 /* the next symbol of the same section by address, or SYMBOL_INDEX_NONE */
} SymbolIndexEntry;

/* A checked index: borrows the buffer it was read from. */
typedef struct SymbolIndex {
	const uint8_t *entries;
	size_t n_entries;
} SymbolIndex;

/* The size of an index file of n entries. */
size_t symbol_index_size(size_t n_entries);

/*
 * Writes the index of entries (n of them, in the order of their symbols' names) for the file of
 * key into buf, of symbol_index_size(n) bytes.
 */
void symbol_index_write(const SymbolIndexKey *key, const SymbolIndexEntry *entries, size_t n,
			uint8_t *buf);

/*
 * Checks buf, len bytes, as an index of the file of key: the format, its version, the build
 * id, the file's size and number of symbols, every symbol index in range. Returns 0 and *ret,
 * -EBADMSG for a malformed or foreign file, -ESTALE for an index of another file.
 */
int symbol_index_parse(const uint8_t *buf, size_t len, const SymbolIndexKey *key, SymbolIndex *ret);

SymbolIndexEntry symbol_index_entry(const SymbolIndex *index, size_t i);

/*
 * The name of symbol, which the caller reads from the debug file; NULL when it is not a
 * function symbol, which means that the index does not describe the file.
 */
typedef const char *(*SymbolNameFn)(uint32_t symbol, void *userdata);

/*
 * The entries whose symbols are named name, [*ret_first, *ret_end), by binary search. Returns 1
 * when there are some, 0 when there are none (or the index is out of order), -EBADMSG when an
 * entry looked at names no function symbol.
 */
int symbol_index_find(const SymbolIndex *index, const char *name, SymbolNameFn symbol_name,
		      void *userdata, size_t *ret_first, size_t *ret_end);
