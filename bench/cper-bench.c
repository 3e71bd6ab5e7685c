// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cper-bench: decoding throughput of lib/cper.
 *
 * Builds one buffer of N mixed records (every section sample of
 * tests/cper/cper-samples.c, Linux pstore dmesg, compressed dmesg and MCE
 * records, in turn), then decodes it with the streaming decoder three
 * times: to a JSON tree per record, to JSON text (json_dumps() of each
 * record) and to text (to /dev/null), and prints records/s, MB/s and the peak RSS before and after
 * decoding: the decoder streams, so decoding adds a constant, not a
 * multiple of N.
 *
 *   cper-bench [--records=N] [--runs=N]
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cper-builder.h"
#include "cper-samples.h"
#include "cper.h"
#include "macro.h"
#include "zlib-util.h"

static unsigned arg_records = 20000, arg_runs = 3;

/* CPU time of this thread: the figures are per core, however loaded the machine is. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static uint8_t *build_records(unsigned n, size_t *ret_len)
{
	static const char log[] =
		"Panic#1 Part1\n<0>[  100.000000] Kernel panic - not syncing: "
		"Fatal exception in interrupt\n<4>[  100.000100] CPU: 3 PID: 0 "
		"Comm: swapper/3 Tainted: G      D            6.1.0-18-amd64 #1\n";
	uint8_t body[CPER_SAMPLE_MAX], z[1024], mce[128];
	size_t cap = (size_t)n * (CPER_SAMPLE_MAX + 512), len = 0;
	uint8_t *buf = malloc(cap);

	if (!buf)
		return NULL;
	ssize_t zlen = zlib_deflate_buffer(log, sizeof(log) - 1, -15, z, sizeof(z));
	if (zlen < 0)
		abort();
	cper_sample_mce(mce);

	for (unsigned i = 0; i < n; i++) {
		unsigned k = i % (unsigned)(cper_n_samples + 3);
		if (k == cper_n_samples)
			len += cper_build_pstore_record(GUID_DMESG, log, sizeof(log) - 1,
							1700000000, i, buf + len, cap - len);
		else if (k == cper_n_samples + 1)
			len += cper_build_pstore_record(GUID_DMESG_Z, z, (size_t)zlen, 1700000000, i,
							buf + len, cap - len);
		else if (k == cper_n_samples + 2)
			len += cper_build_pstore_record(GUID_MCE, mce, sizeof(mce), 1700000000, i,
							buf + len, cap - len);
		else {
			const CperSample *s = &cper_samples[k];
			CperSectionSpec sec = {.type = s->type, .severity = 2, .body = body};
			CperRecordSpec r = {.severity = 2,
					    .validation = 0x2,
					    .record_id = i,
					    .creator_id = GUID_CREATOR_WHEA,
					    .n_sections = 1,
					    .sections = &sec};
			sec.body_len = s->build(body, true);
			timestamp_bcd(r.timestamp, 2024, 5, 17, 10, 11, 12, 1);
			len += cper_build_record(&r, buf + len, cap - len);
		}
	}
	*ret_len = len;
	return buf;
}

typedef enum Mode {
	MODE_TREE, /* json_t records */
	MODE_JSON, /* json_t records serialised with json_dumps() */
	MODE_TEXT, /* text to /dev/null */
	_MODE_MAX,
} Mode;

static const char *const mode_names[] = {
	[MODE_TREE] = "JSON tree",
	[MODE_JSON] = "JSON text",
	[MODE_TEXT] = "text",
};

/* Returns the number of records decoded, or -1 on errors. */
static long decode_pass(const uint8_t *buf, size_t len, Mode mode, FILE *text)
{
	_cleanup_(cper_decoder_freep) CperDecoder *d = NULL;
	json_t *rec, *errs;
	long n = 0;
	int r;

	if (cper_decoder_new(buf, len, &d) < 0)
		return -1;
	while ((r = cper_decoder_next(d, &rec, &errs)) > 0) {
		if (json_array_size(errs) > 0 || !rec)
			return -1;
		if (mode == MODE_TEXT)
			cper_record_print_text(rec, NULL, text);
		else if (mode == MODE_JSON)
			free(json_dumps(rec, JSON_COMPACT));
		json_decref(rec);
		json_decref(errs);
		n++;
	}
	return r < 0 ? -1 : n;
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"records", required_argument, NULL, 'n'},
		{"runs", required_argument, NULL, 'r'},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		if (c == 'n')
			arg_records = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'r')
			arg_runs = (unsigned)strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: cper-bench [--records=N] [--runs=N]\n");
			return EXIT_FAILURE;
		}
	}
	if (arg_records == 0 || arg_runs == 0)
		return EXIT_FAILURE;

	size_t len;
	_cleanup_free_ uint8_t *buf = build_records(arg_records, &len);
	if (!buf) {
		fprintf(stderr, "cper-bench: out of memory\n");
		return EXIT_FAILURE;
	}
	long rss_before = peak_rss_kib();
	_cleanup_fclose_ FILE *null = fopen("/dev/null", "we");
	if (!null)
		return EXIT_FAILURE;

	printf("cper-bench: %u records, %.1f MB, %zu section types, best of %u runs\n", arg_records,
	       (double)len / 1e6, cper_n_samples + 3, arg_runs);
	for (Mode mode = 0; mode < _MODE_MAX; mode++) {
		double best = 1e9;
		for (unsigned run = 0; run < arg_runs; run++) {
			double t0 = cpu_now();
			long n = decode_pass(buf, len, mode, null);
			double t = cpu_now() - t0;
			if (n != (long)arg_records) {
				fprintf(stderr, "cper-bench: decoded %ld of %u records\n", n,
					arg_records);
				return EXIT_FAILURE;
			}
			best = MIN(best, t);
		}
		printf("  to %-9s  %9.0f records/s  %7.1f MB/s  (%.3f s CPU)\n", mode_names[mode],
		       arg_records / best, (double)len / 1e6 / best, best);
	}
	printf("  peak RSS: %ld KiB after building the input, %ld KiB after decoding "
	       "(+%ld KiB)\n",
	       rss_before, peak_rss_kib(), peak_rss_kib() - rss_before);
	return EXIT_SUCCESS;
}
