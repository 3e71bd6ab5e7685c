/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <dirent.h>
#include <unistd.h>

#include "archive-metrics.h"
#include "fs-util.h"
#include "log.h"
#include "macro.h"
#include "metrics/metrics.h"

#define ARCHIVE_METRICS_FILE "pstored.prom"

/* Entries of pstore: its records. Returns the count, or a negative errno. */
static int pstore_count_records(int pstore_fd)
{
	struct dirent *de;
	DIR *d;
	int r, n = 0;

	r = opendir_at(pstore_fd, ".", 0, &d);
	if (r < 0)
		return r;
	FOREACH_DIRENT(de, d, r = -errno)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return r < 0 ? r : n;
}

/*
 * Counts the summaries archived at or after since by kind and reason into
 * {"kind": {"reason": n}}; *ret_bytes (if not NULL) gets their stored bytes.
 */
static int count_by_kind_reason(json_t *summaries, usec_t since, json_t **ret,
				uint64_t *ret_bytes)
{
	json_auto_t *counts = json_object();
	uint64_t bytes = 0;
	json_t *s;
	size_t i;

	if (!counts)
		return -ENOMEM;
	json_array_foreach(summaries, i, s) {
		const char *kind = json_string_value(json_object_get(s, "kind")) ?: "unknown";
		const char *reason = json_string_value(json_object_get(s, "reason")) ?: "unknown";
		json_t *by_kind, *n;

		if ((usec_t)json_integer_value(json_object_get(s, "archived_at")) < since)
			continue;
		bytes += (uint64_t)MAX(json_integer_value(json_object_get(s, "stored_bytes")), 0);
		by_kind = json_object_get(counts, kind);
		if (!by_kind && (!(by_kind = json_object()) ||
				 json_object_set_new(counts, kind, by_kind) < 0))
			return -ENOMEM;
		n = json_object_get(by_kind, reason);
		if (json_object_set_new(by_kind, reason,
					json_integer(json_integer_value(n) + 1)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(counts);
	if (ret_bytes)
		*ret_bytes = bytes;
	return 0;
}

static int put_kind_reason(Metrics *m, const char *name, const char *help, json_t *counts)
{
	const char *kind, *reason;
	json_t *by_kind, *n;
	int r;

	r = metrics_family(m, name, METRIC_GAUGE, help);
	if (r < 0)
		return r;
	json_object_foreach(counts, kind, by_kind)
		json_object_foreach(by_kind, reason, n) {
			const char *labels[] = {"kind", kind, "reason", reason, NULL};

			r = metrics_sample(m, labels, (double)json_integer_value(n));
			if (r < 0)
				return r;
		}
	return 0;
}

/* The series of the store after the run, and of the crashes this run added to it. */
static int put_store(Metrics *m, Store *s, json_t *listed, usec_t started_at)
{
	json_auto_t *summaries = json_incref(listed), *all = NULL, *archived = NULL;
	uint64_t bytes;
	int r;

	if (!summaries) {
		r = store_list(s, &summaries);
		if (r < 0)
			return r;
	}
	r = count_by_kind_reason(summaries, 0, &all, &bytes);
	if (r < 0)
		return r;
	r = count_by_kind_reason(summaries, started_at, &archived, NULL);
	if (r < 0)
		return r;
	r = put_kind_reason(m, "pstored_archive_last_run_archived",
			    "Crashes the last run of pstored archive added to the store, by kind "
			    "and reason.",
			    archived);
	if (r < 0)
		return r;
	r = put_kind_reason(m, "pstored_store_crashes", "Crashes in the store, by kind and reason.",
			    all);
	if (r < 0)
		return r;
	r = metrics_family(m, "pstored_store_bytes", METRIC_GAUGE,
			   "Disk space the crashes in the store use, in bytes.");
	return r < 0 ? r : metrics_sample(m, NULL, (double)bytes);
}

static int put_run(Metrics *m, const ArchiveRunMetrics *run)
{
	const struct {
		const char *result;
		unsigned n;
	} results[] = {
		{"archived", run->archived},
		{"already", run->already},
		{"dropped", run->dropped},
		{"failed", run->failed},
	};
	int r;

	r = metrics_last_run(m, "pstored_archive", "pstored archive", run->success);
	if (r >= 0)
		r = metrics_family(m, "pstored_archive_last_run_crashes", METRIC_GAUGE,
				   "Crashes the last run of pstored archive found in pstore, by "
				   "result: archived, already archived, dropped or failed.");
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(results); i++)
		r = metrics_sample(m, (const char *[]){"result", results[i].result, NULL},
				   results[i].n);
	return r;
}

static int archive_metrics_build(const char *store_dir, const ArchiveRunMetrics *run,
				 Metrics **ret)
{
	_cleanup_metrics_ Metrics *m = NULL;
	_cleanup_(store_freep) Store *opened = NULL;
	Store *s = run->store;
	int r;

	r = metrics_new(&m);
	if (r < 0)
		return r;
	r = put_run(m, run);
	if (r < 0)
		return r;
	if (!s && store_open(store_dir, 0, &opened) >= 0)
		s = opened;
	if (s) {
		r = put_store(m, s, run->summaries, run->started_at);
		if (r < 0)
			return r;
	}
	if (run->pstore_fd >= 0) {
		int n = pstore_count_records(run->pstore_fd);

		if (n < 0)
			return n;
		r = metrics_family(m, "pstored_pstore_records", METRIC_GAUGE,
				   "Records left in pstore after the last run of pstored archive.");
		if (r >= 0)
			r = metrics_sample(m, NULL, n);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(m);
	return 0;
}

void archive_metrics_write(const PstoredConfig *config, const char *store_dir,
			   const ArchiveRunMetrics *run)
{
	_cleanup_metrics_ Metrics *m = NULL;
	int r;

	if (!config || !config->metrics_directory)
		return;
	r = archive_metrics_build(store_dir, run, &m);
	if (r >= 0)
		r = metrics_write(m, config->metrics_directory, ARCHIVE_METRICS_FILE);
	if (r < 0)
		log_warning_errno(r,
				  "%s/" ARCHIVE_METRICS_FILE ": cannot write the metrics of this "
				  "run: %m; no crash is affected; check that [Metrics] Directory= "
				  "in pstored.conf is a writable directory",
				  config->metrics_directory);
}
