/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Grouping pstore records into crashes (see pstore_group() in pstore.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pstore.h"

static int append_ptr(PstoreRecord ***array, size_t *n, PstoreRecord *r)
{
	PstoreRecord **p = reallocarray(*array, *n + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p[(*n)++] = r;
	*array = p;
	return 0;
}

static PstoreCrash *new_crash(PstoreScan *s, PstoreCrashKind kind)
{
	PstoreCrash *p = reallocarray(s->crashes, s->n_crashes + 1, sizeof(*p));

	if (!p)
		return NULL;
	s->crashes = p;
	p = &s->crashes[s->n_crashes++];
	*p = (PstoreCrash){.kind = kind};
	return p;
}

static bool is_grouped_dump(const PstoreRecord *r)
{
	return r->name_parsed && r->n.type == PSTORE_TYPE_DMESG && r->has_header;
}

/* kmsg_dump reasons that mean the kernel died or was about to. */
static bool reason_is_crash(const char *reason)
{
	return streq(reason, "Panic") || streq(reason, "Oops") || streq(reason, "Emergency");
}

static int compare_dumps(const void *a, const void *b)
{
	const PstoreRecord *x = *(PstoreRecord *const *)a, *y = *(PstoreRecord *const *)b;
	int c;

	c = strcmp(x->n.backend, y->n.backend);
	if (c != 0)
		return c;
	c = strcmp(x->header.reason, y->header.reason);
	if (c != 0)
		return c;
	if (x->header.count != y->header.count)
		return x->header.count < y->header.count ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->n.id != y->n.id)
		return x->n.id < y->n.id ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool same_dump(const PstoreRecord *first, const PstoreRecord *r)
{
	return streq(first->n.backend, r->n.backend) &&
	       streq(first->header.reason, r->header.reason) &&
	       first->header.count == r->header.count &&
	       r->time - first->time <= PSTORE_DUMP_WINDOW_USEC;
}

static int compare_parts_descending(const void *a, const void *b)
{
	const PstoreRecord *x = *(PstoreRecord *const *)a, *y = *(PstoreRecord *const *)b;

	return x->header.part > y->header.part ? -1 : x->header.part < y->header.part;
}

PstoreRecord *pstore_crash_record(const PstoreCrash *c, size_t i)
{
	if (i < c->n_records)
		return c->records[i];
	i -= c->n_records;
	if (i < c->n_other_dump)
		return c->other_dump[i];
	i -= c->n_other_dump;
	return i < c->n_logs ? c->logs[i] : NULL;
}

size_t pstore_crash_n_records(const PstoreCrash *c)
{
	return c->n_records + c->n_other_dump + c->n_logs;
}

/* When the crash's last record was stored; its logs do not count. */
static uint64_t crash_time(const PstoreCrash *c)
{
	uint64_t t = 0;

	for (size_t i = 0; i < c->n_records + c->n_other_dump; i++)
		t = MAX(t, pstore_crash_record(c, i)->time);
	return t;
}

static int compare_crashes(const void *a, const void *b)
{
	const PstoreCrash *x = a, *y = b;
	uint64_t tx = crash_time(x), ty = crash_time(y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(x->key->name, y->key->name);
}

/* Sorts the parts and finds the key record. */
static void finish_dump(PstoreCrash *c)
{
	qsort(c->records, c->n_records, sizeof(PstoreRecord *), compare_parts_descending);
	c->key = c->first = c->records[c->n_records - 1];
}

static int add_missing(PstoreCrash *c, unsigned first, unsigned last)
{
	PstorePartRange *p = reallocarray(c->missing_parts, c->n_missing_parts + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	c->missing_parts = p;
	c->missing_parts[c->n_missing_parts++] = (PstorePartRange){.first = first, .last = last};
	return 0;
}

/*
 * Keeps the newest max_parts parts in the log, the older ones with the other
 * dump, and lists the gaps below the highest part left, highest first. A
 * part number is a claim of the record: the gaps are ranges, as many as the
 * parts present at most, however large the numbers.
 */
static int finish_parts(PstoreCrash *c, size_t max_parts)
{
	unsigned next;
	int r;

	if (c->n_records > max_parts) {
		size_t cut = c->n_records - max_parts;

		for (size_t i = 0; i < cut; i++) {
			r = append_ptr(&c->other_dump, &c->n_other_dump, c->records[i]);
			if (r < 0)
				return r;
		}
		memmove(c->records, c->records + cut, max_parts * sizeof(PstoreRecord *));
		c->n_records = max_parts;
		c->n_parts_cut = cut;
	}
	next = c->records[0]->header.part;
	for (size_t i = 0; i < c->n_records; i++) {
		unsigned part = c->records[i]->header.part;

		if (part < next) {
			r = add_missing(c, part + 1, next);
			if (r < 0)
				return r;
		}
		next = part - 1;
	}
	return next >= 1 ? add_missing(c, 1, next) : 0;
}

static bool dump_has_part(const PstoreCrash *c, unsigned part)
{
	for (size_t i = 0; i < c->n_records; i++)
		if (c->records[i]->header.part == part)
			return true;
	return false;
}

/* Whether oops is the Oops dump that a kernel made before the panic that dumped panic. */
static bool oops_before_panic(const PstoreCrash *oops, const PstoreCrash *panic)
{
	uint64_t t_oops, t_panic;

	if (oops->n_records == 0 || !streq(oops->key->header.reason, "Oops") ||
	    !streq(oops->key->n.backend, panic->key->n.backend) ||
	    oops->key->header.count >= panic->key->header.count)
		return false;
	t_oops = crash_time(oops);
	t_panic = crash_time(panic);
	return t_oops <= t_panic && t_panic - t_oops <= PSTORE_OOPS_PANIC_WINDOW_USEC;
}

/* Makes the Oops dump part of the Panic crash, and leaves it without records. */
static void join_oops(PstoreCrash *panic, PstoreCrash *oops)
{
	panic->first = oops->key;
	if (oops->n_records > panic->n_records) {
		panic->other_dump = TAKE_PTR(panic->records);
		panic->n_other_dump = panic->n_records;
		panic->records = TAKE_PTR(oops->records);
		panic->n_records = oops->n_records;
	} else {
		panic->other_dump = TAKE_PTR(oops->records);
		panic->n_other_dump = oops->n_records;
	}
	*oops = (PstoreCrash){};
}

/* One death, one crash: each Panic dump takes the Oops dump that came right before it. */
static void join_oops_and_panics(PstoreScan *s, size_t first_crash)
{
	size_t n = first_crash;

	for (size_t i = first_crash; i < s->n_crashes; i++) {
		PstoreCrash *panic = &s->crashes[i], *oops = NULL;

		if (!streq(panic->key->header.reason, "Panic"))
			continue;
		for (size_t j = first_crash; j < s->n_crashes; j++)
			if (oops_before_panic(&s->crashes[j], panic) &&
			    (!oops || s->crashes[j].key->header.count > oops->key->header.count))
				oops = &s->crashes[j];
		if (oops)
			join_oops(panic, oops);
	}
	for (size_t i = first_crash; i < s->n_crashes; i++)
		if (s->crashes[i].n_records > 0)
			s->crashes[n++] = s->crashes[i];
	s->n_crashes = n;
}

static int group_dumps(PstoreScan *s, size_t max_parts)
{
	_cleanup_free_ PstoreRecord **dumps = NULL;
	size_t n = 0, first_crash = s->n_crashes;
	PstoreCrash *c = NULL;
	int r;

	for (size_t i = 0; i < s->n_records; i++)
		if (is_grouped_dump(&s->records[i])) {
			r = append_ptr(&dumps, &n, &s->records[i]);
			if (r < 0)
				return r;
		}
	if (n == 0)
		return 0;
	qsort(dumps, n, sizeof(PstoreRecord *), compare_dumps);

	for (size_t i = 0; i < n; i++) {
		PstoreRecord *rec = dumps[i];

		if (!c || !same_dump(c->records[0], rec) || dump_has_part(c, rec->header.part)) {
			c = new_crash(s, reason_is_crash(rec->header.reason)
						 ? PSTORE_CRASH_KERNEL
						 : PSTORE_CRASH_PREVIOUS_BOOT_LOG);
			if (!c)
				return -ENOMEM;
		}
		r = append_ptr(&c->records, &c->n_records, rec);
		if (r < 0)
			return r;
	}
	for (size_t i = first_crash; i < s->n_crashes; i++)
		finish_dump(&s->crashes[i]);
	join_oops_and_panics(s, first_crash);
	for (size_t i = first_crash; i < s->n_crashes; i++) {
		r = finish_parts(&s->crashes[i], max_parts);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_single(PstoreScan *s, PstoreRecord *rec, PstoreCrashKind kind)
{
	PstoreCrash *c = new_crash(s, kind);
	int r;

	if (!c)
		return -ENOMEM;
	r = append_ptr(&c->records, &c->n_records, rec);
	if (r < 0)
		return r;
	c->key = c->first = rec;
	return 0;
}

/* The newest kernel crash of a backend: the previous boot's, that its logs belong to. */
static PstoreCrash *newest_kernel_crash(PstoreScan *s, const char *backend, size_t n_dumps)
{
	PstoreCrash *best = NULL;

	for (size_t i = 0; i < n_dumps; i++) {
		PstoreCrash *c = &s->crashes[i];

		if (c->kind == PSTORE_CRASH_KERNEL && streq(c->key->n.backend, backend) &&
		    (!best || crash_time(c) >= crash_time(best)))
			best = c;
	}
	return best;
}

int pstore_group(PstoreScan *s, bool attach_logs, size_t max_parts)
{
	size_t n_dumps;
	int r;

	if (max_parts == 0)
		return -EINVAL;
	r = group_dumps(s, max_parts);
	if (r < 0)
		return r;
	n_dumps = s->n_crashes;

	for (size_t i = 0; i < s->n_records; i++) {
		PstoreRecord *rec = &s->records[i];

		if (is_grouped_dump(rec))
			continue;
		if (rec->name_parsed && pstore_type_is_log(rec->n.type)) {
			/* A log too large to take stays out of the crash, not to hold it in pstore. */
			PstoreCrash *c = attach_logs && rec->error >= 0
						 ? newest_kernel_crash(s, rec->n.backend, n_dumps)
						 : NULL;

			if (c)
				r = append_ptr(&c->logs, &c->n_logs, rec);
			else
				r = add_single(s, rec, PSTORE_CRASH_PREVIOUS_BOOT_LOG);
		} else if ((rec->name_parsed && rec->n.type == PSTORE_TYPE_MCE) || rec->is_cper)
			r = add_single(s, rec, PSTORE_CRASH_HARDWARE_ERROR);
		else if (rec->name_parsed && rec->n.type == PSTORE_TYPE_DMESG)
			r = add_single(s, rec, PSTORE_CRASH_KERNEL);
		else
			r = add_single(s, rec, PSTORE_CRASH_PREVIOUS_BOOT_LOG);
		if (r < 0)
			return r;
	}

	if (s->n_crashes > 0)
		qsort(s->crashes, s->n_crashes, sizeof(PstoreCrash), compare_crashes);
	return 0;
}
