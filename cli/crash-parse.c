// SPDX-License-Identifier: GPL-2.0-or-later
/* The fields of a journal entry and a collected document as a crash (crash-parse.h). */

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crash-parse.h"
#include "elf-note.h"
#include "macro.h"
#include "parse-util.h"
#include "store/journal-fields.h"
#include "store/store.h"
#include "utf8-util.h"

typedef enum FieldAction {
	FIELD_ID,		/* crash.json's "id": exactly a crash id, and only one */
	FIELD_MACHINE,		/* "machine_id": a machine id, else none */
	FIELD_CRASH,		/* a string of crash.json */
	FIELD_ANALYSIS,		/* a string of crash.json's "analysis" */
	FIELD_TIME,		/* crash.json's "time", decimal */
	FIELD_RECORDS,		/* "records": [{"name": ...}], the names separated by spaces */
	FIELD_WORDS,		/* an array of strings, separated by spaces */
	FIELD_LOG,		/* the export document's "dmesg", read for one crash only */
	FIELD_BUILD_ID,		/* crash.json's "build_ids": "vmlinux" */
	FIELD_MODULE_BUILD_IDS, /* its "modules", as "name=id name=id" */
	FIELD_KDUMP,		/* a string of crash.json's "kdump" */
} FieldAction;

/* The journal fields of a crash (lib/store/journal-fields.c) and the keys they carry. */
static const struct {
	const char *field;
	const char *key;
	FieldAction action;
} crash_fields[] = {
	{"PSTORE_CRASH_ID", "id", FIELD_ID},
	{"PSTORE_KIND", "kind", FIELD_CRASH},
	{"PSTORE_REASON", "reason", FIELD_CRASH},
	{"PSTORE_DUMP_REASON", "pstore_reason", FIELD_CRASH},
	{"PSTORE_BACKEND", "backend", FIELD_CRASH},
	{"PSTORE_SOURCES", "sources", FIELD_WORDS},
	{"PSTORE_VMCORE", "vmcore", FIELD_KDUMP},
	{"PSTORE_VMCORE_FORMAT", "vmcore_format", FIELD_KDUMP},
	{"PSTORE_SEVERITY", "severity", FIELD_CRASH},
	{"_BOOT_ID", "boot_id", FIELD_CRASH},
	{"PSTORE_CRASHED_BOOT_ID", "crashed_boot_id", FIELD_CRASH},
	{"_MACHINE_ID", "machine_id", FIELD_MACHINE},
	{"_HOSTNAME", "hostname", FIELD_CRASH},
	{"KERNEL_VERSION", "kernel_version", FIELD_ANALYSIS},
	{"KERNEL_PACKAGE", "kernel_package", FIELD_ANALYSIS},
	{"KERNEL_BUILD_ID", "vmlinux", FIELD_BUILD_ID},
	{"KERNEL_MODULE_BUILD_IDS", "modules", FIELD_MODULE_BUILD_IDS},
	{"CRASH_SIGNATURE", "signature", FIELD_ANALYSIS},
	{"CRASH_FUNCTION", "function", FIELD_ANALYSIS},
	{"CRASH_MODULE", "module", FIELD_ANALYSIS},
	{"CRASH_MESSAGE", "message", FIELD_ANALYSIS},
	{"PSTORE_CRASH_TIMESTAMP", "time", FIELD_TIME},
	{"PSTORE_RECORDS", "records", FIELD_RECORDS},
	{JOURNAL_LOG_FIELD_NAME, "dmesg", FIELD_LOG},
};

/* The value as a JSON string, invalid UTF-8 replaced; NULL on OOM. */
static json_t *json_text(const char *v, size_t len)
{
	_cleanup_free_ char *text = utf8_sanitize(v, len, &len);

	return text ? json_stringn_nocheck(text, len) : NULL;
}

/* The words of v, separated by spaces, as strings, or as records {"name": word}. */
static json_t *json_words(const char *v, size_t len, bool records)
{
	json_auto_t *words = json_array();

	if (!words)
		return NULL;
	for (const char *end = v + len; v < end;) {
		const char *space = memchr(v, ' ', end - v) ?: end;
		json_t *word = json_text(v, space - v);

		if (json_array_append_new(words, records && word ? json_pack("{s:o}", "name", word)
								 : word) < 0)
			return NULL;
		v = space + 1;
	}
	return TAKE_PTR(words);
}

/* µs since the epoch, in decimal; 0 (unknown) for anything else, or past JSON's integers. */
static json_t *json_time(const char *v, size_t len)
{
	char buf[24];
	uint64_t t;

	if (len >= sizeof(buf))
		return json_integer(0);
	memcpy(buf, v, len);
	buf[len] = '\0';
	if (parse_uint64(buf, &t) < 0 || t > INT64_MAX)
		t = 0;
	return json_integer((json_int_t)t);
}

/*
 * The crash id, byte for byte: sanitising would make another id of a value that is none,
 * one that no match on the field finds. Null for anything else, and for a second id in
 * the entry: an entry of two crashes is neither.
 */
static json_t *json_crash_id(json_t *crash, const char *v, size_t len)
{
	char id[STORE_CRASH_ID_LEN + 1];

	if (json_object_get(crash, "id") || len != STORE_CRASH_ID_LEN)
		return json_null();
	memcpy(id, v, len);
	id[len] = '\0';
	return store_crash_id_is_valid(id) ? json_string(id) : json_null();
}

static bool is_lowercase_hex(const char *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return false;
	return true;
}

/*
 * A machine id as sd_id128_to_string() writes it, 32 lowercase hex digits; anything else is
 * none. The id tells the crashes of machines apart: whatever list and show read of the field,
 * however long (sd_journal_set_data_threshold() cuts what list reads), they must tell the same
 * machine.
 */
static bool is_machine_id(const char *v, size_t len)
{
	return len == 32 && is_lowercase_hex(v, len);
}

/* A GNU build id as pstored records it: lowercase hex of 1 to ELF_BUILD_ID_MAX bytes. */
static bool is_build_id(const char *v, size_t len)
{
	return len >= 2 && len <= 2 * ELF_BUILD_ID_MAX && len % 2 == 0 && is_lowercase_hex(v, len);
}

/*
 * "name=id name=id" of KERNEL_MODULE_BUILD_IDS as {"name": "id", ...}: the build ids of the
 * modules of the trace, which symbolization looks debug files up by. A pair that is not a
 * module name and a build id is left out: the name goes into a file name, the id into a URL.
 */
static json_t *json_module_build_ids(const char *v, size_t len)
{
	json_auto_t *modules = json_object();

	if (!modules)
		return NULL;
	for (const char *end = v + len; v < end;) {
		const char *space = memchr(v, ' ', end - v) ?: end, *eq = memchr(v, '=', space - v);
		char name[64]; /* more than a module name's 55 */

		if (eq && (size_t)(eq - v) < sizeof(name) && is_build_id(eq + 1, space - eq - 1)) {
			memcpy(name, v, eq - v);
			name[eq - v] = '\0';
			if (kernel_module_name_is_valid(name) &&
			    json_object_set_new(modules, name,
						json_stringn(eq + 1, space - eq - 1)) < 0)
				return NULL;
		}
		v = space + 1;
	}
	return TAKE_PTR(modules);
}

/* The object crash[key] ("build_ids", "kdump"), made if it is not there yet; NULL on OOM. */
static json_t *crash_object(json_t *crash, const char *key)
{
	json_t *o = json_object_get(crash, key);

	if (o)
		return o;
	o = json_object();
	return json_object_set_new(crash, key, o) < 0 ? NULL : o;
}

int crash_add_journal_field(json_t *crash, json_t *analysis, const void *field, size_t len,
			    bool with_log)
{
	const char *data = field, *eq = memchr(data, '=', len), *v;
	size_t n, vlen;
	json_t *value, *target;

	if (!eq)
		return 0;
	n = eq - data;
	v = eq + 1;
	vlen = len - n - 1;
	for (size_t i = 0; i < ARRAY_SIZE(crash_fields); i++) {
		if (strlen(crash_fields[i].field) != n ||
		    memcmp(data, crash_fields[i].field, n) != 0)
			continue;
		switch (crash_fields[i].action) {
		case FIELD_ID:
			value = json_crash_id(crash, v, vlen);
			break;
		case FIELD_MACHINE:
			if (!is_machine_id(v, vlen))
				return 0;
			value = json_stringn(v, vlen);
			break;
		case FIELD_TIME:
			value = json_time(v, vlen);
			break;
		case FIELD_RECORDS:
		case FIELD_WORDS:
			value = json_words(v, vlen, crash_fields[i].action == FIELD_RECORDS);
			break;
		case FIELD_LOG:
			if (!with_log)
				return 0;
			value = json_text(v, vlen);
			break;
		case FIELD_BUILD_ID:
			if (!is_build_id(v, vlen))
				return 0;
			value = json_stringn(v, vlen);
			break;
		case FIELD_MODULE_BUILD_IDS:
			value = json_module_build_ids(v, vlen);
			break;
		default:
			value = json_text(v, vlen);
		}
		switch (crash_fields[i].action) {
		case FIELD_ANALYSIS:
			target = analysis;
			break;
		case FIELD_BUILD_ID:
		case FIELD_MODULE_BUILD_IDS:
		case FIELD_KDUMP:
			target = crash_object(crash, crash_fields[i].action == FIELD_KDUMP
							     ? "kdump"
							     : "build_ids");
			if (!target) {
				json_decref(value);
				return -ENOMEM;
			}
			break;
		default:
			target = crash;
		}
		return json_object_set_new(target, crash_fields[i].key, value) < 0 ? -ENOMEM : 0;
	}
	return 0;
}

/*
 * jansson allocates each value on its own: "{}", 3 bytes of text, is some 240 bytes of
 * memory, and a document of [{},{},...] would take 80 times its size. While a document is
 * parsed, jansson's allocations go through these, which count them against the budget of
 * crash-parse.h for the bytes read so far; past it, allocation fails and so does the parse.
 * They wrap the allocator that was set, which must return malloc()'s blocks
 * (malloc_usable_size()). jansson's allocator is global: pstorectl and the fuzzer run one
 * thread.
 */
typedef struct ParseState {
	CrashDocumentRead read;
	void *userdata;
	size_t consumed; /* bytes read */
	size_t used;	 /* bytes jansson holds that it allocated since */
	json_malloc_t malloc;
	json_free_t free;
	bool over_budget, out_of_memory;
} ParseState;

static ParseState *parse_state;

static size_t parse_budget(const ParseState *p)
{
	if (p->consumed >
	    (CRASH_DOCUMENT_MEMORY_MAX - CRASH_DOCUMENT_MEMORY_BASE) / CRASH_DOCUMENT_MEMORY_FACTOR)
		return CRASH_DOCUMENT_MEMORY_MAX;
	return CRASH_DOCUMENT_MEMORY_FACTOR * p->consumed + CRASH_DOCUMENT_MEMORY_BASE;
}

static void *budget_malloc(size_t size)
{
	ParseState *p = parse_state;
	size_t budget = parse_budget(p);
	void *m;

	if (p->used > budget || size > budget - p->used) {
		p->over_budget = true;
		return NULL;
	}
	m = p->malloc(size);
	if (!m) {
		p->out_of_memory = true;
		return NULL;
	}
	p->used += malloc_usable_size(m);
	return m;
}

/* While the budget holds, jansson frees only what it allocated during the parse. */
static void budget_free(void *m)
{
	ParseState *p = parse_state;

	if (m)
		p->used -= MIN(malloc_usable_size(m), p->used);
	p->free(m);
}

static size_t counting_read(void *buffer, size_t size, void *userdata)
{
	ParseState *p = userdata;
	size_t n = p->read(buffer, size, p->userdata);

	if (n != (size_t)-1)
		p->consumed += n;
	return n;
}

int crash_document_parse(CrashDocumentRead read, void *userdata, json_error_t *error, json_t **ret)
{
	ParseState p = {.read = read, .userdata = userdata};
	json_auto_t *doc = NULL;

	json_get_alloc_funcs(&p.malloc, &p.free);
	parse_state = &p;
	json_set_alloc_funcs(budget_malloc, budget_free);
	doc = json_load_callback(counting_read, &p, 0, error);
	json_set_alloc_funcs(p.malloc, p.free);
	parse_state = NULL;
	if (!doc && p.out_of_memory)
		return -ENOMEM;
	if (!doc && p.over_budget)
		return -E2BIG;
	if (!doc)
		return -EINVAL;
	if (!json_is_integer(json_object_get(doc, "export_version")) ||
	    !store_crash_id_is_valid(json_string_value(json_object_get(doc, "id")) ?: ""))
		return -EBADMSG;
	*ret = TAKE_PTR(doc);
	return 0;
}

void crash_document_strip(json_t *doc)
{
	json_t *record;
	size_t i;

	(void)json_object_del(doc, "dmesg");
	(void)json_object_del(doc, "export_version");
	json_array_foreach(json_object_get(doc, "records"), i, record)
		(void)json_object_del(record, "data");
}
