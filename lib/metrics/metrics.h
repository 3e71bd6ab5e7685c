/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The Prometheus text exposition format (version 0.0.4), as node_exporter's
 * textfile collector reads it from the files DIR/NAME.prom:
 *
 *   # HELP pstored_store_crashes Crashes in the store.
 *   # TYPE pstored_store_crashes gauge
 *   pstored_store_crashes{kind="dmesg",reason="panic"} 2
 *
 * A family's HELP and TYPE come once, before its samples, and the samples of
 * one family stand together: metrics_family() opens a family and the
 * metrics_sample() calls after it add to it. A family without samples is
 * left out. Label values are escaped (\\, \" and \n) and must be UTF-8;
 * names must match [a-zA-Z_:][a-zA-Z0-9_:]* (metrics) and
 * [a-zA-Z_][a-zA-Z0-9_]* (labels).
 *
 * metrics_write_at() replaces DIR/NAME atomically (NAME.tmp, then rename), so
 * the collector never reads half a file; the file is a report, not state, so
 * it is not fsynced. All functions return 0 or a negative errno.
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct Metrics Metrics;

typedef enum MetricType {
	METRIC_GAUGE,
	METRIC_COUNTER,
} MetricType;

int metrics_new(Metrics **ret);
Metrics *metrics_free(Metrics *m);

/* Opens the family name; help is one line of text. -EINVAL for a bad name. */
int metrics_family(Metrics *m, const char *name, MetricType type, const char *help);

/*
 * Adds a sample to the open family: labels is NULL or a NULL-terminated list
 * of name, value pairs. -EINVAL for a bad label name, a value that is not
 * UTF-8 or no open family.
 */
int metrics_sample(Metrics *m, const char *const *labels, double value);

/*
 * The two families of a program's last run: PREFIX_last_run_timestamp_seconds,
 * the time now, and PREFIX_last_run_success, 1 or 0; program names it in
 * their help.
 */
int metrics_last_run(Metrics *m, const char *prefix, const char *program, bool success);

/* The text so far (NUL-terminated, owned by m). */
const char *metrics_text(Metrics *m, size_t *ret_len);

/* Writes the text to dir_fd/name atomically with mode 0644. */
int metrics_write_at(Metrics *m, int dir_fd, const char *name);

/* The same in the directory dir ([Metrics] Directory=). */
int metrics_write(Metrics *m, const char *dir, const char *name);

static inline void metrics_freep(Metrics **m)
{
	metrics_free(*m);
}
#define _cleanup_metrics_ __attribute__((__cleanup__(metrics_freep)))
