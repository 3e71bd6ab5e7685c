// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cper-bench: decoding throughput of lib/cper, alone or against libcper.
 *
 *   cper-bench [--runs=N] [--repeat=N] [--records=N] [--libcper=PATH] [DIR]
 *
 * The records are the files of DIR, one record each (libcper's generator
 * makes them: cper-generate --out FILE --sections TYPE), or without DIR
 * --records synthetic ones: every section sample of tests/cper/cper-samples.c,
 * Linux pstore dmesg, compressed dmesg and MCE records, in turn.
 *
 * Each run decodes every record --repeat times in each mode, one mode after
 * the other (A B C A B C ...), so that a change of machine load hits every
 * mode alike; the figures are medians over the runs, in CPU time of this
 * thread. The modes: lib/cper to a JSON tree, to JSON text through a tree
 * and json_dumps(), to JSON text straight from the decoder
 * (cper_decoder_next_text()), to text (to /dev/null), and, with --libcper,
 * libcper to JSON text: cper_buf_to_ir() and json-c's
 * json_object_to_json_string_ext(), the way its cper-convert prints. PATH is
 * libcper-parse.so or the build directory holding it; nothing of libcper is
 * built or linked here. The ratio is the median over the runs of lib/cper's
 * direct JSON text rate over libcper's.
 */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "cper-builder.h"
#include "cper-samples.h"
#include "cper.h"
#include "fs-util.h"
#include "macro.h"
#include "zlib-util.h"

#define MAX_RUNS 101
#define MAX_RECORD_SIZE (16u << 20)

static unsigned arg_records = 2000, arg_runs = 5, arg_repeat = 10;
static const char *arg_libcper, *arg_dir;

typedef struct Record {
	uint8_t *buf;
	size_t len;
} Record;

typedef struct Corpus {
	Record *records;
	size_t n;
	size_t bytes;
} Corpus;

/* libcper's entry points, from dlopen(). */
typedef struct Libcper {
	void *handle;
	void *(*buf_to_ir)(const unsigned char *buf, size_t size);
	const char *(*to_json_string_ext)(void *obj, int flags);
	int (*put)(void *obj);
	void (*set_log_custom)(void (*fn)(const char *, ...));
} Libcper;

typedef enum Mode {
	MODE_TREE,
	MODE_DUMP,
	MODE_JSON_TEXT,
	MODE_TEXT,
	MODE_LIBCPER,
	_MODE_MAX,
} Mode;

static const char *const mode_names[] = {
	[MODE_TREE] = "lib/cper to a JSON tree",
	[MODE_DUMP] = "lib/cper to JSON text via json_dumps()",
	[MODE_JSON_TEXT] = "lib/cper to JSON text, direct",
	[MODE_TEXT] = "lib/cper to text",
	[MODE_LIBCPER] = "libcper to JSON text",
};

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

static int corpus_add(Corpus *c, uint8_t *buf, size_t len)
{
	Record *r = reallocarray(c->records, c->n + 1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	c->records = r;
	c->records[c->n++] = (Record){.buf = buf, .len = len};
	c->bytes += len;
	return 0;
}

static int record_filter(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* The regular files of dir, sorted by name, one record each. */
static int corpus_load(Corpus *c, const char *dir)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent **names;
	int n, r = 0;

	if (dfd < 0)
		return -errno;
	n = scandir(dir, &names, record_filter, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		char *buf;
		size_t len;

		if (r >= 0)
			r = read_full_file_at(dfd, names[i]->d_name, MAX_RECORD_SIZE, &buf, &len);
		if (r >= 0)
			r = corpus_add(c, (uint8_t *)buf, len);
		free(names[i]);
	}
	free(names);
	return r < 0 ? r : (c->n > 0 ? 0 : -ENOENT);
}

/* Record i of the synthetic mix into out; returns its length. */
static size_t build_record(unsigned i, uint8_t *out, size_t size)
{
	static const char log[] =
		"Panic#1 Part1\n<0>[  100.000000] Kernel panic - not syncing: "
		"Fatal exception in interrupt\n<4>[  100.000100] CPU: 3 PID: 0 "
		"Comm: swapper/3 Tainted: G      D            6.1.0-18-amd64 #1\n";
	uint8_t body[CPER_SAMPLE_MAX], z[1024], mce[128];
	unsigned k = i % (unsigned)(cper_n_samples + 3);

	if (k == cper_n_samples)
		return cper_build_pstore_record(GUID_DMESG, log, sizeof(log) - 1, 1700000000, i,
						out, size);
	if (k == cper_n_samples + 1) {
		ssize_t zlen = zlib_deflate_buffer(log, sizeof(log) - 1, -15, z, sizeof(z));
		if (zlen < 0)
			abort();
		return cper_build_pstore_record(GUID_DMESG_Z, z, (size_t)zlen, 1700000000, i, out,
						size);
	}
	if (k == cper_n_samples + 2) {
		cper_sample_mce(mce);
		return cper_build_pstore_record(GUID_MCE, mce, sizeof(mce), 1700000000, i, out,
						size);
	}

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
	return cper_build_record(&r, out, size);
}

static int corpus_build(Corpus *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		size_t size = CPER_SAMPLE_MAX + 512;
		uint8_t *buf = malloc(size);

		if (!buf || corpus_add(c, buf, build_record(i, buf, size)) < 0) {
			free(buf);
			return -ENOMEM;
		}
	}
	return 0;
}

static void log_nothing(_unused_ const char *fmt, ...)
{
}

static int libcper_open(Libcper *l, const char *path)
{
	_cleanup_free_ char *so = NULL;
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (asprintf(&so, "%s/libcper-parse.so", path) < 0)
			return -ENOMEM;
		path = so;
	}
	l->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->handle)
		return -ENOENT;
	l->buf_to_ir = (void *(*)(const unsigned char *, size_t))dlsym(l->handle, "cper_buf_to_ir");
	l->to_json_string_ext =
		(const char *(*)(void *, int))dlsym(l->handle, "json_object_to_json_string_ext");
	l->put = (int (*)(void *))dlsym(l->handle, "json_object_put");
	l->set_log_custom =
		(void (*)(void (*)(const char *, ...)))dlsym(l->handle, "cper_set_log_custom");
	if (!l->buf_to_ir || !l->to_json_string_ext || !l->put)
		return -ENOSYS;
	/* Its complaints about records would go to stderr inside the timed loop. */
	if (l->set_log_custom)
		l->set_log_custom(log_nothing);
	return 0;
}

/* One record with lib/cper; returns the records decoded and counts errors in *errors. */
static size_t decode_ours(const Record *rec, Mode mode, FILE *null, size_t *errors)
{
	_cleanup_(cper_decoder_freep) CperDecoder *d = NULL;
	size_t n = 0;
	int r;

	if (cper_decoder_new(rec->buf, rec->len, &d) < 0)
		abort();
	do {
		json_t *tree = NULL, *errs = NULL;
		const char *text = NULL;
		size_t len = 0;

		if (mode == MODE_JSON_TEXT)
			r = cper_decoder_next_text(d, &text, &len, &errs);
		else
			r = cper_decoder_next(d, &tree, &errs);
		if (r < 0)
			abort();
		if (r == 0)
			break;
		if (mode == MODE_TEXT && tree)
			cper_record_print_text(tree, NULL, null);
		else if (mode == MODE_DUMP && tree)
			free(json_dumps(tree, JSON_COMPACT));
		n += tree || text;
		*errors += json_array_size(errs);
		json_decref(tree);
		json_decref(errs);
	} while (r > 0);
	return n;
}

static size_t decode_libcper(const Libcper *l, const Record *rec, size_t *errors)
{
	void *ir = l->buf_to_ir(rec->buf, rec->len);

	if (!ir) {
		(*errors)++;
		return 0;
	}
	/* JSON_C_TO_STRING_PLAIN: no spaces, as json_dumps(JSON_COMPACT). */
	if (!l->to_json_string_ext(ir, 0))
		abort();
	l->put(ir);
	return 1;
}

/* One timed pass in mode over the corpus, --repeat times; returns CPU seconds. */
static double pass(const Corpus *c, Mode mode, const Libcper *l, FILE *null, size_t *ret_records,
		   size_t *ret_errors)
{
	size_t n = 0, errors = 0;
	double t0 = cpu_now();

	for (unsigned k = 0; k < arg_repeat; k++)
		for (size_t i = 0; i < c->n; i++)
			n += mode == MODE_LIBCPER
				     ? decode_libcper(l, &c->records[i], &errors)
				     : decode_ours(&c->records[i], mode, null, &errors);
	double t = cpu_now() - t0;
	*ret_records = n / arg_repeat;
	*ret_errors = errors / arg_repeat;
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void report(const Corpus *c, double rates[_MODE_MAX][MAX_RUNS], Mode last,
		   const size_t records[_MODE_MAX], const size_t errors[_MODE_MAX])
{
	double ratios[MAX_RUNS];

	for (unsigned run = 0; run < arg_runs && last == MODE_LIBCPER; run++)
		ratios[run] = rates[MODE_JSON_TEXT][run] / rates[MODE_LIBCPER][run];
	for (Mode m = 0; m <= last; m++)
		printf("  %-40s %9.0f records/s  %7.1f MB/s  (%zu decoded, %zu errors)\n",
		       mode_names[m], median(rates[m], arg_runs),
		       median(rates[m], arg_runs) * (double)c->bytes / (double)c->n / 1e6,
		       records[m], errors[m]);
	if (last == MODE_LIBCPER)
		printf("  lib/cper direct JSON text / libcper: %.1fx (median of %u runs)\n",
		       median(ratios, arg_runs), arg_runs);
	printf("  peak RSS: %ld KiB\n", peak_rss_kib());
}

static int run(const Corpus *c, const Libcper *l)
{
	_cleanup_fclose_ FILE *null = fopen("/dev/null", "we");
	static double rates[_MODE_MAX][MAX_RUNS];
	size_t records[_MODE_MAX] = {}, errors[_MODE_MAX] = {};
	Mode last = l->handle ? MODE_LIBCPER : MODE_TEXT;

	if (!null)
		return -errno;
	printf("cper-bench: %zu records, %zu bytes (%.0f per record), %u runs of %u passes\n", c->n,
	       c->bytes, (double)c->bytes / (double)c->n, arg_runs, arg_repeat);
	for (unsigned r = 0; r < arg_runs; r++)
		for (Mode m = 0; m <= last; m++) {
			double t = pass(c, m, l, null, &records[m], &errors[m]);
			rates[m][r] = (double)records[m] * arg_repeat / t;
		}
	report(c, rates, last, records, errors);
	return 0;
}

static int parse_argv(int argc, char *argv[])
{
	static const struct option options[] = {
		{"records", required_argument, NULL, 'n'},
		{"runs", required_argument, NULL, 'r'},
		{"repeat", required_argument, NULL, 'p'},
		{"libcper", required_argument, NULL, 'l'},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		if (c == 'n')
			arg_records = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'r')
			arg_runs = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'p')
			arg_repeat = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'l')
			arg_libcper = optarg;
		else
			return -EINVAL;
	}
	if (optind < argc)
		arg_dir = argv[optind++];
	if (optind < argc || arg_records == 0 || arg_repeat == 0 || arg_runs == 0 ||
	    arg_runs > MAX_RUNS)
		return -EINVAL;
	return 0;
}

int main(int argc, char *argv[])
{
	Corpus c = {};
	Libcper l = {};
	int r;

	if (parse_argv(argc, argv) < 0) {
		fprintf(stderr,
			"usage: cper-bench [--runs=N (1-%d)] [--repeat=N] [--records=N] "
			"[--libcper=PATH] [DIR]\n",
			MAX_RUNS);
		return EXIT_FAILURE;
	}
	r = arg_dir ? corpus_load(&c, arg_dir) : corpus_build(&c, arg_records);
	if (r < 0) {
		fprintf(stderr, "cper-bench: cannot read the records of %s: %s\n",
			arg_dir ?: "the samples", strerror(-r));
		return EXIT_FAILURE;
	}
	if (arg_libcper && libcper_open(&l, arg_libcper) < 0) {
		fprintf(stderr,
			"cper-bench: %s: %s (give libcper-parse.so or the libcper build directory "
			"holding it)\n",
			arg_libcper, dlerror() ?: "cper_buf_to_ir() or json-c's functions missing");
		return EXIT_FAILURE;
	}
	r = run(&c, &l);
	for (size_t i = 0; i < c.n; i++)
		free(c.records[i].buf);
	free(c.records);
	if (l.handle)
		dlclose(l.handle);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
