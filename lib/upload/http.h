/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The HTTP(S) side of the uploader: one libcurl easy handle per target,
 * reused for every document of a run, so that a batch goes over one
 * connection (HTTP/1.1 keep-alive, or HTTP/2 where the server offers it
 * through TLS ALPN). TLS peer and host verification stay on.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct UploadHttpOptions {
	const char *ca_file; /* NULL: the system's CA bundle */
	const char *client_certificate;
	const char *client_key;
	const char *bearer_token;      /* sent as "Authorization: Bearer"; never logged */
	const char *clickhouse_user;   /* sent as X-ClickHouse-User with clickhouse_key */
	const char *clickhouse_key;    /* sent as X-ClickHouse-Key; never logged */
	uint64_t timeout_usec;	       /* whole request */
	uint64_t connect_timeout_usec; /* connection set-up */
} UploadHttpOptions;

typedef struct UploadHttpRequest {
	const char *method; /* "PUT" or "POST" */
	const char *url;
	const char *content_type;
	const char *idempotency_key; /* NULL: no Idempotency-Key header */
	const void *body;
	size_t body_len;
	FILE *sink; /* NULL: keep the start of the answer; else a 200's whole body goes here */
} UploadHttpRequest;

typedef struct UploadHttpResponse {
	long status;		   /* 0: no HTTP answer (see error) */
	uint64_t retry_after_usec; /* from Retry-After, 0 if none */
	char *error;		   /* why there was no answer */
	bool tls_error;		   /* error is about the peer's certificate */
	char *body;		   /* the start of the answer's body, NUL-terminated */
	char *redirect_url;	   /* a 3xx answer's Location, NULL if none; not followed */
	long http_version;	   /* 1 or 2 (major version of the answer) */
} UploadHttpResponse;

typedef struct UploadHttp UploadHttp;

int upload_http_new(const UploadHttpOptions *o, UploadHttp **ret);
UploadHttp *upload_http_free(UploadHttp *h);

/*
 * Sends one request. Returns 0 with *ret filled whenever the exchange ended
 * (an HTTP answer or a network error), a negative errno only for local
 * failures (-ENOMEM). Free *ret with upload_http_response_done().
 */
int upload_http_send(UploadHttp *h, const UploadHttpRequest *req, UploadHttpResponse *ret);
void upload_http_response_done(UploadHttpResponse *r);

/* Connections opened since upload_http_new() (for the batch-reuse test and bench). */
long upload_http_connections(UploadHttp *h);

static inline void upload_http_freep(UploadHttp **h)
{
	upload_http_free(*h);
}
