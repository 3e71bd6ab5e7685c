// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log of the crash at hand (archive.h, LogBuffer and LogSink): assembled
 * from its records, its newest MaxLogSize= bytes, or read back from the store.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"

const char *log_buffer_text(const LogBuffer *b)
{
	return b->field ? b->field + LOG_FIELD_PREFIX_LEN : "";
}

size_t log_buffer_text_len(const LogBuffer *b)
{
	return b->field ? b->len - LOG_FIELD_PREFIX_LEN : 0;
}

const char *log_buffer_field(const LogBuffer *b, size_t *ret_len)
{
	*ret_len = b->field ? b->len : LOG_FIELD_PREFIX_LEN;
	return b->field ?: JOURNAL_LOG_FIELD;
}

void log_buffer_reset(LogBuffer *b)
{
	if (b->field)
		b->len = LOG_FIELD_PREFIX_LEN;
}

int log_buffer_reserve(LogBuffer *b, size_t more)
{
	size_t len = b->field ? b->len : LOG_FIELD_PREFIX_LEN, want;
	char *p;

	if (b->field && more <= b->allocated - len)
		return 0;
	if (more > SSIZE_MAX - len)
		return -EFBIG;
	want = MAX(MIN(b->allocated * 2, (size_t)SSIZE_MAX), len + more);
	p = realloc(b->field, want);
	if (!p)
		return -ENOMEM;
	if (!b->field)
		memcpy(p, JOURNAL_LOG_FIELD, LOG_FIELD_PREFIX_LEN);
	b->field = p;
	b->len = len;
	b->allocated = want;
	return 0;
}

/* Copies len bytes into the ring of size n at *pos, wrapping around. */
static void ring_write(char *ring, size_t n, size_t *pos, const char *buf, size_t len)
{
	size_t first = MIN(len, n - *pos);

	memcpy(ring + *pos, buf, first);
	memcpy(ring, buf + first, len - first);
	*pos = (*pos + len) % n;
}

static void reverse(char *p, size_t len)
{
	for (size_t i = 0; i < len / 2; i++) {
		char c = p[i];

		p[i] = p[len - 1 - i];
		p[len - 1 - i] = c;
	}
}

int log_sink_write(LogSink *l, const char *buf, size_t len)
{
	size_t text_len = log_buffer_text_len(l->log), room;
	int r;

	if (len == 0 || l->max == 0)
		return 0;
	/* Only the newest max bytes of what is written can stay. */
	if (len > l->max) {
		l->cut = true;
		buf += len - l->max;
		len = l->max;
	}
	room = l->max - text_len;
	if (room > 0) {
		size_t n = MIN(len, room);

		r = log_buffer_reserve(l->log, n);
		if (r < 0)
			return r;
		memcpy(l->log->field + l->log->len, buf, n);
		l->log->len += n;
		buf += n;
		len -= n;
	}
	if (len == 0)
		return 0;
	l->cut = true;
	ring_write(l->log->field + LOG_FIELD_PREFIX_LEN, l->max, &l->head, buf, len);
	return 0;
}

void log_sink_finish(LogSink *l)
{
	char *text = l->log->field ? l->log->field + LOG_FIELD_PREFIX_LEN : NULL;
	size_t len = log_buffer_text_len(l->log);
	const char *nl;

	if (!l->cut)
		return;
	/* Rotated left by head, in place: the oldest byte first. */
	if (l->head > 0) {
		reverse(text, l->head);
		reverse(text + l->head, len - l->head);
		reverse(text, len);
		l->head = 0;
	}
	/* The first line lost its beginning: it goes too, unless it is all there is. */
	nl = memchr(text, '\n', len);
	if (nl && (size_t)(nl - text) + 1 < len) {
		size_t drop = (size_t)(nl - text) + 1;

		memmove(text, text + drop, len - drop);
		l->log->len -= drop;
	}
}

int read_stored_log(Archive *a, const char *id)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t n;
	int r;

	log_buffer_reset(&a->log);
	r = store_crash_path(a->store, id, "dmesg.txt", &path);
	if (r < 0)
		return log_oom();
	fd = open_regular_at(AT_FDCWD, path, O_RDONLY, 0);
	/* Every crash has its dmesg.txt: without it, the log would be lost with the records. */
	if (fd == -ENOENT)
		return log_error_errno(
			fd,
			"%s: missing, the crash was damaged or removed meanwhile; its "
			"records stay in pstore: delete the crash with 'pstorectl "
			"delete %s' and run 'pstored archive' again to archive it anew",
			path, id);
	if (fd < 0)
		return log_error_errno(fd, "%s: cannot read: %m", path);
	if (fstat(fd, &st) < 0)
		return log_error_errno(errno, "%s: cannot read: %m", path);
	/* One byte more than its size, to see its end in the same read. */
	r = log_buffer_reserve(&a->log, (size_t)st.st_size + 1);
	if (r >= 0)
		r = read_full(fd, a->log.field + a->log.len, a->log.allocated - a->log.len, &n);
	if (r < 0)
		return log_error_errno(r, "%s: cannot read: %m", path);
	a->log.len += n;
	return 0;
}
