// SPDX-License-Identifier: GPL-2.0-or-later

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "url.h"

static const char *placeholder_value(const UploadUrlValues *v, const char *name, size_t n)
{
	if (n == strlen("id") && strneq(name, "id", n))
		return v->id;
	if (n == strlen("hostname") && strneq(name, "hostname", n))
		return v->hostname;
	if (n == strlen("machine_id") && strneq(name, "machine_id", n))
		return v->machine_id;
	return NULL;
}

int upload_url_expand(const char *template, const UploadUrlValues *v, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r = 0;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;

	for (const char *p = template; *p && r == 0; p++) {
		const char *end, *value;
		char *escaped;

		if (*p != '{') {
			fputc(*p, f);
			continue;
		}
		end = strchr(p, '}');
		value = end ? placeholder_value(v, p + 1, (size_t)(end - p - 1)) : NULL;
		if (!value) {
			r = -EINVAL;
			break;
		}
		escaped = curl_easy_escape(NULL, value, 0);
		if (!escaped) {
			r = -ENOMEM;
			break;
		}
		fputs(escaped, f);
		curl_free(escaped);
		p = end;
	}

	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	*ret = TAKE_PTR(buf);
	return 0;
}

int upload_journal_remote_url(const char *url, char **ret)
{
	CURLU *u = curl_url();
	char *port = NULL, *path = NULL, *full = NULL;
	CURLUcode c;

	if (!u)
		return -ENOMEM;
	c = curl_url_set(u, CURLUPART_URL, url, 0);
	if (c == CURLUE_OK) {
		/* Without CURLU_DEFAULT_PORT: the port the URL names, or none. */
		if (curl_url_get(u, CURLUPART_PORT, &port, 0) == CURLUE_NO_PORT)
			c = curl_url_set(u, CURLUPART_PORT, JOURNAL_REMOTE_PORT, 0);
	}
	if (c == CURLUE_OK) {
		c = curl_url_get(u, CURLUPART_PATH, &path, 0);
		if (c == CURLUE_OK && streq(path, "/"))
			c = curl_url_set(u, CURLUPART_PATH, JOURNAL_REMOTE_PATH, 0);
	}
	if (c == CURLUE_OK)
		c = curl_url_get(u, CURLUPART_URL, &full, 0);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(u);

	if (c == CURLUE_OUT_OF_MEMORY)
		return -ENOMEM;
	if (c != CURLUE_OK)
		return -EINVAL;
	*ret = strdup(full);
	curl_free(full);
	return *ret ? 0 : -ENOMEM;
}

int upload_url_mask(const char *url, char **ret)
{
	CURLU *u = curl_url();
	char *user = NULL, *password = NULL, *masked = NULL;
	CURLUcode c;

	if (!u)
		return -ENOMEM;
	c = curl_url_set(u, CURLUPART_URL, url, 0);
	if (c == CURLUE_OK) {
		(void)curl_url_get(u, CURLUPART_USER, &user, 0);
		(void)curl_url_get(u, CURLUPART_PASSWORD, &password, 0);
		if (password)
			c = curl_url_set(u, CURLUPART_PASSWORD, "***", 0);
		else if (user)
			c = curl_url_set(u, CURLUPART_USER, "***", 0);
	}
	if (c == CURLUE_OK)
		c = curl_url_set(u, CURLUPART_QUERY, NULL, 0);
	if (c == CURLUE_OK)
		c = curl_url_get(u, CURLUPART_URL, &masked, 0);
	curl_free(user);
	curl_free(password);
	curl_url_cleanup(u);

	if (c == CURLUE_OUT_OF_MEMORY)
		return -ENOMEM;
	char *text = strdup(c == CURLUE_OK ? masked : "(invalid URL)");

	curl_free(masked);
	if (!text)
		return -ENOMEM;
	*ret = text;
	return 0;
}
