// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for what the uploader reads of a collector: the input is
 * the raw answer to a PUT, status line, headers and body, which a server on
 * 127.0.0.1 sends back to a real exchange of lib/upload/http.c (libcurl
 * reads it); of what it got, the message kept as last_error
 * (lib/upload/answer.h), which must be printable, valid UTF-8, the outcome
 * (policy.h) and the time of the next attempt, which must stay within a day.
 * Built with ./configure --enable-fuzzing CC=clang; seeds:
 * tests/lib/fuzz-seeds.
 */

#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macro.h"
#include "upload/answer.h"
#include "upload/http.h"
#include "upload/policy.h"
#include "utf8-util.h"

static int listen_fd = -1;
static char url[64];

/* The answer of the exchange going on, which the server sends whatever was asked. */
static pthread_mutex_t answer_lock = PTHREAD_MUTEX_INITIALIZER;
static const uint8_t *answer;
static size_t answer_len;

/*
 * Sends each connection the answer and closes its side, then reads what the client sent
 * until it closes its own: a server that closed with the request unread would reset the
 * connection under the client's feet.
 */
static void *serve(void *unused)
{
	char buf[4096];

	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);

		if (fd < 0)
			continue;
		pthread_mutex_lock(&answer_lock);
		for (size_t off = 0; off < answer_len;) {
			ssize_t n = send(fd, answer + off, answer_len - off, MSG_NOSIGNAL);

			if (n <= 0)
				break;
			off += (size_t)n;
		}
		pthread_mutex_unlock(&answer_lock);
		shutdown(fd, SHUT_WR);
		while (recv(fd, buf, sizeof(buf), 0) > 0)
			;
		close(fd);
	}
	return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	pthread_t t;

	/* Loopback only, whatever proxy the environment names. */
	setenv("no_proxy", "*", 1);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		abort();
	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(listen_fd, 16) < 0 || getsockname(listen_fd, (struct sockaddr *)&a, &len) < 0)
		abort();
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/crashes/1", ntohs(a.sin_port));
	if (pthread_create(&t, NULL, serve, NULL) != 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const UploadHttpOptions o = {.timeout_usec = 5 * USEC_PER_SEC,
				     .connect_timeout_usec = 5 * USEC_PER_SEC};
	const UploadHttpRequest req = {.method = "PUT",
				       .url = url,
				       .content_type = "application/json",
				       .idempotency_key = "1",
				       .body = "{}",
				       .body_len = 2};
	UploadHttpResponse resp = {};
	UploadHttp *h = NULL;
	json_t *state;
	size_t len;
	char *msg;

	pthread_mutex_lock(&answer_lock);
	answer = data;
	answer_len = size;
	pthread_mutex_unlock(&answer_lock);

	if (upload_http_new(&o, &h) < 0 || upload_http_send(h, &req, &resp) < 0)
		abort();
	upload_http_free(h);
	pthread_mutex_lock(&answer_lock);
	answer = NULL;
	answer_len = 0;
	pthread_mutex_unlock(&answer_lock);

	msg = upload_answer_describe("t", url, &resp);
	if (!msg)
		abort();
	/* Escaped: no control character, valid UTF-8, so that crash.json takes it. */
	len = strlen(msg);
	for (size_t i = 0; i < len; i++)
		if (utf8_control_length((const uint8_t *)msg + i, len - i) > 0)
			abort();
	state = json_pack("{s:s}", "last_error", msg);
	if (!state)
		abort();
	json_decref(state);
	free(msg);

	/* Whatever the outcome and Retry-After, the next attempt is later, within a day. */
	if (resp.status != 0)
		(void)upload_outcome_from_status(resp.status, true);
	if (upload_next_attempt(USEC_PER_DAY, 1, resp.retry_after_usec) <= USEC_PER_DAY ||
	    upload_next_attempt(USEC_PER_DAY, 1, resp.retry_after_usec) > 2 * USEC_PER_DAY)
		abort();
	upload_http_response_done(&resp);
	return 0;
}
