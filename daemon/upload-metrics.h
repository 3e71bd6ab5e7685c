/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The node_exporter textfile of 'pstored upload', [Metrics] Directory=/pstored-upload.prom:
 * the series are listed under METRICS in pstored(8). The caller counts the events of its
 * upload_run() with upload_metrics_count() and writes the file once the run is over.
 */

#include <jansson.h>
#include <stdbool.h>

#include "config/config.h"
#include "upload/upload.h"

#define UPLOAD_METRICS_FILE "pstored-upload.prom"

/* Counts e in failures, {"TARGET": n}, when its crash did not arrive (deferred or failed). */
int upload_metrics_count(json_t *failures, const UploadEvent *e);

/*
 * Replaces the file if config sets a directory (else returns 0): the run's end and success,
 * and per target (only it, if target is not NULL) the crashes waiting for it in the store
 * after the run and the failures counted. Returns 0 or a negative errno.
 */
int upload_metrics_write(const PstoredConfig *config, const char *target, const char *store_dir,
			 bool success, json_t *failures);
