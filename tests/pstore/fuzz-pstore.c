// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for pstore record names and dmesg part headers: the
 * input up to its first NUL byte is a file name for pstore_name_parse()
 * (as readdir() gives it: at most NAME_MAX bytes), the rest the start of a
 * record for pstore_header_parse() and pstore_record_body(). What they
 * return is checked against the formats of pstore.h. Built with
 * ./configure --enable-fuzzing CC=clang; seeds: tests/lib/fuzz-seeds.
 */

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pstore/pstore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t name_len = nul ? (size_t)(nul - data) : size;
	const char *rec = nul ? (const char *)nul + 1 : "";
	size_t rec_len = nul ? size - name_len - 1 : 0;
	PstoreRecord r = {};
	char name[NAME_MAX + 1];
	const char *body;
	size_t body_len;

	if (name_len <= NAME_MAX) {
		memcpy(name, data, name_len);
		name[name_len] = 0;
		if (pstore_name_parse(name, &r.n) == 0) {
			if (!pstore_type_to_string(r.n.type) ||
			    strnlen(r.n.type_name, sizeof(r.n.type_name)) ==
				    sizeof(r.n.type_name) ||
			    strnlen(r.n.backend, sizeof(r.n.backend)) == sizeof(r.n.backend) ||
			    r.n.backend[0] == 0 ||
			    !strneq(name, r.n.type_name, strlen(r.n.type_name)))
				abort();
			r.name_parsed = true;
		}
	}

	if (pstore_header_parse(rec, rec_len, &r.header) == 0) {
		if (r.header.length == 0 || r.header.length > rec_len ||
		    r.header.length > PSTORE_HEADER_MAX || rec[r.header.length - 1] != '\n' ||
		    r.header.part == 0 ||
		    strnlen(r.header.reason, sizeof(r.header.reason)) == sizeof(r.header.reason))
			abort();
		r.has_header = true;
	}
	pstore_record_body(&r, rec, rec_len, &body, &body_len);
	if (body < rec || body + body_len != rec + rec_len)
		abort();
	return 0;
}
