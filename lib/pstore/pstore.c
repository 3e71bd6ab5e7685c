/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pstore file names and dmesg part headers, as fs/pstore writes them (see
 * pstore.h for the formats).
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fs-util.h"
#include "pstore.h"
#include "zlib-util.h"

/* fs/pstore/platform.c pstore_type_names[], in the same order as PstoreType. */
static const char *const pstore_type_names[] = {
	[PSTORE_TYPE_DMESG] = "dmesg",
	[PSTORE_TYPE_MCE] = "mce",
	[PSTORE_TYPE_CONSOLE] = "console",
	[PSTORE_TYPE_FTRACE] = "ftrace",
	[PSTORE_TYPE_PMSG] = "pmsg",
	[PSTORE_TYPE_RTAS] = "rtas",
	[PSTORE_TYPE_POWERPC_OFW] = "powerpc-ofw",
	[PSTORE_TYPE_POWERPC_COMMON] = "powerpc-common",
	[PSTORE_TYPE_POWERPC_OPAL] = "powerpc-opal",
	[PSTORE_TYPE_UNKNOWN] = "unknown",
};
DEFINE_STRING_TABLE_TO_STRING(pstore_type, PstoreType, pstore_type_names, _PSTORE_TYPE_MAX)

static const char *const crash_kind_names[] = {
	[PSTORE_CRASH_KERNEL] = "kernel-crash",
	[PSTORE_CRASH_HARDWARE_ERROR] = "hardware-error",
	[PSTORE_CRASH_PREVIOUS_BOOT_LOG] = "previous-boot-log",
};
DEFINE_STRING_TABLE_TO_STRING(pstore_crash_kind, PstoreCrashKind, crash_kind_names,
			      _PSTORE_CRASH_KIND_MAX)

bool pstore_type_is_log(PstoreType t)
{
	return t == PSTORE_TYPE_CONSOLE || t == PSTORE_TYPE_FTRACE || t == PSTORE_TYPE_PMSG;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parses exactly len decimal digits; -ERANGE on overflow. */
static int parse_u64(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return 0;
}

int pstore_name_parse(const char *name, PstoreName *ret)
{
	static const char suffix[] = ".enc.z";
	PstoreName n = {.type = _PSTORE_TYPE_MAX};
	size_t len = strlen(name), type_len = 0;
	const char *rest, *dash;
	uint64_t id;
	int r;

	if (len > strlen(suffix) && streq(name + len - strlen(suffix), suffix)) {
		n.compressed = true;
		len -= strlen(suffix);
	}

	/* Type names can hold a dash (powerpc-ofw): match them as prefixes. */
	for (PstoreType t = 0; t < _PSTORE_TYPE_MAX; t++) {
		size_t l = strlen(pstore_type_names[t]);

		if (l < len && strneq(name, pstore_type_names[t], l) && name[l] == '-') {
			n.type = t;
			type_len = l;
			break;
		}
	}
	/* Kernels before 5.8 named types they did not know "type<N>". */
	if (n.type == _PSTORE_TYPE_MAX && strneq(name, "type", 4)) {
		size_t l = 4;

		while (l < len && is_digit(name[l]))
			l++;
		if (l > 4 && l < len && name[l] == '-') {
			n.type = PSTORE_TYPE_UNKNOWN;
			type_len = l;
		}
	}
	if (n.type == _PSTORE_TYPE_MAX || type_len >= sizeof(n.type_name))
		return -EINVAL;
	memcpy(n.type_name, name, type_len);

	/* <backend>-<id>: the id is after the last dash; backends have none (efi_pstore). */
	rest = name + type_len + 1;
	dash = memrchr(rest, '-', len - type_len - 1);
	if (!dash || dash == rest || (size_t)(dash - rest) >= sizeof(n.backend))
		return -EINVAL;
	r = parse_u64(dash + 1, (size_t)(name + len - dash - 1), &id);
	if (r < 0)
		return -EINVAL;
	memcpy(n.backend, rest, (size_t)(dash - rest));
	n.id = id;

	*ret = n;
	return 0;
}

int pstore_header_parse(const char *buf, size_t len, PstoreHeader *ret)
{
	PstoreHeader h = {};
	const char *p = buf, *end, *nl;
	uint64_t count, part;
	size_t l;

	/* Only the first line, and header lines are short. */
	nl = memchr(buf, '\n', MIN(len, (size_t)PSTORE_HEADER_MAX));
	if (!nl)
		return -EBADMSG;
	end = nl;

	for (l = 0; p + l < end && ((p[l] >= 'A' && p[l] <= 'Z') || (p[l] >= 'a' && p[l] <= 'z'));
	     l++)
		;
	if (l == 0 || l >= sizeof(h.reason) || p + l >= end || p[l] != '#')
		return -EBADMSG;
	memcpy(h.reason, p, l);
	p += l + 1;

	for (l = 0; p + l < end && is_digit(p[l]); l++)
		;
	if (parse_u64(p, l, &count) < 0 || count > UINT32_MAX)
		return -EBADMSG;
	p += l;
	if ((size_t)(end - p) < 5 || !strneq(p, " Part", 5))
		return -EBADMSG;
	p += 5;
	if (parse_u64(p, (size_t)(end - p), &part) < 0 || part == 0 || part > UINT32_MAX)
		return -EBADMSG;

	h.count = (unsigned)count;
	h.part = (unsigned)part;
	h.length = (size_t)(nl - buf) + 1;
	*ret = h;
	return 0;
}

void pstore_record_body(const PstoreRecord *r, const char *buf, size_t len, const char **ret,
			size_t *ret_len)
{
	size_t skip = r->has_header ? MIN(r->header.length, len) : 0;

	*ret = buf + skip;
	*ret_len = len - skip;
}

/* Opens a record for reading: O_NOFOLLOW, a regular file of at most max bytes. */
static int record_open(int dir_fd, const PstoreRecord *r, size_t max)
{
	_cleanup_close_ int fd = open_regular_at(dir_fd, r->name, O_RDONLY, 0);
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	return TAKE_FD(fd);
}

int pstore_record_read(int dir_fd, const PstoreRecord *r, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = record_open(dir_fd, r, max);

	if (fd < 0)
		return fd;
	return read_full_fd(fd, max, ret, ret_len);
}

int pstore_record_read_head(int dir_fd, const PstoreRecord *r, size_t max, char *buf,
			    size_t size, size_t *ret_len)
{
	_cleanup_close_ int fd = record_open(dir_fd, r, max);

	if (fd < 0)
		return fd;
	return read_full(fd, buf, size, ret_len);
}

int pstore_record_inflate(const char *buf, size_t len, size_t max, char **ret, size_t *ret_len)
{
	void *out;
	size_t out_len;
	int r;

	r = zlib_inflate_buffer_head(buf, len, max, &out, &out_len);
	if (r < 0)
		return r;
	*ret = out;
	*ret_len = out_len;
	return r;
}
