// SPDX-License-Identifier: GPL-2.0-or-later
/* What the uploader tells of a collector's answer (answer.h). */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "macro.h"
#include "url.h"
#include "utf8-util.h"

/* The part of the server's answer kept in last_error. */
#define ANSWER_EXCERPT_MAX 200

/*
 * The start of the server's answer, for last_error: cut at a character (UTF-8 continuation
 * bytes are 10xxxxxx), without the line break at its end.
 */
static char *answer_excerpt(const char *body)
{
	const char *b = body ?: "";
	size_t n = strnlen(b, ANSWER_EXCERPT_MAX + 1);

	if (n > ANSWER_EXCERPT_MAX)
		for (n = ANSWER_EXCERPT_MAX; n > 0 && ((unsigned char)b[n] & 0xc0) == 0x80; n--)
			;
	while (n > 0 && isspace((unsigned char)b[n - 1]))
		n--;
	return strndup(b, n);
}

/*
 * A 3xx answer: where the collector points. Redirects are not followed (a document, and a
 * token, would go where the configuration does not say); the URL is the one to fix.
 */
static int describe_redirect(const char *target, const char *masked, const UploadHttpResponse *resp,
			     char **ret)
{
	_cleanup_free_ char *location = NULL;

	if (resp->redirect_url && upload_url_mask(resp->redirect_url, &location) < 0)
		return -ENOMEM;
	if (asprintf(ret,
		     "%s: HTTP %ld, a redirect%s%s, which is not followed: set URL= in [Target.%s] "
		     "to the collector's address; tried again later",
		     masked, resp->status, location ? " to " : "", location ?: "", target) < 0)
		return -ENOMEM;
	return 0;
}

char *upload_answer_describe(const char *target, const char *url, const UploadHttpResponse *resp)
{
	_cleanup_free_ char *excerpt = NULL, *masked = NULL, *msg = NULL;
	int k;

	if (upload_url_mask(url, &masked) < 0)
		return NULL;

	if (resp->status == 0 && resp->tls_error)
		k = asprintf(&msg,
			     "%s: %s (the collector's TLS certificate could not be verified: "
			     "set CAFile= to the CA that signed it)",
			     masked, resp->error);
	else if (resp->status == 0)
		k = asprintf(&msg, "%s: %s", masked, resp->error);
	else if (resp->status >= 300 && resp->status < 400)
		k = describe_redirect(target, masked, resp, &msg);
	else {
		excerpt = answer_excerpt(resp->body);
		if (!excerpt)
			return NULL;
		k = asprintf(&msg, "%s: HTTP %ld%s%s", masked, resp->status, *excerpt ? ": " : "",
			     excerpt);
	}
	if (k < 0) {
		msg = NULL;
		return NULL;
	}
	return utf8_escape(msg, strlen(msg), 0);
}
