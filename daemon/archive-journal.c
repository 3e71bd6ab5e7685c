// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What pstored archive does with journald: sends the journal entry of a crash,
 * has journald write it out, and finds it again (to confirm it, and for
 * idempotent reruns). The fields of the entry are in
 * lib/store/journal-fields.c, which the uploader's journal-remote target sends
 * as well, without libsystemd.
 */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "archive-journal.h"
#include "macro.h"
#include "time-util.h"

static int journal_open_local(sd_journal **j)
{
	return *j ? 0 : sd_journal_open(j, SD_JOURNAL_LOCAL_ONLY);
}

/* The time of the first (head) or the last entry of the boot id, under its match. */
static int boot_entry_time(sd_journal *j, bool head, uint64_t *ret)
{
	int r = head ? sd_journal_seek_head(j) : sd_journal_seek_tail(j);

	if (r < 0)
		return r;
	r = head ? sd_journal_next(j) : sd_journal_previous(j);
	if (r <= 0)
		return r < 0 ? r : -ENODATA;
	return sd_journal_get_realtime_usec(j, ret);
}

static int compare_boots(const void *a, const void *b)
{
	const JournalBoot *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

int journal_list_boots(sd_journal **j, JournalBoot **ret, size_t *ret_n)
{
	static const char field[] = "_BOOT_ID=";
	_cleanup_free_ JournalBoot *boots = NULL;
	size_t n = 0, k = 0, len;
	const void *data;
	int r;

	r = journal_open_local(j);
	if (r < 0)
		return r;
	r = sd_journal_query_unique(*j, "_BOOT_ID");
	if (r < 0)
		return r;
	SD_JOURNAL_FOREACH_UNIQUE(*j, data, len) {
		char s[SD_ID128_STRING_MAX];
		JournalBoot *v;

		if (len != strlen(field) + SD_ID128_STRING_MAX - 1)
			continue;
		memcpy(s, (const char *)data + strlen(field), SD_ID128_STRING_MAX - 1);
		s[SD_ID128_STRING_MAX - 1] = '\0';
		v = reallocarray(boots, n + 1, sizeof(JournalBoot));
		if (!v)
			return -ENOMEM;
		boots = v;
		if (sd_id128_from_string(s, &boots[n].id) >= 0)
			n++;
	}

	/* Each boot's first and last entry, as journalctl --list-boots finds them. */
	for (size_t i = 0; i < n; i++) {
		char match[sizeof(field) + SD_ID128_STRING_MAX];

		sd_journal_flush_matches(*j);
		snprintf(match, sizeof(match), "%s%s", field,
			 sd_id128_to_string(boots[i].id, (char[SD_ID128_STRING_MAX]){}));
		r = sd_journal_add_match(*j, match, 0);
		if (r < 0)
			return r;
		if (boot_entry_time(*j, true, &boots[i].first) < 0 ||
		    boot_entry_time(*j, false, &boots[i].last) < 0)
			continue; /* rotated away since it was listed */
		boots[k++] = boots[i];
	}
	sd_journal_flush_matches(*j);
	if (k > 0) /* qsort() takes no NULL, even for no elements */
		qsort(boots, k, sizeof(JournalBoot), compare_boots);
	*ret = TAKE_PTR(boots);
	*ret_n = k;
	return 0;
}

const JournalBoot *journal_boot_at(const JournalBoot *boots, size_t n, uint64_t t, uint64_t now)
{
	if (t == 0 || t > now)
		return NULL;
	for (size_t i = n; i > 0; i--)
		if (boots[i - 1].first <= t)
			return &boots[i - 1];
	return NULL;
}

int journal_crash_is_logged(sd_journal **j, const char *id)
{
	char match[sizeof("PSTORE_CRASH_ID=") + 64];
	int r;

	r = journal_open_local(j);
	if (r < 0)
		return r;
	sd_journal_flush_matches(*j);
	snprintf(match, sizeof(match), "PSTORE_CRASH_ID=%s", id);
	r = sd_journal_add_match(*j, match, 0);
	if (r < 0)
		return r;
	r = sd_journal_seek_head(*j);
	if (r < 0)
		return r;
	r = sd_journal_next(*j);
	return r < 0 ? r : r > 0;
}

int journal_send_crash_fields(const JournalCrashFields *f, const char *log_field, size_t len)
{
	struct iovec iov[JOURNAL_CRASH_FIELDS_MAX + 1];

	assert(f->n <= JOURNAL_CRASH_FIELDS_MAX);
	assert(len >= strlen(JOURNAL_LOG_FIELD) &&
	       memcmp(log_field, JOURNAL_LOG_FIELD, strlen(JOURNAL_LOG_FIELD)) == 0);

	memcpy(iov, f->iov, f->n * sizeof(*iov));
	iov[f->n] = (struct iovec){.iov_base = (char *)log_field, .iov_len = len};
	return sd_journal_sendv(iov, (int)f->n + 1);
}

int journal_send_crash(json_t *crash, const char *log_field, size_t len)
{
	JournalCrashFields f;
	int r;

	r = journal_crash_fields(crash, &f);
	if (r < 0)
		return r;
	r = journal_send_crash_fields(&f, log_field, len);
	journal_crash_fields_done(&f);
	return r;
}

/*
 * A Varlink call on a stream socket: the request is a JSON object followed by
 * a NUL byte, and so is the reply, {"parameters":{...}} on success or
 * {"error":"interface.Name","parameters":{...}}. Synchronize replies with no
 * parameters; a reply of more than a few hundred bytes is not journald's.
 */
int journal_synchronize(void)
{
	static const char request[] = "{\"method\":\"io.systemd.Journal.Synchronize\","
				      "\"parameters\":{}}";
	struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = JOURNAL_VARLINK_SOCKET};
	_cleanup_close_ int fd = -1;
	json_auto_t *reply = NULL;
	char buf[4096];
	size_t len = 0, sent = 0;
	usec_t deadline = now_monotonic_usec() + JOURNAL_SYNCHRONIZE_TIMEOUT_SEC * USEC_PER_SEC;
	const char *error;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		/* No socket at all is journald not running, as a socket nobody listens on. */
		return errno == ENOENT ? -ECONNREFUSED : -errno;

	while (sent < sizeof(request)) { /* with its NUL */
		ssize_t n = send(fd, request + sent, sizeof(request) - sent, MSG_NOSIGNAL);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			sent += (size_t)n;
	}

	while (len == 0 || buf[len - 1] != '\0') {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		usec_t now;
		ssize_t n;
		int k;

		if (len == sizeof(buf))
			return -EBADMSG;
		now = now_monotonic_usec();
		k = now >= deadline ? 0
				    : poll(&p, 1, (int)((deadline - now + 999) / USEC_PER_MSEC));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ETIMEDOUT;
		n = recv(fd, buf + len, sizeof(buf) - len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) /* closed without a reply: journald went away */
			return -ECONNRESET;
		len += (size_t)n;
	}

	reply = json_loadb(buf, len - 1, 0, NULL);
	if (!json_is_object(reply))
		return -EBADMSG;
	error = json_string_value(json_object_get(reply, "error"));
	if (!error)
		return 0;
	/* journald before systemd 245 has no Varlink socket; one that has it but not the method. */
	if (streq(error, "org.varlink.service.MethodNotFound"))
		return -EOPNOTSUPP;
	return -EIO;
}
