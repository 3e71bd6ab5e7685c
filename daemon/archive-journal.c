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
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "archive-journal.h"
#include "macro.h"
#include "time-util.h"

int journal_crash_is_logged(sd_journal **j, const char *id)
{
	char match[sizeof("PSTORE_CRASH_ID=") + 64];
	int r;

	if (!*j) {
		r = sd_journal_open(j, SD_JOURNAL_LOCAL_ONLY);
		if (r < 0)
			return r;
	}
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
