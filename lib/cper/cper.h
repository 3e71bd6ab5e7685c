/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * lib/cper (installed as libpstored-cper, see pstore-cper(7)): decoding of
 * UEFI Common Platform Error Records (UEFI specification, appendix N) and of
 * the x86 machine-check record (struct mce,
 * arch/x86/include/uapi/asm/mce.h) to JSON and to text.
 *
 * The decoder never trusts its input: every offset and length is checked,
 * a malformed part yields an entry in "errors" naming its byte offset, and
 * decoding goes on with the rest of the buffer. The JSON schema
 * (schema_version 1) is documented in pstore-cper(7).
 *
 * No I/O policy, no logging: functions return 0/positive or -errno.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CPER_SCHEMA_VERSION 1

/* Size of the record header and of one section descriptor (UEFI N.2.1, N.2.2). */
#define CPER_RECORD_HEADER_SIZE 128
#define CPER_SECTION_DESCRIPTOR_SIZE 72

/* True if buf starts with a CPER record header: "CPER", 0xFFFFFFFF, sane lengths. */
bool cper_looks_like_record(const void *buf, size_t len);

/*
 * The decoding budget: every section costs its descriptor, its body (sections
 * that overlap each pay for the bytes they share) and what a compressed
 * section inflates to. Once it is spent, the sections left are not decoded
 * and an entry in "errors" says so. Decoding is then bounded by the budget,
 * however many descriptors point at the same bytes.
 */
#define CPER_DECODE_BUDGET (16u * 1024 * 1024)

/*
 * Decodes one or more concatenated records into
 *   {"schema_version":1, "records":[...], "errors":[{"offset":N,"message":"..."}]}
 * within the default budget. Returns 0 (even when "errors" is not empty), -ENOMEM.
 */
int cper_decode_json(const void *buf, size_t len, json_t **ret);

/* The same within budget bytes: returns 1 when the budget cut decoding short. */
int cper_decode_json_budget(const void *buf, size_t len, size_t budget, json_t **ret);

/*
 * Decodes a raw x86 struct mce (the payload of pstore mce-* files and of the
 * Linux MCE section) into {"schema_version":1, "mce":{...}, "errors":[...]}.
 * Returns 0, -ENOMEM.
 */
int cper_mce_decode_json(const void *buf, size_t len, json_t **ret);

/*
 * Streaming decoder: one record per step, so that memory does not grow
 * with the number of records in a dump. The buffer must outlive the
 * decoder.
 */
typedef struct CperDecoder CperDecoder;

int cper_decoder_new(const void *buf, size_t len, CperDecoder **ret);
CperDecoder *cper_decoder_free(CperDecoder *d);
/* Bytes the decoder may decode from now on, CPER_DECODE_BUDGET unless set. */
void cper_decoder_set_budget(CperDecoder *d, size_t budget);
/* Whether the budget stopped decoding somewhere. */
bool cper_decoder_budget_spent(const CperDecoder *d);

/*
 * Decodes the next record. Returns 1 and sets *ret_record (NULL when this
 * step only skipped bytes that hold no record) and *ret_errors (an array,
 * possibly empty, of the problems met in this step), 0 at the end of the
 * buffer (both untouched), -ENOMEM.
 */
int cper_decoder_next(CperDecoder *d, json_t **ret_record, json_t **ret_errors);

/*
 * The same with the record as compact JSON text, written straight from the decoder without a
 * tree: byte for byte what json_dumps(record, JSON_COMPACT) gives for cper_decoder_next()'s
 * record. *ret_text (NULL when the step only skipped bytes) is NUL-terminated, *ret_len bytes
 * long, and stays valid until the next call or cper_decoder_free().
 */
int cper_decoder_next_text(CperDecoder *d, const char **ret_text, size_t *ret_len,
			   json_t **ret_errors);

/*
 * The document of cper_decode_json_budget() as compact JSON text, byte for byte what
 * json_dumps(doc, JSON_COMPACT) gives, without a tree. Returns what that function returns, and
 * a string to free in *ret, *ret_len bytes long; -ENOMEM.
 */
int cper_decode_json_text(const void *buf, size_t len, size_t budget, char **ret, size_t *ret_len);

/*
 * Text output in the style of the kernel's cper_estatus_print():
 *   <prefix>event severity: fatal
 *   <prefix> Error 0, type: fatal
 *   <prefix>  section_type: memory error
 * prefix NULL means "[Hardware Error]: ". Returns 0 or -EIO.
 */
int cper_record_print_text(const json_t *record, const char *prefix, FILE *f);
/* Prints the entries of an "errors" array, one line each. */
int cper_errors_print_text(const json_t *errors, const char *prefix, FILE *f);
/* Text for the "mce" object of cper_mce_decode_json(). */
int cper_mce_print_text(const json_t *mce, const char *prefix, FILE *f);
/*
 * One line for lists and journal messages from a document of cper_decode_json() (its first
 * record) or cper_mce_decode_json(), for example "Corrected memory error: single-bit ECC,
 * address 0x0000000012345000 (CMC)". Returns 0 and a string to free in *ret, -ENODATA when
 * the document holds no record, -ENOMEM.
 */
int cper_summary(const json_t *doc, char **ret);
/* Decodes buf and prints every record and error as text. */
int cper_decode_text(const void *buf, size_t len, const char *prefix, FILE *f);

/* For __attribute__((cleanup())): frees *d. This header needs no other header of the tree. */
static inline void cper_decoder_freep(CperDecoder **d)
{
	cper_decoder_free(*d);
}
