// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One upload pass over the store (see upload.h). Each crash.json is read
 * once, by the first pass, for every target: count what was sent in the
 * last 24 hours (the daily limits) and whether the collector asked to wait
 * (Retry-After), and keep the crashes that are due. Then send them over the
 * target's one reused connection, one by one (a clickhouse target: a batch
 * of rows an INSERT), rewriting the crash's upload state after each answer
 * (a batch's states at once). The state is written only after the collector
 * answered: a pass killed in between sends those crashes again next time
 * (harmless: PUT replaces, the Idempotency-Key lets a POST collector drop
 * the repeat, and ClickHouse's table keeps a crash once), never loses them.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <curl/curl.h>
#include <systemd/sd-id128.h>

#include "answer.h"
#include "clickhouse.h"
#include "document.h"
#include "export.h"
#include "fs-util.h"
#include "http.h"
#include "journal-export.h"
#include "macro.h"
#include "policy.h"
#include "redact.h"
#include "sha256-util.h"
#include "store/store.h"
#include "time-util.h"
#include "upload.h"
#include "url.h"

/* A token is a line of text; a bigger file is not a token file. */
#define TOKEN_FILE_MAX 16384
/* The connection set-up gets at most this much of Timeout=. */
#define CONNECT_TIMEOUT_MAX_USEC (10 * USEC_PER_SEC)

typedef struct TargetRun {
	const PstoredTarget *cfg;
	const UploadOptions *o; /* for upload_log() */
	UploadHttp *http;
	UploadRedactor *redactor; /* NULL with Redact=no */
	char *url;		  /* URL=, or for journal-remote where it sends (url.h) */
	char *masked_url;
	/* What a refusal for the target's configuration is recorded with (target_fingerprint()). */
	char fingerprint[SHA256_HEX_SIZE];
	UploadQuota quota;
	usec_t throttled_until;
	json_t **due; /* the crashes to send, oldest first, as read by the first pass */
	size_t n_due;
} TargetRun;

typedef struct HostFacts {
	char hostname[256];
	char machine_id[SD_ID128_STRING_MAX];
} HostFacts;

static const char *const upload_result_names[] = {
	[UPLOAD_RESULT_SENT] = "sent",
	[UPLOAD_RESULT_DEFERRED] = "deferred",
	[UPLOAD_RESULT_FAILED] = "failed",
};
DEFINE_STRING_TABLE_TO_STRING(upload_result, UploadResult, upload_result_names, _UPLOAD_RESULT_MAX)

/* Hands a message to the program's log function (UploadLogFn), if any. Returns -abs(error). */
_printf_(4, 5) static int upload_log(const UploadOptions *o, int priority, int error,
				     const char *format, ...)
{
	va_list ap;

	error = abs(error);
	if (o->log) {
		va_start(ap, format);
		o->log(o->userdata, priority, error, format, ap);
		va_end(ap);
	}
	return -error;
}

#define upload_oom(o) upload_log((o), LOG_ERR, ENOMEM, "Out of memory.")

static void target_run_done(TargetRun *t)
{
	upload_http_free(t->http);
	upload_redactor_free(t->redactor);
	free(t->url);
	free(t->masked_url);
	for (size_t i = 0; i < t->n_due; i++)
		json_decref(t->due[i]);
	free(t->due);
}

/*
 * Reads a file of secrets (TokenFile=, CredentialsFile= named key of the target), without the
 * line break at its end. holds says what it should hold, for the messages.
 */
static int read_secret_file(const UploadOptions *o, const PstoredTarget *cfg, const char *key,
			    const char *path, const char *holds, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *secret = NULL;
	size_t len;
	int r;

	r = read_full_file_at(AT_FDCWD, path, TOKEN_FILE_MAX, &secret, &len);
	if (r == -EFBIG)
		return upload_log(o, LOG_ERR, r,
				  "[Target.%s] %s=%s is over %u bytes: not a credentials "
				  "file (it should hold %s).",
				  cfg->name, key, path, TOKEN_FILE_MAX, holds);
	if (r == -ELOOP)
		return upload_log(o, LOG_ERR, r,
				  "[Target.%s] %s=%s is a symbolic link: refused "
				  "(point %s= at the file itself).",
				  cfg->name, key, path, key);
	if (r < 0)
		return upload_log(o, LOG_ERR, r,
				  "[Target.%s] Cannot read %s=%s: %m (it should be "
				  "a file readable by root only, holding %s).",
				  cfg->name, key, path, holds);
	while (len > 0 && isspace((unsigned char)secret[len - 1]))
		secret[--len] = '\0';
	*ret = TAKE_PTR(secret);
	*ret_len = len;
	return 0;
}

static int read_token(const UploadOptions *o, const PstoredTarget *cfg, char **ret)
{
	_cleanup_free_ char *token = NULL;
	size_t len;
	int r;

	r = read_secret_file(o, cfg, "TokenFile", cfg->token_file, "the bearer token", &token,
			     &len);
	if (r < 0)
		return r;
	if (len == 0 || strpbrk(token, "\r\n")) {
		explicit_bzero(token, len);
		return upload_log(o, LOG_ERR, EINVAL,
				  "[Target.%s] TokenFile=%s must hold the bearer token "
				  "on one line.",
				  cfg->name, cfg->token_file);
	}
	*ret = TAKE_PTR(token);
	return 0;
}

/*
 * CredentialsFile= of a clickhouse target: the user on the first line, the key on the second.
 * Returns the two in one buffer, *ret_user, with *ret_key pointing into it.
 */
static int read_credentials(const UploadOptions *o, const PstoredTarget *cfg, char **ret_user,
			    char **ret_key)
{
	_cleanup_free_ char *buf = NULL;
	char *key;
	size_t len;
	int r;

	r = read_secret_file(o, cfg, "CredentialsFile", cfg->credentials_file,
			     "the ClickHouse user on one line and its key on the next", &buf, &len);
	if (r < 0)
		return r;
	key = memchr(buf, '\n', len);
	if (!key || key == buf || !key[1] || strpbrk(key + 1, "\r\n") || memchr(buf, '\r', len)) {
		explicit_bzero(buf, len);
		return upload_log(o, LOG_ERR, EINVAL,
				  "[Target.%s] CredentialsFile=%s must hold the ClickHouse user "
				  "on one line and its key on the next.",
				  cfg->name, cfg->credentials_file);
	}
	*key++ = '\0';
	*ret_key = key;
	*ret_user = TAKE_PTR(buf);
	return 0;
}

static const char *target_method(const TargetRun *t)
{
	if (t->cfg->type != PSTORED_TARGET_HTTP_JSON || t->cfg->method == PSTORED_HTTP_POST)
		return "POST";
	return "PUT";
}

/*
 * What the collector judges a request by, besides the document: the URL, the method and the
 * credentials (the token or the ClickHouse user and key, and the client certificate's files). A crash the collector
 * refused for one of them (a 4xx but 408 and 429: a wrong path, a missing scope) is recorded
 * with this, and is tried again once it changes. Hashed together, the token cannot be read
 * back from crash.json.
 */
static void target_fingerprint(const TargetRun *t, const char *token,
			       char ret[static SHA256_HEX_SIZE])
{
	const char *const parts[] = {
		pstored_target_type_to_string(t->cfg->type),
		t->url,
		target_method(t),
		t->cfg->client_certificate ?: "",
		t->cfg->client_key ?: "",
		token ?: "",
	};
	Sha256 s;

	sha256_init(&s);
	/* Each part with its NUL, so that no two lists of parts hash alike. */
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		sha256_update(&s, parts[i], strlen(parts[i]) + 1);
	sha256_finish_hex(&s, ret);
	/* The token's bytes may still be in the block buffer. */
	explicit_bzero(&s, sizeof(s));
}

static int target_run_init(TargetRun *t, const PstoredTarget *cfg, const HostFacts *host,
			   const UploadOptions *o)
{
	_cleanup_free_ char *token = NULL, *user = NULL;
	char *key = NULL;
	int r;

	t->cfg = cfg;
	t->o = o;
	if (cfg->type == PSTORED_TARGET_JOURNAL_REMOTE)
		r = upload_journal_remote_url(cfg->url, &t->url);
	else
		r = (t->url = strdup(cfg->url)) ? 0 : -ENOMEM;
	if (r == -EINVAL)
		return upload_log(o, LOG_ERR, r, "[Target.%s] URL= is not a URL.", cfg->name);
	if (r < 0 || upload_url_mask(t->url, &t->masked_url) < 0)
		return upload_oom(o);

	if (cfg->token_file) {
		r = read_token(o, cfg, &token);
		if (r < 0)
			return r;
	}
	if (cfg->credentials_file) {
		r = read_credentials(o, cfg, &user, &key);
		if (r < 0)
			return r;
		/* The user and the key, as one part of the fingerprint: "USER\nKEY". */
		key[-1] = '\n';
	}
	target_fingerprint(t, token ?: user, t->fingerprint);
	if (user)
		key[-1] = '\0';

	UploadHttpOptions http = {
		.ca_file = cfg->ca_file,
		.client_certificate = cfg->client_certificate,
		.client_key = cfg->client_key,
		.bearer_token = token,
		.clickhouse_user = user,
		.clickhouse_key = key,
		.timeout_usec = cfg->timeout_usec,
		.connect_timeout_usec = MIN(cfg->timeout_usec, CONNECT_TIMEOUT_MAX_USEC),
	};
	r = upload_http_new(&http, &t->http);
	if (token)
		explicit_bzero(token, strlen(token));
	if (user) {
		explicit_bzero(user, strlen(user));
		explicit_bzero(key, strlen(key));
	}
	if (r < 0)
		return upload_log(o, LOG_ERR, r, "[Target.%s] Cannot set up libcurl: %m",
				  cfg->name);

	if (cfg->redact) {
		_cleanup_free_ char *error = NULL;

		r = upload_target_redactor(cfg, host->hostname, o->dmi_dir, &t->redactor, &error);
		if (r < 0)
			return error ? upload_log(o, LOG_ERR, r, "%s", error) : upload_oom(o);
	}

	upload_quota_init(&t->quota, cfg->max_per_day, cfg->max_bytes_per_day);
	return 0;
}

static bool id_is_selected(const UploadOptions *o, const char *id)
{
	if (!o->ids)
		return true;
	for (char *const *i = o->ids; *i; i++)
		if (streq(*i, id))
			return true;
	return false;
}

static uint64_t state_uint(json_t *state, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(state, key));

	return v > 0 ? (uint64_t)v : 0;
}

/*
 * First pass, for one crash: count it against the daily limits, note a
 * Retry-After, and queue it when it is due.
 */
static int consider_crash(TargetRun *t, const UploadOptions *o, json_t *crash, usec_t now,
			  UploadSummary *sum)
{
	const char *id = json_string_value(json_object_get(crash, "id"));
	json_t *state = json_object_get(json_object_get(crash, "upload"), t->cfg->name);
	/* NULL for the log of a clean boot: sent only when forced. */
	const char *s = store_upload_state_for(crash, t->cfg->name) ?: "-";
	json_t **due;

	if (streq(s, "sent"))
		upload_quota_count(&t->quota, now, state_uint(state, "sent_at"),
				   state_uint(state, "bytes"));
	t->throttled_until = MAX(t->throttled_until, state_uint(state, "throttled_until"));

	if (!id || !id_is_selected(o, id))
		return 0;
	/* Refused for a configuration that has changed since: due again, as if pending. */
	if (streq(s, "failed") && json_is_string(json_object_get(state, "config")) &&
	    !streq(json_string_value(json_object_get(state, "config")), t->fingerprint))
		s = "pending";
	if (!o->force && streq(s, "failed"))
		sum->failed_before++;
	if (!o->force && !streq(s, "pending"))
		return 0;
	if (!o->force && !o->now && state_uint(state, "next_attempt") > now) {
		sum->not_due++;
		return 0;
	}

	due = reallocarray(t->due, t->n_due + 1, sizeof(*due));
	if (!due)
		return -ENOMEM;
	t->due = due;
	t->due[t->n_due++] = json_incref(crash);
	return 0;
}

static void host_facts_get(HostFacts *h)
{
	sd_id128_t m;

	if (gethostname(h->hostname, sizeof(h->hostname)) < 0)
		h->hostname[0] = '\0';
	h->hostname[sizeof(h->hostname) - 1] = '\0';
	if (sd_id128_get_machine(&m) >= 0)
		sd_id128_to_string(m, h->machine_id);
	else
		h->machine_id[0] = '\0';
}

/* Replaces crash["upload"][target] with state (taking it). */
static int set_upload_state(json_t *crash, const char *target, json_t *state)
{
	json_t *upload = json_object_get(crash, "upload");

	if (!state)
		return -ENOMEM;
	if (!json_is_object(upload)) {
		upload = json_object();
		if (!upload || json_object_set_new(crash, "upload", upload) < 0) {
			json_decref(state);
			return -ENOMEM;
		}
	}
	return json_object_set_new(upload, target, state) < 0 ? -ENOMEM : 0;
}

typedef struct SendResult {
	UploadResult result;
	char *message;
	uint64_t bytes;
	bool stop_target; /* no point sending more to this target in this pass */
} SendResult;

/*
 * The document of crash for t's collector. Returns 1 with *doc filled; 0 with res filled when
 * the crash cannot be read (a store problem, not the collector's); <0 for local failures.
 */
static int build_document(TargetRun *t, Store *s, const HostFacts *host, json_t *crash,
			  UploadDocument *doc, SendResult *res)
{
	UploadDocumentContext ctx = {
		.store = s,
		.crash = crash,
		.redactor = t->redactor,
		.hostname = host->hostname,
		.machine_id = host->machine_id,
	};
	int r;

	switch (t->cfg->type) {
	case PSTORED_TARGET_JOURNAL_REMOTE:
		r = upload_document_journal(&ctx, doc);
		break;
	case PSTORED_TARGET_CLICKHOUSE:
		r = upload_document_clickhouse(&ctx, doc);
		break;
	default:
		r = upload_document_json(&ctx, doc);
	}
	if (r == -ENOMEM)
		return upload_oom(t->o);
	if (r < 0) {
		res->result = UPLOAD_RESULT_DEFERRED;
		if (asprintf(&res->message, "cannot build the document: %s", strerror(-r)) < 0)
			return upload_oom(t->o);
		return 0;
	}
	return 1;
}

/*
 * Whether a document of len bytes may go now. Returns 1 if so; 0 with res filled if not, and
 * *ret_state too when it never may (over MaxDocumentSize); <0 for local failures.
 */
static int check_limits(TargetRun *t, size_t len, unsigned attempts, bool force, SendResult *res,
			json_t **ret_state)
{
	char when[FORMAT_TIMESTAMP_MAX];
	const char *frees_at;

	if (len > t->cfg->max_document_size) {
		res->result = UPLOAD_RESULT_FAILED;
		if (asprintf(&res->message,
			     "document is %zu bytes, over MaxDocumentSize=%" PRIu64
			     " (raise it in [Target.%s] and run 'pstorectl upload --force')",
			     len, t->cfg->max_document_size, t->cfg->name) < 0)
			return upload_oom(t->o);
		*ret_state = json_pack("{s:s, s:I, s:s}", "state", "failed", "attempts",
				       (json_int_t)attempts, "last_error", res->message);
		return *ret_state ? 0 : upload_oom(t->o);
	}
	if (force || upload_quota_allows(&t->quota, len))
		return 1;

	res->result = UPLOAD_RESULT_DEFERRED;
	res->stop_target = t->quota.crashes >= t->quota.max_crashes;
	frees_at = format_timestamp(when, upload_quota_frees_at(&t->quota), false) ?: "a day";
	if (asprintf(&res->message,
		     "daily limit reached (MaxPerDay=%" PRIu64 ", MaxBytesPerDay=%" PRIu64
		     "): %" PRIu64 " crashes, %" PRIu64 " bytes sent in the last 24h; "
		     "more can go after %s",
		     t->cfg->max_per_day, t->cfg->max_bytes_per_day, t->quota.crashes,
		     t->quota.bytes, frees_at) < 0)
		return upload_oom(t->o);
	return 0;
}

/* Where crash goes: the collector's URL, or for http-json its template filled in. */
static int target_url(TargetRun *t, const HostFacts *host, json_t *crash, const char *id,
		      char **ret)
{
	const char *machine_id = json_string_value(json_object_get(crash, "machine_id"));
	UploadUrlValues v = {
		.id = id,
		.hostname = host->hostname,
		.machine_id = machine_id ?: host->machine_id,
	};
	int r;

	if (t->cfg->type != PSTORED_TARGET_HTTP_JSON) {
		*ret = strdup(t->url);
		return *ret ? 0 : upload_oom(t->o);
	}
	r = upload_url_expand(t->url, &v, ret);
	if (r == -EINVAL)
		return upload_log(t->o, LOG_ERR, r,
				  "[Target.%s] URL=%s: unknown {placeholder} (use {id}, "
				  "{hostname}, {machine_id}).",
				  t->cfg->name, t->masked_url);
	return r < 0 ? upload_oom(t->o) : 0;
}

/*
 * What the collector's answer (or a network error) makes of the crashes sent. A ClickHouse
 * without the table is a server still to set up, not one that refuses them.
 */
static UploadOutcome answer_outcome(const TargetRun *t, const UploadHttpResponse *resp, bool is_put)
{
	if (resp->status == 0 || (t->cfg->type == PSTORED_TARGET_CLICKHOUSE &&
				  upload_clickhouse_table_missing(resp->status, resp->body)))
		return UPLOAD_RETRY;
	return upload_outcome_from_status(resp->status, is_put);
}

/* The crash's new upload state after the collector's answer (or a network error). */
static json_t *state_after_answer(TargetRun *t, const UploadHttpResponse *resp, bool is_put,
				  unsigned attempts, usec_t now, size_t len, SendResult *res)
{
	UploadOutcome outcome = answer_outcome(t, resp, is_put);
	usec_t next;
	json_t *state;

	switch (outcome) {
	case UPLOAD_SENT:
		res->result = UPLOAD_RESULT_SENT;
		upload_quota_count(&t->quota, now, now, len);
		return json_pack("{s:s, s:I, s:I, s:I, s:i}", "state", "sent", "attempts",
				 (json_int_t)attempts, "sent_at", (json_int_t)now, "bytes",
				 (json_int_t)len, "status", (int)resp->status);
	case UPLOAD_FAILED:
		res->result = UPLOAD_RESULT_FAILED;
		return json_pack("{s:s, s:I, s:s, s:i, s:s}", "state", "failed", "attempts",
				 (json_int_t)attempts, "last_error", res->message, "status",
				 (int)resp->status, "config", t->fingerprint);
	case UPLOAD_THROTTLED:
	case UPLOAD_RETRY:
		next = upload_next_attempt(now, attempts, resp->retry_after_usec);
		res->result = UPLOAD_RESULT_DEFERRED;
		/* A network error or a busy collector: the others would fare no better now. */
		res->stop_target = resp->status == 0 || outcome == UPLOAD_THROTTLED;
		state = json_pack("{s:s, s:I, s:I, s:s}", "state", "pending", "attempts",
				  (json_int_t)attempts, "next_attempt", (json_int_t)next,
				  "last_error", res->message);
		if (state && outcome == UPLOAD_THROTTLED) {
			t->throttled_until = next;
			if (json_object_set_new(state, "throttled_until", json_integer(next)) < 0)
				json_decref(TAKE_PTR(state));
		}
		return state;
	default:
		abort();
	}
}

/*
 * Builds the document, sends it, and works out the new state. Returns <0
 * only for local failures that end the pass.
 */
static int send_crash(TargetRun *t, Store *s, const HostFacts *host, json_t *crash, usec_t now,
		      bool force, json_t **ret_state, SendResult *res)
{
	const char *id = json_string_value(json_object_get(crash, "id"));
	json_t *old = json_object_get(json_object_get(crash, "upload"), t->cfg->name);
	unsigned attempts = (unsigned)state_uint(old, "attempts") + 1;
	_cleanup_(upload_document_done) UploadDocument doc = {};
	_cleanup_free_ char *url = NULL;
	UploadHttpResponse resp = {};
	json_t *state = NULL;
	int r;

	*ret_state = NULL;
	r = build_document(t, s, host, crash, &doc, res);
	if (r <= 0)
		return r;
	res->bytes = doc.len;
	r = check_limits(t, doc.len, attempts, force, res, ret_state);
	if (r <= 0)
		return r;
	r = target_url(t, host, crash, id, &url);
	if (r < 0)
		return r;

	UploadHttpRequest req = {
		.method = target_method(t),
		.url = url,
		.content_type = doc.content_type,
		.idempotency_key = id,
		.body = doc.data,
		.body_len = doc.len,
	};
	r = upload_http_send(t->http, &req, &resp);
	if (r < 0)
		return upload_oom(t->o);

	res->message = upload_answer_describe(t->cfg->name, url, &resp);
	if (res->message)
		state = state_after_answer(t, &resp, streq(req.method, "PUT"), attempts, now,
					   doc.len, res);
	upload_http_response_done(&resp);
	*ret_state = state;
	return state ? 0 : upload_oom(t->o);
}

static void report(const UploadOptions *o, const TargetRun *t, size_t index, const SendResult *res)
{
	UploadEvent e = {
		.target = t->cfg->name,
		.id = json_string_value(json_object_get(t->due[index], "id")),
		.result = res->result,
		.message = res->message,
		.index = index + 1,
		.total = t->n_due,
		.bytes = res->bytes,
	};

	if (o->progress)
		o->progress(&e, o->userdata);
}

static void count_result(UploadSummary *sum, UploadResult r)
{
	if (r == UPLOAD_RESULT_SENT)
		sum->sent++;
	else if (r == UPLOAD_RESULT_FAILED)
		sum->failed++;
	else
		sum->deferred++;
}

/* Records the new upload state of the i-th due crash of t (if state), counts and reports it. */
static int record_result(TargetRun *t, Store *s, const UploadOptions *o, size_t i, json_t *state,
			 const SendResult *res, UploadSummary *sum)
{
	json_t *crash = t->due[i];
	const char *id = json_string_value(json_object_get(crash, "id"));
	int r;

	if (state) {
		r = set_upload_state(crash, t->cfg->name, state);
		if (r >= 0)
			r = store_update_crash(s, id, crash);
		/* -ENOENT: removed since the first pass. */
		if (r < 0 && r != -ENOENT)
			return upload_log(o, LOG_ERR, r,
					  "Failed to record the upload state of crash %s in %s: %m",
					  id, store_path(s));
	}
	count_result(sum, res->result);
	report(o, t, i, res);
	return 0;
}

/* Sends the i-th due crash of t, records its new upload state and reports it. */
static int send_due_crash(TargetRun *t, Store *s, const HostFacts *host, const UploadOptions *o,
			  size_t i, UploadSummary *sum, bool *stop)
{
	json_t *state = NULL;
	SendResult res = {};
	int r;

	r = send_crash(t, s, host, t->due[i], now_usec(), o->force, &state, &res);
	if (r >= 0)
		r = record_result(t, s, o, i, state, &res, sum);
	free(res.message);
	*stop = res.stop_target;
	return r;
}

/* What became of one crash of a ClickHouse batch. */
typedef struct BatchCrash {
	json_t *state; /* its new upload state; NULL: unchanged */
	SendResult res;
	unsigned attempts;
	bool queued; /* its row is in the INSERT */
} BatchCrash;

/*
 * Appends the row of the i-th due crash of t to body, if the limits let it go; else fills
 * b->res (and b->state when it never may go).
 */
static int batch_add_crash(TargetRun *t, Store *s, const HostFacts *host, const UploadOptions *o,
			   size_t i, usec_t now, FILE *body, BatchCrash *b)
{
	_cleanup_(upload_document_done) UploadDocument doc = {};
	json_t *crash = t->due[i];
	json_t *old = json_object_get(json_object_get(crash, "upload"), t->cfg->name);
	int r;

	b->attempts = (unsigned)state_uint(old, "attempts") + 1;
	r = build_document(t, s, host, crash, &doc, &b->res);
	if (r <= 0)
		return r;
	b->res.bytes = doc.len;
	r = check_limits(t, doc.len, b->attempts, o->force, &b->res, &b->state);
	if (r <= 0)
		return r;
	if (fwrite(doc.data, 1, doc.len, body) != doc.len)
		return upload_oom(o);
	/* Counted now, so that the limits hold within the batch (send_batch() restores them). */
	upload_quota_count(&t->quota, now, now, doc.len);
	b->queued = true;
	return 0;
}

/* Sends the INSERT of the queued crashes of batch; each gets the state the answer gives. */
static int batch_insert(TargetRun *t, const char *body, size_t len, BatchCrash *batch, size_t n,
			usec_t now, bool *stop)
{
	_cleanup_free_ char *message = NULL;
	UploadHttpResponse resp = {};
	int r;

	UploadHttpRequest req = {
		.method = "POST",
		.url = t->url,
		.content_type = "text/plain; charset=utf-8",
		.body = body,
		.body_len = len,
	};
	r = upload_http_send(t->http, &req, &resp);
	if (r < 0)
		return upload_oom(t->o);
	message = upload_answer_describe(t->cfg->name, t->url, &resp);
	if (message && upload_clickhouse_table_missing(resp.status, resp.body)) {
		char *m;

		if (asprintf(&m, "%s" UPLOAD_CLICKHOUSE_TABLE_MISSING_HINT, message) < 0)
			m = NULL;
		free(message);
		message = m;
	}
	for (size_t i = 0; message && i < n; i++) {
		BatchCrash *b = &batch[i];

		if (!b->queued)
			continue;
		b->res.message = strdup(message);
		if (!b->res.message)
			break;
		b->state = state_after_answer(t, &resp, false, b->attempts, now, b->res.bytes,
					      &b->res);
		if (!b->state)
			break;
		*stop = *stop || b->res.stop_target;
	}
	upload_http_response_done(&resp);
	for (size_t i = 0; i < n; i++)
		if (batch[i].queued && !batch[i].state)
			return upload_oom(t->o);
	return 0;
}

/*
 * Records the new upload states of the crashes first to first + n - 1 of t, all in one
 * store_update_crashes() (two waits for the disk for the batch), then counts and reports each.
 */
static int batch_record(TargetRun *t, Store *s, const UploadOptions *o, size_t first,
			BatchCrash *batch, size_t n, UploadSummary *sum)
{
	_cleanup_free_ json_t **changed = calloc(n, sizeof(*changed));
	size_t n_changed = 0;
	int r;

	if (!changed)
		return upload_oom(o);
	for (size_t i = 0; i < n; i++) {
		if (!batch[i].state)
			continue;
		r = set_upload_state(t->due[first + i], t->cfg->name, TAKE_PTR(batch[i].state));
		if (r < 0)
			return upload_oom(o);
		changed[n_changed++] = t->due[first + i];
	}
	r = store_update_crashes(s, changed, n_changed);
	if (r < 0)
		return upload_log(o, LOG_ERR, r,
				  "Failed to record the upload state of %zu crashes in %s: %m",
				  n_changed, store_path(s));
	for (size_t i = 0; i < n; i++) {
		count_result(sum, batch[i].res.result);
		report(o, t, first + i, &batch[i].res);
	}
	return 0;
}

/*
 * Sends the due crashes first to first + n - 1 of t in one INSERT, then records what became of
 * each. A failed INSERT leaves every crash of it queued: ClickHouse takes all its rows or none.
 * The states are written only after ClickHouse's answer: a pass killed in between sends the
 * batch again next time, which the ReplacingMergeTree table keeps as one row a crash.
 */
static int send_batch(TargetRun *t, Store *s, const HostFacts *host, const UploadOptions *o,
		      size_t first, size_t n, UploadSummary *sum, bool *stop)
{
	_cleanup_free_ BatchCrash *batch = calloc(n, sizeof(*batch));
	const UploadQuota quota = t->quota;
	_cleanup_free_ char *body = NULL;
	usec_t now = now_usec();
	size_t len = 0, tried = 0, queued = 0;
	FILE *f;
	int r = 0;

	if (!batch)
		return upload_oom(o);
	f = open_memstream(&body, &len);
	if (!f)
		return upload_oom(o);
	if (fputs(UPLOAD_CLICKHOUSE_INSERT, f) == EOF)
		r = upload_oom(o);
	while (r >= 0 && tried < n && !*stop) {
		BatchCrash *b = &batch[tried++];

		r = batch_add_crash(t, s, host, o, first + tried - 1, now, f, b);
		queued += b->queued;
		*stop = b->res.stop_target;
	}
	if (fclose(f) != 0 && r >= 0)
		r = upload_oom(o);
	t->quota = quota;

	if (r >= 0 && queued > 0)
		r = batch_insert(t, body, len, batch, tried, now, stop);
	if (r >= 0)
		r = batch_record(t, s, o, first, batch, tried, sum);
	for (size_t i = 0; i < tried; i++) {
		json_decref(batch[i].state);
		free(batch[i].res.message);
	}
	sum->not_due += n - tried;
	return r;
}

static int upload_target(TargetRun *t, Store *s, const HostFacts *host, const UploadOptions *o,
			 UploadSummary *sum)
{
	char when[FORMAT_TIMESTAMP_MAX];
	bool stopped = false;
	int r;

	if (t->n_due > 0 && !o->force && t->throttled_until > now_usec()) {
		upload_log(o, LOG_INFO, 0,
			   "[Target.%s] %s asked to wait (Retry-After): %zu crashes stay queued "
			   "until %s.",
			   t->cfg->name, t->masked_url, t->n_due,
			   format_timestamp(when, t->throttled_until, false) ?: "later");
		sum->not_due += t->n_due;
		return 0;
	}

	if (t->cfg->type == PSTORED_TARGET_CLICKHOUSE) {
		for (size_t i = 0; i < t->n_due; i += MIN(t->cfg->batch_size, t->n_due - i)) {
			if (stopped) {
				sum->not_due += t->n_due - i;
				break;
			}
			r = send_batch(t, s, host, o, i, MIN(t->cfg->batch_size, t->n_due - i), sum,
				       &stopped);
			if (r < 0)
				return r;
		}
		return 0;
	}

	for (size_t i = 0; i < t->n_due; i++) {
		if (stopped) {
			sum->not_due++;
			continue;
		}
		r = send_due_crash(t, s, host, o, i, sum, &stopped);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One pass: the store, this host, and one TargetRun for each target it sends to. */
typedef struct UploadPass {
	Store *store;
	HostFacts host;
	TargetRun *runs;
	size_t n_runs;
} UploadPass;

static void upload_pass_done(UploadPass *p)
{
	for (size_t k = 0; k < p->n_runs; k++)
		target_run_done(&p->runs[k]);
	free(p->runs);
	store_free(p->store);
}

/* Opens the store. Returns 1; 0 when there is nothing to do; <0 on failure. */
static int upload_pass_open(UploadPass *p, const UploadOptions *o)
{
	int r;

	if (o->target && !pstored_config_find_target(o->config, o->target))
		return upload_log(o, LOG_ERR, ENOENT,
				  "No [Target.%s] section in the configuration: see "
				  "pstored.conf(5).",
				  o->target);
	if (o->config->n_targets == 0) {
		upload_log(o, LOG_INFO, 0,
			   "No upload target configured ([Target.NAME] in pstored.conf): "
			   "nothing to do.");
		return 0;
	}

	r = store_open(o->store_dir, 0, &p->store);
	if (r == -ENOENT) {
		upload_log(o, LOG_INFO, 0, "No crash store at %s: nothing to upload.",
			   o->store_dir);
		return 0;
	}
	if (r < 0)
		return upload_log(o, LOG_ERR, r, "Failed to open the crash store %s: %m",
				  o->store_dir);
	return 1;
}

/* A TargetRun for each target of the pass: every one, or only o->target. */
static int upload_pass_add_targets(UploadPass *p, const UploadOptions *o)
{
	int r;

	p->runs = calloc(o->config->n_targets, sizeof(*p->runs));
	if (!p->runs)
		return upload_oom(o);
	for (size_t i = 0; i < o->config->n_targets; i++) {
		const PstoredTarget *cfg = &o->config->targets[i];

		if (o->target && !streq(o->target, cfg->name))
			continue;
		r = target_run_init(&p->runs[p->n_runs++], cfg, &p->host, o);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The first pass over the store (consider_crash()), for every target at once. It reads each
 * crash.json once: the crashes due keep it for the sending (TargetRun.due).
 */
static int upload_pass_queue(UploadPass *p, const UploadOptions *o, UploadSummary *sum)
{
	_cleanup_(store_listing_freep) StoreListing *list = NULL;
	usec_t now;
	int r;

	/* The index's columns only: the ids, in order, without parsing the summaries. */
	r = store_list_entries(p->store, &list);
	if (r < 0)
		return upload_log(o, LOG_ERR, r, "Failed to list the crashes in %s: %m",
				  o->store_dir);

	now = now_usec();
	for (size_t i = 0; i < store_listing_size(list); i++) {
		const char *id = store_listing_entry(list, i)->id;
		json_auto_t *crash = NULL;

		r = store_load_crash(p->store, id, &crash);
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			upload_log(o, LOG_WARNING, r,
				   "Skipping crash %s: cannot load it from %s: %m", id,
				   o->store_dir);
			continue;
		}
		for (size_t k = 0; k < p->n_runs; k++)
			if (consider_crash(&p->runs[k], o, crash, now, sum) < 0)
				return upload_oom(o);
	}
	return 0;
}

static int upload_pass(const UploadOptions *o, UploadSummary *ret)
{
	_cleanup_(upload_pass_done) UploadPass p = {};
	UploadSummary sum = {};
	int r;

	r = upload_pass_open(&p, o);
	if (r < 0)
		return r;
	if (r == 0) {
		*ret = sum;
		return 0;
	}

	host_facts_get(&p.host);
	r = upload_pass_add_targets(&p, o);
	if (r < 0)
		return r;
	r = upload_pass_queue(&p, o, &sum);
	if (r < 0)
		return r;

	for (size_t k = 0; k < p.n_runs; k++) {
		r = upload_target(&p.runs[k], p.store, &p.host, o, &sum);
		sum.connections += upload_http_connections(p.runs[k].http);
		if (r < 0)
			return r;
	}
	*ret = sum;
	return 0;
}

int upload_run(const UploadOptions *o, UploadSummary *ret)
{
	int r;

	/* libcurl counts its global initialisations, so this nests in a program that has its own. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return upload_log(o, LOG_ERR, ENOMEM, "Failed to initialise libcurl.");
	r = upload_pass(o, ret);
	curl_global_cleanup();
	return r;
}
