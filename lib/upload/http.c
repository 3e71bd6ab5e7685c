// SPDX-License-Identifier: GPL-2.0-or-later

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "macro.h"
#include "time-util.h"

/* Enough of an error page to tell the user what the server said. */
#define RESPONSE_BODY_MAX 1024

struct UploadHttp {
	CURL *curl;
	char *auth_header; /* "Authorization: Bearer ..." or "X-ClickHouse-Key: ..." */
	char *user_header; /* "X-ClickHouse-User: ...", NULL if none */
	char errbuf[CURL_ERROR_SIZE];
	char body[RESPONSE_BODY_MAX + 1];
	size_t body_len;
	FILE *sink; /* of the request under way, see UploadHttpRequest */
	long connections;
};

static size_t collect_body(char *data, size_t size, size_t n, void *userdata)
{
	UploadHttp *h = userdata;
	size_t len = size * n, room = RESPONSE_BODY_MAX - h->body_len;
	long status = 0;

	/* The headers came first: an answer other than 200 is kept as an error page is. */
	if (h->sink && curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
	    status == 200)
		return fwrite(data, 1, len, h->sink) == len ? len : 0;

	memcpy(h->body + h->body_len, data, MIN(len, room));
	h->body_len += MIN(len, room);
	return len;
}

int upload_http_new(const UploadHttpOptions *o, UploadHttp **ret)
{
	_cleanup_(upload_http_freep) UploadHttp *h = NULL;
	CURLcode c = CURLE_OK;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->curl = curl_easy_init();
	if (!h->curl)
		return -ENOMEM;

	if (o->bearer_token &&
	    asprintf(&h->auth_header, "Authorization: Bearer %s", o->bearer_token) < 0) {
		h->auth_header = NULL;
		return -ENOMEM;
	}
	if (o->clickhouse_key) {
		if (asprintf(&h->user_header, "X-ClickHouse-User: %s", o->clickhouse_user) < 0) {
			h->user_header = NULL;
			return -ENOMEM;
		}
		if (asprintf(&h->auth_header, "X-ClickHouse-Key: %s", o->clickhouse_key) < 0) {
			h->auth_header = NULL;
			return -ENOMEM;
		}
	}

#define SET(opt, val)                                                                              \
	do {                                                                                       \
		if (c == CURLE_OK)                                                                 \
			c = curl_easy_setopt(h->curl, opt, val);                                   \
	} while (0)
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_ERRORBUFFER, h->errbuf);
	SET(CURLOPT_WRITEFUNCTION, collect_body);
	SET(CURLOPT_WRITEDATA, h);
	SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_TIMEOUT_MS, (long)(o->timeout_usec / 1000));
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_timeout_usec / 1000));
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	if (o->ca_file)
		SET(CURLOPT_CAINFO, o->ca_file);
	if (o->client_certificate)
		SET(CURLOPT_SSLCERT, o->client_certificate);
	if (o->client_key)
		SET(CURLOPT_SSLKEY, o->client_key);
#undef SET
	if (c != CURLE_OK)
		return c == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;

	*ret = TAKE_PTR(h);
	return 0;
}

UploadHttp *upload_http_free(UploadHttp *h)
{
	if (!h)
		return NULL;
	curl_easy_cleanup(h->curl);
	if (h->auth_header) {
		explicit_bzero(h->auth_header, strlen(h->auth_header));
		free(h->auth_header);
	}
	free(h->user_header);
	free(h);
	return NULL;
}

static bool curl_code_is_tls_error(CURLcode c)
{
	return c == CURLE_PEER_FAILED_VERIFICATION || c == CURLE_SSL_CACERT_BADFILE ||
	       c == CURLE_SSL_CONNECT_ERROR || c == CURLE_SSL_CERTPROBLEM ||
	       c == CURLE_SSL_ISSUER_ERROR;
}

/* The header lines of req, for CURLOPT_HTTPHEADER. */
static int request_headers(const UploadHttp *h, const UploadHttpRequest *req,
			   struct curl_slist **ret)
{
	_cleanup_free_ char *content_type = NULL, *key = NULL;
	struct curl_slist *headers = NULL, *l;

	if (asprintf(&content_type, "Content-Type: %s", req->content_type) < 0) {
		content_type = NULL;
		return -ENOMEM;
	}
	if (req->idempotency_key &&
	    asprintf(&key, "Idempotency-Key: %s", req->idempotency_key) < 0) {
		key = NULL;
		return -ENOMEM;
	}

	/* "Expect:" turns off curl's 100-continue wait for large bodies. */
	const char *lines[] = {content_type, "Expect:", key, h->user_header, h->auth_header};
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		if (!lines[i])
			continue;
		l = curl_slist_append(headers, lines[i]);
		if (!l) {
			curl_slist_free_all(headers);
			return -ENOMEM;
		}
		headers = l;
	}
	*ret = headers;
	return 0;
}

/* One exchange over the handle's connection; counts the connections it opened. */
static CURLcode perform_request(UploadHttp *h, const UploadHttpRequest *req,
				struct curl_slist *headers)
{
	long new_connections = 0;
	CURLcode c;

	h->errbuf[0] = '\0';
	h->body_len = 0;
	h->sink = req->sink;
	c = curl_easy_setopt(h->curl, CURLOPT_URL, req->url);
	if (c == CURLE_OK)
		c = curl_easy_setopt(h->curl, CURLOPT_CUSTOMREQUEST, req->method);
	if (c == CURLE_OK)
		c = curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, headers);
	if (c == CURLE_OK)
		c = curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				     (curl_off_t)req->body_len);
	if (c == CURLE_OK)
		c = curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, req->body);
	if (c == CURLE_OK)
		c = curl_easy_perform(h->curl);

	/* The header list must outlive the transfer, not the handle. */
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, NULL);

	if (curl_easy_getinfo(h->curl, CURLINFO_NUM_CONNECTS, &new_connections) == CURLE_OK)
		h->connections += new_connections;
	return c;
}

/* The server's answer to the exchange that just ended. */
static int read_answer(UploadHttp *h, UploadHttpResponse *ret)
{
	UploadHttpResponse r = {};
	curl_off_t retry_after = 0;
	const char *location = NULL;
	long version = 0;

	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &r.status);
	curl_easy_getinfo(h->curl, CURLINFO_HTTP_VERSION, &version);
	r.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : 1;
	/* Seconds, as many as the server likes: beyond what µs hold is as far as it gets. */
	if (curl_easy_getinfo(h->curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK &&
	    retry_after > 0 &&
	    __builtin_mul_overflow((uint64_t)retry_after, USEC_PER_SEC, &r.retry_after_usec))
		r.retry_after_usec = UINT64_MAX;

	if (curl_easy_getinfo(h->curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) {
		r.redirect_url = strdup(location);
		if (!r.redirect_url)
			return -ENOMEM;
	}

	h->body[h->body_len] = '\0';
	r.body = strdup(h->body);
	if (!r.body) {
		free(r.redirect_url);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

int upload_http_send(UploadHttp *h, const UploadHttpRequest *req, UploadHttpResponse *ret)
{
	struct curl_slist *headers = NULL;
	UploadHttpResponse r = {};
	CURLcode c;
	int k;

	k = request_headers(h, req, &headers);
	if (k < 0)
		return k;
	c = perform_request(h, req, headers);
	curl_slist_free_all(headers);

	if (c == CURLE_OUT_OF_MEMORY)
		return -ENOMEM;
	if (c == CURLE_OK)
		return read_answer(h, ret);

	/* No answer: why not. */
	r.error = strdup(h->errbuf[0] ? h->errbuf : curl_easy_strerror(c));
	if (!r.error)
		return -ENOMEM;
	r.tls_error = curl_code_is_tls_error(c);
	*ret = r;
	return 0;
}

void upload_http_response_done(UploadHttpResponse *r)
{
	free(r->error);
	free(r->body);
	free(r->redirect_url);
	*r = (UploadHttpResponse){};
}

long upload_http_connections(UploadHttp *h)
{
	return h->connections;
}
