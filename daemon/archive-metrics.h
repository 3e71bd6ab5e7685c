/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The node_exporter textfile of 'pstored archive', [Metrics] Directory=/pstored.prom: the
 * series are listed under METRICS in pstored(8).
 */

#include <stdbool.h>

#include "config/config.h"
#include "store/store.h"
#include "time-util.h"

typedef struct ArchiveRunMetrics {
	usec_t started_at;
	bool success;
	unsigned archived, already, dropped, failed; /* crashes */
	Store *store;	   /* of the run, NULL when it opened none */
	json_t *summaries; /* its listing after the run, NULL when not listed */
	int pstore_fd;	   /* -1 when pstore was not opened */
} ArchiveRunMetrics;

/*
 * Writes the file when config sets a directory (config NULL: it could not be loaded, nothing
 * is written); a store of NULL is opened from store_dir if it exists, and a store the run
 * did not list is listed here. A failure is a warning: the metrics are a report, they
 * change nothing about the run.
 */
void archive_metrics_write(const PstoredConfig *config, const char *store_dir,
			   const ArchiveRunMetrics *run);
