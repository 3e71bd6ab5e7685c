/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs-util.h"
#include "macro.h"
#include "time-util.h"
#include "metrics.h"
#include "utf8-util.h"

struct Metrics {
	char *buf;
	size_t len;
	FILE *f; /* open_memstream() on buf/len */
	char *family; /* name of the open family */
	const char *type, *help; /* of the open family until its first sample */
	bool failed; /* a write to f failed: the text is incomplete */
};

static const char *const metric_type_table[] = {
	[METRIC_GAUGE] = "gauge",
	[METRIC_COUNTER] = "counter",
};

int metrics_new(Metrics **ret)
{
	_cleanup_free_ Metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

Metrics *metrics_free(Metrics *m)
{
	if (!m)
		return NULL;
	if (m->f)
		fclose(m->f);
	free(m->buf);
	free(m->family);
	free(m);
	return NULL;
}

static bool name_valid(const char *s, bool colon)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || (colon && *s == ':')))
			return false;
	return true;
}

/* Writes s with '\\', '\n' and, in label values, '"' escaped. */
static void put_escaped(FILE *f, const char *s, bool quote)
{
	for (; *s; s++)
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			fputc(*s, f);
}

int metrics_family(Metrics *m, const char *name, MetricType type, const char *help)
{
	char *copy;

	if (!name_valid(name, true) || (size_t)type >= ARRAY_SIZE(metric_type_table) ||
	    !utf8_is_valid(help, strlen(help)))
		return -EINVAL;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(m->family);
	m->family = copy;
	m->type = metric_type_table[type];
	m->help = help;
	return 0;
}

static int labels_check(const char *const *labels)
{
	for (const char *const *l = labels; l && *l; l += 2)
		if (!name_valid(l[0], false) || !l[1] || !utf8_is_valid(l[1], strlen(l[1])))
			return -EINVAL;
	return 0;
}

int metrics_sample(Metrics *m, const char *const *labels, double value)
{
	if (!m->family || labels_check(labels) < 0)
		return -EINVAL;
	if (m->help) {
		fprintf(m->f, "# HELP %s ", m->family);
		put_escaped(m->f, m->help, false);
		fprintf(m->f, "\n# TYPE %s %s\n", m->family, m->type);
		m->help = NULL;
	}
	fputs(m->family, m->f);
	for (const char *const *l = labels; l && *l; l += 2) {
		fprintf(m->f, "%s%s=\"", l == labels ? "{" : ",", l[0]);
		put_escaped(m->f, l[1], true);
		fputc('"', m->f);
	}
	fprintf(m->f, "%s %.15g\n", labels && *labels ? "}" : "", value);
	if (ferror(m->f))
		m->failed = true;
	return m->failed ? -ENOMEM : 0;
}

int metrics_last_run(Metrics *m, const char *prefix, const char *program, bool success)
{
	_cleanup_free_ char *time_name = NULL, *time_help = NULL, *success_name = NULL,
			    *success_help = NULL;
	int r;

	if (asprintf(&time_name, "%s_last_run_timestamp_seconds", prefix) < 0)
		time_name = NULL;
	if (asprintf(&time_help, "When the last run of %s ended, in seconds since the epoch.",
		     program) < 0)
		time_help = NULL;
	if (asprintf(&success_name, "%s_last_run_success", prefix) < 0)
		success_name = NULL;
	if (asprintf(&success_help, "1 if the last run of %s succeeded, else 0.", program) < 0)
		success_help = NULL;
	if (!time_name || !time_help || !success_name || !success_help)
		return -ENOMEM;

	r = metrics_family(m, time_name, METRIC_GAUGE, time_help);
	if (r >= 0)
		r = metrics_sample(m, NULL, (double)now_usec() / USEC_PER_SEC);
	if (r >= 0)
		r = metrics_family(m, success_name, METRIC_GAUGE, success_help);
	return r < 0 ? r : metrics_sample(m, NULL, success);
}

const char *metrics_text(Metrics *m, size_t *ret_len)
{
	if (fflush(m->f) != 0)
		m->failed = true;
	if (ret_len)
		*ret_len = m->len;
	return m->buf ?: "";
}

int metrics_write_at(Metrics *m, int dir_fd, const char *name)
{
	size_t len;
	const char *text = metrics_text(m, &len);

	if (m->failed)
		return -ENOMEM;
	return write_file_atomic_at_nosync(dir_fd, name, 0644, text, len);
}

int metrics_write(Metrics *m, const char *dir, const char *name)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return metrics_write_at(m, fd, name);
}
