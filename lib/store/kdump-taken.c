/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <store>/kdump-taken (kdump-taken.h): one line per kdump dump taken,
 *
 *	DEV TAB INO TAB DMESG-INO TAB DMESG-TIME TAB CRASH-ID TAB NAME TAB CRC NEWLINE
 *
 * DEV and INO are the st_dev and st_ino of the dump's directory, DMESG-INO
 * and DMESG-TIME the st_ino and the mtime (µs since the epoch) of its dmesg,
 * all four in decimal without sign or leading '+': together they name one
 * capture, the same after the directory was renamed; a new dump whose
 * directory or dmesg gets an inode number that an old one had has another
 * mtime. CRASH-ID is the crash of the store that holds the dump's dmesg: a
 * crash of its own, or the pstore crash of the same panic that it joined.
 * NAME is the directory's name when it was taken, for people: 1 to 255 bytes
 * without a control character (so without tab or newline). CRC is the CRC-32
 * (zlib's crc32()) of the line before its last tab in 8 lower-case hex
 * digits, as in the index (index.c): a line torn by a power cut or edited by
 * hand does not match.
 *
 * Lines are in the order the dumps were taken. A line that does not parse is
 * dropped, and its dump is taken for new: it is then found in the store by its
 * crash id, or joined again to the crash of the same panic, with nothing sent
 * twice. Each run that takes a dump rewrites the file whole, with the lines of
 * the dumps that are still in the kdump directory.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fs-util.h"
#include "kdump-taken.h"
#include "macro.h"
#include "parse-util.h"
#include "store-internal.h"

#define TAKEN_FIELDS 6 /* before the CRC */
#define TAKEN_CRC_LEN 8

void kdump_taken_done(KdumpTaken *t)
{
	free(t->entries);
	*t = (KdumpTaken){};
}

int kdump_taken_add(KdumpTaken *t, const KdumpTakenEntry *e)
{
	if (t->n == t->allocated) {
		size_t want = MAX(t->allocated * 2, (size_t)16);
		KdumpTakenEntry *p = reallocarray(t->entries, want, sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->entries = p;
		t->allocated = want;
	}
	t->entries[t->n++] = *e;
	return 0;
}

const KdumpTakenEntry *kdump_taken_find(const KdumpTaken *t, uint64_t dev, uint64_t ino,
					uint64_t dmesg_ino, uint64_t dmesg_time)
{
	for (size_t i = 0; i < t->n; i++) {
		const KdumpTakenEntry *e = &t->entries[i];

		if (e->dev == dev && e->ino == ino && e->dmesg_ino == dmesg_ino &&
		    e->dmesg_time == dmesg_time)
			return e;
	}
	return NULL;
}

static void taken_crc(const char *p, size_t len, char ret[static TAKEN_CRC_LEN + 1])
{
	snprintf(ret, TAKEN_CRC_LEN + 1, "%08lx", crc32(0, (const Bytef *)p, (uInt)len));
}

/* A field of decimal digits, without sign or blanks (parse_uint64()). */
static int parse_number(const char *p, size_t len, uint64_t *ret)
{
	char buf[sizeof("18446744073709551615")];

	if (len == 0 || len >= sizeof(buf))
		return -EBADMSG;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return parse_uint64(buf, ret) < 0 ? -EBADMSG : 0;
}

static bool name_is_plain(const char *p, size_t len)
{
	if (len == 0 || len > KDUMP_TAKEN_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < ' ' || p[i] == 0x7f)
			return false;
	return true;
}

/* Parses the line p ... eol (its newline). */
static int parse_line(const char *p, const char *eol, KdumpTakenEntry *ret)
{
	const char *field[TAKEN_FIELDS + 1], *q = p;
	size_t len[TAKEN_FIELDS + 1];
	char crc[TAKEN_CRC_LEN + 1];
	KdumpTakenEntry e = {};
	uint64_t *numbers[] = {&e.dev, &e.ino, &e.dmesg_ino, &e.dmesg_time};

	for (size_t i = 0; i < TAKEN_FIELDS; i++) {
		const char *tab = memchr(q, '\t', (size_t)(eol - q));

		if (!tab)
			return -EBADMSG;
		field[i] = q;
		len[i] = (size_t)(tab - q);
		q = tab + 1;
	}
	field[TAKEN_FIELDS] = q;
	len[TAKEN_FIELDS] = (size_t)(eol - q);
	if (len[TAKEN_FIELDS] != TAKEN_CRC_LEN)
		return -EBADMSG;
	taken_crc(p, (size_t)(q - 1 - p), crc);
	if (memcmp(field[TAKEN_FIELDS], crc, TAKEN_CRC_LEN) != 0)
		return -EBADMSG;

	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++)
		if (parse_number(field[i], len[i], numbers[i]) < 0)
			return -EBADMSG;
	if (len[4] != STORE_CRASH_ID_LEN)
		return -EBADMSG;
	memcpy(e.crash_id, field[4], STORE_CRASH_ID_LEN);
	if (!store_crash_id_is_valid(e.crash_id) || !name_is_plain(field[5], len[5]))
		return -EBADMSG;
	memcpy(e.name, field[5], len[5]);
	*ret = e;
	return 0;
}

int kdump_taken_parse(const char *buf, size_t len, KdumpTaken *ret)
{
	KdumpTaken t = {};
	int r;

	for (const char *p = buf, *eol; p < buf + len; p = eol + 1) {
		KdumpTakenEntry e;

		eol = memchr(p, '\n', (size_t)(buf + len - p));
		if (!eol) {
			t.n_bad++; /* a torn last line */
			break;
		}
		if (parse_line(p, eol, &e) < 0) {
			t.n_bad++;
			continue;
		}
		r = kdump_taken_add(&t, &e);
		if (r < 0) {
			kdump_taken_done(&t);
			return r;
		}
	}
	*ret = t;
	return 0;
}

int kdump_taken_format(const KdumpTaken *t, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r = 0;

	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < t->n && r == 0; i++) {
		const KdumpTakenEntry *e = &t->entries[i];
		char crc[TAKEN_CRC_LEN + 1];
		size_t start;

		if (fflush(f) == EOF) {
			r = -ENOMEM;
			break;
		}
		start = size;
		if (!store_crash_id_is_valid(e->crash_id) ||
		    !name_is_plain(e->name, strlen(e->name))) {
			r = -EINVAL;
			break;
		}
		if (fprintf(f, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s", e->dev,
			    e->ino, e->dmesg_ino, e->dmesg_time, e->crash_id, e->name) < 0 ||
		    fflush(f) == EOF) {
			r = -ENOMEM;
			break;
		}
		/* Each flush makes buf and size the text so far. */
		taken_crc(buf + start, size - start, crc);
		if (fprintf(f, "\t%s\n", crc) < 0)
			r = -ENOMEM;
	}
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	*ret = TAKE_PTR(buf);
	*ret_len = size;
	return 0;
}

int store_kdump_taken_read(Store *s, KdumpTaken *ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = read_full_file_at(s->dir_fd, STORE_KDUMP_TAKEN_FILE, STORE_KDUMP_TAKEN_MAX, &buf, &len);
	if (r == -ENOENT) {
		*ret = (KdumpTaken){};
		return 0;
	}
	if (r < 0)
		return r;
	return kdump_taken_parse(buf, len, ret);
}

int store_kdump_taken_write(Store *s, const KdumpTaken *t)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = kdump_taken_format(t, &buf, &len);
	if (r < 0)
		return r;
	return store_write_file(s, STORE_KDUMP_TAKEN_FILE, buf ?: "", len);
}
