// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl against a store written through the store API: every verb and
 * option, JSON output checked for shape, exit codes for bad ids, bad options
 * and a missing store. The binary under test is $top_builddir/cli/pstorectl.
 *
 * The store holds CRASHES crashes, more than there are hex digits, so that
 * at least two ids share their first character (an ambiguous prefix).
 */

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <jansson.h>
#include <pwd.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "fs-util.h"
#include "macro.h"
#include "sha256-util.h"
#include "store/last-archive.h"
#include "store/store.h"
#include "time-util.h"

#define CRASHES 20
/* 2026-12-01 00:00:00 UTC; crash i happens i hours later. */
#define T0 ((json_int_t)1796083200 * 1000000)
#define HOUR ((json_int_t)3600 * 1000000)

static char tmpdir[] = "/tmp/test-pstorectl.XXXXXX";
/* Where a copy of pstorectl is for other users: the build tree may be where they cannot go. */
static char bindir[] = "/tmp/test-pstorectl-bin.XXXXXX";
static char store_dir[PATH_MAX];
static char ids[CRASHES][STORE_CRASH_ID_LEN + 1];

/* out and err stay valid until the end of the test (teardown frees them, also after a failed assertion). */
typedef struct Run {
	int status; /* exit status, or -1 if killed */
	const char *out, *err;
} Run;

/* Every output read_all() returned in this test. */
static char **outputs;
static size_t n_outputs;

static const char *reason_of(int i)
{
	static const char *const reasons[] = {"panic", "oops", "warning"};
	return reasons[i % 3];
}

static const char *record_of(int i, char *buf, size_t size)
{
	snprintf(buf, size, "Oops#1 Part1\n<4>[ %d.0] crash number %d\n", i, i);
	return buf;
}

static void add_crash(Store *s, int i)
{
	_cleanup_(store_txn_freep) StoreTxn *t = NULL;
	char rec[128], hex[SHA256_HEX_SIZE], msg[64], sig[32];
	const char *digests[] = {hex};
	json_t *crash;

	record_of(i, rec, sizeof(rec));
	cr_assert_eq(sha256_hex(rec, strlen(rec), hex), 0);
	cr_assert_eq(store_crash_id_from_digests(digests, 1, ids[i]), 0);
	snprintf(msg, sizeof(msg), "BUG: crash number %d", i);
	snprintf(sig, sizeof(sig), "kernel-func%d", i % 4);

	cr_assert_eq(store_txn_begin(s, ids[i], &t), 0);
	cr_assert_eq(store_txn_write_file(t, "records/dmesg-erst-x", rec, strlen(rec)), 0);
	/* Odd crashes are in module ext4; crash 5 killed bash; from crash 10 on, kernel 6.12. */
	crash = json_pack("{s:i, s:s, s:s, s:s, s:I, s:I, s:b, s:[{s:s, s:s, s:I, s:s, s:I}],"
			  " s:{s:s, s:s, s:s, s:s, s:[s, s], s:s*, s:s}, s:{s:{s:s, s:i, s:s}}}",
			  "schema_version", 1, "kind", i == 7 ? "hardware-error" : "kernel-crash",
			  "reason", reason_of(i), "backend", "erst", "time", T0 + i * HOUR,
			  "archived_at", T0 + i * HOUR + 1000000, "complete", true, "records",
			  "name", "dmesg-erst-x", "record_id", "1000", "size",
			  (json_int_t)strlen(rec), "sha256", hex, "time", T0 + i * HOUR, "analysis",
			  "message", msg, "function", "func", "kernel_version",
			  i < 10 ? "6.1.0-test" : "6.12.0-test", "signature", sig, "call_trace",
			  "func", "do_syscall_64", "module", i % 2 ? "ext4" : NULL, "comm",
			  i == 5 ? "bash" : "kworker/0:1", "upload", "collector", "state",
			  i % 5 == 0 ? "pending" : "sent", "attempts", 1, "last_error", "none");
	cr_assert_not_null(crash);
	/* crash 7, the hardware error, was corrected. */
	if (i == 7)
		cr_assert_eq(json_object_set_new(crash, "severity", json_string("corrected")), 0);
	/* crash 3's log is not valid UTF-8. */
	if (i == 3)
		cr_assert_eq(store_txn_write_file(t, "dmesg.txt", "bad \xff byte\n", 11), 0);
	else
		cr_assert_eq(store_txn_write_file(t, "dmesg.txt", rec + 13, strlen(rec) - 13), 0);
	cr_assert_eq(store_txn_commit(t, crash), 0);
	json_decref(crash);
}

static void setup(void)
{
	_cleanup_(store_freep) Store *s = NULL;

	setenv("TZ", "UTC", 1);
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(store_dir, sizeof(store_dir), "%s/store", tmpdir);
	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
	for (int i = 0; i < CRASHES; i++)
		add_crash(s, i);
}

static void teardown(void)
{
	(void)rm_rf_at(AT_FDCWD, tmpdir);
	if (!strstr(bindir, "XXXXXX"))
		(void)rm_rf_at(AT_FDCWD, bindir);
	for (size_t i = 0; i < n_outputs; i++)
		free(outputs[i]);
	free(outputs);
}

TestSuite(pstorectl, .init = setup, .fini = teardown);

static char *read_all(FILE *f)
{
	char **grown = realloc(outputs, (n_outputs + 1) * sizeof(char *));
	char *buf = NULL;
	size_t n = 0;

	cr_assert_not_null(grown);
	outputs = grown;
	rewind(f);
	cr_assert_eq(read_full_fd(fileno(f), 64 << 20, &buf, &n), 0);
	return outputs[n_outputs++] = buf;
}

/*
 * The build tree's pstorectl for root, a copy in bindir (0755) for others: a checkout in /root
 * (0700), as the README's quick start on a fresh machine makes it, is out of their reach.
 */
static char *pstorectl_path(uid_t uid)
{
	const char *top = getenv("top_builddir");
	_cleanup_free_ char *bin = NULL, *buf = NULL, *copy = NULL;
	_cleanup_close_ int fd = -1;
	size_t len;

	cr_assert_not_null(top, "top_builddir is not set: run through make check");
	cr_assert(asprintf(&bin, "%s/cli/pstorectl", top) > 0);
	if (uid == 0)
		return TAKE_PTR(bin);
	if (strstr(bindir, "XXXXXX")) {
		cr_assert_not_null(mkdtemp(bindir));
		cr_assert_eq(chmod(bindir, 0755), 0);
	}
	cr_assert(asprintf(&copy, "%s/pstorectl", bindir) > 0);
	if (access(copy, X_OK) == 0)
		return TAKE_PTR(copy);
	cr_assert_eq(read_full_file_at(AT_FDCWD, bin, 256 << 20, &buf, &len), 0);
	fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write_full(fd, buf, len), 0);
	return TAKE_PTR(copy);
}

/*
 * Runs pstorectl --store-dir=STORE --no-pager ARGS..., as user uid if uid != 0,
 * then with group as its one supplementary group if group != 0.
 */
static Run run_as_member(uid_t uid, gid_t group, const char *const *args)
{
	_cleanup_free_ char *bin = pstorectl_path(uid), *opt = NULL;
	_cleanup_fclose_ FILE *out = tmpfile(), *err = tmpfile();
	const char *argv[32];
	size_t n = 0;
	int status;
	pid_t pid;
	Run r = {};

	cr_assert(asprintf(&opt, "--store-dir=%s", store_dir) > 0);
	argv[n++] = bin;
	argv[n++] = opt;
	argv[n++] = "--no-pager";
	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (dup2(fileno(out), STDOUT_FILENO) < 0 || dup2(fileno(err), STDERR_FILENO) < 0)
			_exit(126);
		if (uid != 0 && (setgroups(group != 0, &group) < 0 ||
				 setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0))
			_exit(126);
		execv(bin, (char **)argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r.out = read_all(out);
	r.err = read_all(err);
	return r;
}

static Run run_as(uid_t uid, const char *const *args)
{
	return run_as_member(uid, 0, args);
}

#define RUN(...) run_as(0, (const char *const[]){__VA_ARGS__, NULL})

static json_t *run_json(const char *const *args)
{
	Run r = run_as(0, args);
	json_error_t e;
	json_t *v;

	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	v = json_loads(r.out, 0, &e);
	cr_assert_not_null(v, "not JSON (%s): %s", e.text, r.out);
	return v;
}

#define RUN_JSON(...) run_json((const char *const[]){__VA_ARGS__, NULL})

/* What matches no crash: as coredumpctl, exit status 1 and a notice; with --json, "[]". */
static json_t *run_json_none(const char *const *args)
{
	Run r = run_as(0, args);

	cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.out);
	cr_assert_str_eq(r.out, "[]\n");
	cr_assert_str_eq(r.err, "pstorectl: No crashes found.\n");
	return json_array();
}

#define RUN_JSON_NONE(...) run_json_none((const char *const[]){__VA_ARGS__, NULL})

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The shape of a list entry: the index summary fields pstorectl relies on. */
static void check_summary_shape(json_t *c)
{
	cr_assert(json_is_object(c));
	cr_assert(json_is_string(json_object_get(c, "id")));
	cr_assert(store_crash_id_is_valid(json_string_value(json_object_get(c, "id"))));
	cr_assert(json_is_integer(json_object_get(c, "time")));
	cr_assert(json_is_string(json_object_get(c, "kind")));
	cr_assert(json_is_string(json_object_get(c, "reason")));
	cr_assert(json_is_string(json_object_get(c, "signature")));
	cr_assert(json_is_object(json_object_get(c, "upload")));
}

Test(pstorectl, list_table)
{
	Run r = RUN("list");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strneq(r.out, "TIME ", 5), "no header: %s", r.out);
	cr_assert_not_null(strstr(r.out, "MESSAGE\n"));
	/* header, CRASHES rows, an empty line and the footer */
	cr_assert_eq(count_lines(r.out), CRASHES + 3);
	cr_assert_not_null(strstr(r.out, "\n20 crashes listed.\n"));
	cr_assert_not_null(strstr(r.out, "Tue 2026-12-01 00:00:00 UTC"));
	cr_assert_not_null(strstr(r.out, "BUG: crash number 19\n"));
	/* newest last */
	cr_assert_lt(strstr(r.out, "crash number 1\n"), strstr(r.out, "crash number 2\n"));
}

Test(pstorectl, list_is_the_default_verb)
{
	Run a = RUN("list"), b = run_as(0, (const char *const[]){NULL});

	cr_assert_eq(b.status, 0);
	cr_assert_str_eq(a.out, b.out);
}

Test(pstorectl, list_no_legend)
{
	Run r = RUN("--no-legend", "list");

	cr_assert_eq(r.status, 0);
	cr_assert_eq(count_lines(r.out), CRASHES);
	cr_assert_null(strstr(r.out, "TIME"));
	cr_assert_null(strstr(r.out, "listed"));
}

Test(pstorectl, list_short_ids_are_unique_prefixes)
{
	Run r = RUN("--no-legend", "list");
	const char *line = r.out;

	for (int i = 0; i < CRASHES; i++) {
		char shown[64];

		cr_assert_eq(sscanf(line, "%*s %*s %*s %*s %63s", shown), 1);
		cr_assert_geq(strlen(shown), 8);
		cr_assert(strneq(ids[i], shown, strlen(shown)), "%s is not a prefix of %s", shown,
			  ids[i]);
		line = strchr(line, '\n') + 1;
	}
}

Test(pstorectl, list_json)
{
	json_auto_t *pretty = RUN_JSON("--json", "list"), *shrt = RUN_JSON("list", "--json=short");
	json_t *c;
	size_t i;

	cr_assert(json_is_array(pretty));
	cr_assert_eq(json_array_size(pretty), CRASHES);
	cr_assert(json_equal(pretty, shrt));
	json_array_foreach(pretty, i, c) {
		check_summary_shape(c);
		cr_assert_str_eq(json_string_value(json_object_get(c, "id")), ids[i]);
		cr_assert_eq(json_integer_value(json_object_get(c, "time")),
			     T0 + (json_int_t)i * HOUR);
	}
}

Test(pstorectl, list_json_short_is_one_line)
{
	Run r = RUN("--json=short", "list");

	cr_assert_eq(r.status, 0);
	cr_assert_eq(count_lines(r.out), 1);
}

Test(pstorectl, list_json_short_escapes_non_ascii)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *crash = NULL, *pretty = NULL, *shrt = NULL;
	Run r;

	cr_assert_eq(store_open(store_dir, 0, &s), 0);
	cr_assert_eq(store_load_crash(s, ids[2], &crash), 0);
	cr_assert_eq(json_object_set_new(json_object_get(crash, "analysis"), "message",
					 json_string("BUG: \xc3\xbc"
						     "ber \xe2\x98\x83")),
		     0);
	cr_assert_eq(store_update_crash(s, ids[2], crash), 0);

	/* The short form is written from the index's text, the pretty one parsed: the same JSON. */
	r = RUN("--json=short", "list");
	cr_assert_eq(r.status, 0);
	for (const char *p = r.out; *p; p++)
		cr_assert_lt((unsigned char)*p, 0x80, "not ASCII: %s", r.out);
	shrt = json_loads(r.out, 0, NULL);
	pretty = RUN_JSON("--json", "list");
	cr_assert(json_equal(pretty, shrt));
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(shrt, 2), "message")),
			 "BUG: \xc3\xbc"
			 "ber \xe2\x98\x83");
}

/* Replaces the first occurrence of from in the store's index with to. */
static void edit_index(const char *from, const char *to)
{
	_cleanup_free_ char *path = NULL, *text = NULL, *edited = NULL;
	char *at;

	cr_assert(asprintf(&path, "%s/index", store_dir) > 0);
	cr_assert_eq(read_full_file_at(AT_FDCWD, path, 1 << 20, &text, NULL), 0);
	at = strstr(text, from);
	cr_assert_not_null(at, "no %s in the index", from);
	cr_assert(asprintf(&edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) > 0);
	cr_assert_eq(write_file_at(AT_FDCWD, path, O_TRUNC, 0640, edited, strlen(edited)), 0);
}

/*
 * One index line's summary edited (no longer JSON): listed from the crash
 * directories, with a warning, and the index rebuilt; the JSON is whole.
 */
Test(pstorectl, list_json_with_an_edited_index)
{
	const char *const forms[] = {"--json=short", "--json=pretty"};
	json_auto_t *reference = RUN_JSON("--json=short", "list");

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		json_auto_t *v = NULL;
		json_error_t e;
		Run r;

		edit_index("\"reason\":\"oops\"", "\"reason\":\"oops");
		r = RUN(forms[i], "list");
		cr_assert_eq(r.status, 0, "%s: %s", forms[i], r.err);
		v = json_loads(r.out, 0, &e);
		cr_assert_not_null(v, "%s: not JSON (%s): %s", forms[i], e.text, r.out);
		cr_assert(json_equal(v, reference), "%s: %s", forms[i], r.out);
		cr_assert_not_null(strstr(r.err, "index was corrupt: listed from the crash "
						 "directories, and rebuilt from them."),
				   "%s", r.err);
		/* Rebuilt: no warning the next time. */
		r = RUN(forms[i], "list");
		cr_assert_eq(r.status, 0);
		cr_assert_str_eq(r.err, "");
	}
}

/* A store that others could have written to is refused, with the fix. */
Test(pstorectl, unsafe_store_is_refused)
{
	_cleanup_free_ char *want = NULL;
	Run r;

	cr_assert(asprintf(&want,
			   "pstorectl: %s: refusing an unsafe crash store: it must be owned by "
			   "root (or by the user running pstorectl) and not be writable by group "
			   "or others; fix it with 'chown root: %s' and 'chmod go-w %s', see "
			   "pstored-store(5).\n",
			   store_dir, store_dir, store_dir) > 0);
	cr_assert_eq(chmod(store_dir, 0777), 0);
	r = RUN("list");
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.out, "");
	cr_assert_str_eq(r.err, want);
	r = RUN("show", ids[0]);
	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.err, want);
	cr_assert_eq(chmod(store_dir, 0700), 0);
	if (geteuid() == 0) {
		cr_assert_eq(chown(store_dir, 65534, (gid_t)-1), 0);
		r = RUN("list");
		cr_assert_eq(r.status, 1);
		cr_assert_str_eq(r.err, want);
	}
}

Test(pstorectl, list_filters)
{
	json_auto_t *oops = RUN_JSON("--json", "list", "--reason=oops");
	json_auto_t *kind = RUN_JSON("--json", "list", "--kind", "hardware-error");
	json_auto_t *sig = RUN_JSON("--json", "list", "--signature=kernel-func1");
	json_auto_t *last3 = RUN_JSON("--json", "list", "-n", "3");
	json_auto_t *since = RUN_JSON("--json", "list", "--since=2026-12-01 15:00");
	json_auto_t *until = RUN_JSON("--json", "list", "-U", "2026-12-01 01:00:00 UTC");
	json_auto_t *both = RUN_JSON("--json", "list", "-S", "@1796090400",
				     "--until=2026-12-01 03:00", "--reason=PANIC");
	json_auto_t *none = RUN_JSON_NONE("--json", "list", "--reason=hung-task");
	json_t *c;
	size_t i;

	cr_assert_eq(json_array_size(oops), 7); /* 1, 4, ..., 19 */
	json_array_foreach(oops, i, c)
		cr_assert_str_eq(json_string_value(json_object_get(c, "reason")), "oops");
	cr_assert_eq(json_array_size(kind), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(kind, 0), "id")), ids[7]);
	cr_assert_eq(json_array_size(sig), 5); /* 1, 5, 9, 13, 17 */
	cr_assert_eq(json_array_size(last3), 3);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(last3, 0), "id")),
			 ids[17]);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(last3, 2), "id")),
			 ids[19]);
	cr_assert_eq(json_array_size(since), 5); /* 15 ... 19 */
	cr_assert_eq(json_array_size(until), 2); /* 0, 1 */
	/* 02:00 to 03:00: crashes 2 and 3, of which 3 is a panic */
	cr_assert_eq(json_array_size(both), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(both, 0), "id")), ids[3]);
	cr_assert_eq(json_array_size(none), 0);
}

Test(pstorectl, list_relative_times)
{
	/* Relative times count from the real clock: nothing lies an hour ahead of it. */
	json_auto_t *future = RUN_JSON_NONE("--json", "list", "--since=+1h");
	json_auto_t *past = RUN_JSON_NONE("--json", "list", "--until=2000-01-01");
	json_auto_t *all =
		now_usec() > (usec_t)T0
			? RUN_JSON("--json", "list", "--since=2026-11-30", "--until=tomorrow")
			: RUN_JSON_NONE("--json", "list", "--since=2026-11-30", "--until=tomorrow");

	cr_assert_eq(json_array_size(future), 0);
	cr_assert_eq(json_array_size(past), 0);
	cr_assert_eq(json_array_size(all), now_usec() > (usec_t)T0 ? CRASHES : 0);
}

Test(pstorectl, list_group)
{
	json_auto_t *groups = RUN_JSON("--json", "list", "--group");
	json_t *g;
	size_t i;
	json_int_t total = 0, prev_last = 0;
	Run r = RUN("list", "--group");

	cr_assert_eq(json_array_size(groups), 4);
	json_array_foreach(groups, i, g) {
		cr_assert(json_is_string(json_object_get(g, "signature")));
		cr_assert(json_is_integer(json_object_get(g, "count")));
		cr_assert(json_is_array(json_object_get(g, "ids")));
		cr_assert_eq(json_array_size(json_object_get(g, "ids")),
			     (size_t)json_integer_value(json_object_get(g, "count")));
		cr_assert_leq(json_integer_value(json_object_get(g, "first")),
			      json_integer_value(json_object_get(g, "last")));
		cr_assert_geq(json_integer_value(json_object_get(g, "last")), prev_last);
		prev_last = json_integer_value(json_object_get(g, "last"));
		total += json_integer_value(json_object_get(g, "count"));
	}
	cr_assert_eq(total, CRASHES);

	cr_assert_eq(r.status, 0);
	cr_assert(strneq(r.out, "COUNT", 5));
	cr_assert_not_null(strstr(r.out, "\n4 signatures listed.\n"));
	cr_assert_not_null(strstr(r.out, "kernel-func3"));
}

/* The ids of a JSON listing, in its order, as "i j k" of the crash numbers. */
static char *listed(json_t *list)
{
	char *s = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&s, &size);
	json_t *c;

	cr_assert_not_null(f);
	json_array_foreach(list, i, c)
		for (int k = 0; k < CRASHES; k++)
			if (streq(json_string_value(json_object_get(c, "id")), ids[k]))
				fprintf(f, "%s%d", i > 0 ? " " : "", k);
	cr_assert_eq(fclose(f), 0);
	return s;
}

Test(pstorectl, list_matches_on_the_analysis)
{
	json_auto_t *ext4 = RUN_JSON("--json", "list", "--module=ext4", "--until=2026-12-01 06:00");
	json_auto_t *bash = RUN_JSON("--json", "list", "--comm=bash");
	json_auto_t *kworkers = RUN_JSON("--json", "list", "--comm=kworker/*", "-n", "2");
	json_auto_t *k612 = RUN_JSON("--json", "list", "--kernel=6.12.*", "--module=ext4");
	json_auto_t *func = RUN_JSON("--json", "list", "--function=f?nc", "-n", "1");
	_cleanup_free_ char *ext4_ids = listed(ext4), *bash_ids = listed(bash),
			    *kworker_ids = listed(kworkers), *k612_ids = listed(k612),
			    *func_ids = listed(func);

	cr_assert_str_eq(ext4_ids, "1 3 5");
	cr_assert_str_eq(bash_ids, "5");
	cr_assert_str_eq(kworker_ids, "18 19");
	cr_assert_str_eq(k612_ids, "11 13 15 17 19");
	cr_assert_str_eq(func_ids, "19");
	json_decref(RUN_JSON_NONE("--json", "list", "--function=other"));
	json_decref(RUN_JSON_NONE("--json", "list", "--module=xfs"));
	json_decref(RUN_JSON_NONE("--json", "list", "--kernel=6.1"));
}

/*
 * The index as pstored wrote it before summaries held the process: "comm"
 * taken out of each line's summary, and the line's CRC made again.
 */
static void index_without_comm(void)
{
	_cleanup_free_ char *path = NULL, *text = NULL, *edited = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&edited, &size);
	char *line, *state;

	cr_assert_not_null(f);
	cr_assert(asprintf(&path, "%s/index", store_dir) > 0);
	cr_assert_eq(read_full_file_at(AT_FDCWD, path, 1 << 20, &text, NULL), 0);
	for (line = strtok_r(text, "\n", &state); line; line = strtok_r(NULL, "\n", &state)) {
		char *comm = strstr(line, "\"comm\":\""), *end;

		/* The header line ("#\t...") stays as it is. */
		if (line[0] == '#') {
			fprintf(f, "%s\n", line);
			continue;
		}
		*strrchr(line, '\t') = '\0';
		if (comm) {
			end = strchr(comm + strlen("\"comm\":\""), '"') + 1;
			memmove(comm, end + (*end == ','), strlen(end + (*end == ',')) + 1);
		}
		fprintf(f, "%s\t%08lx\n", line, crc32(0, (const Bytef *)line, (uInt)strlen(line)));
	}
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(write_file_at(AT_FDCWD, path, O_TRUNC, 0640, edited, size), 0);
}

/* --comm= sees the process also of the crashes of such an index, in their crash.json. */
Test(pstorectl, list_comm_in_an_index_from_before_it)
{
	json_auto_t *all = NULL, *bash = NULL;
	_cleanup_free_ char *bash_ids = NULL;

	index_without_comm();
	all = RUN_JSON("--json", "list");
	bash = RUN_JSON("--json", "list", "--comm=bash");
	bash_ids = listed(bash);

	cr_assert_null(json_object_get(json_array_get(all, 5), "comm"), "the index still has comm");
	cr_assert_str_eq(bash_ids, "5");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(bash, 0), "comm")),
			 "bash");
}

Test(pstorectl, list_latest_reverse_and_options_before_the_verb)
{
	json_auto_t *one = RUN_JSON("--json", "-1");
	json_auto_t *two = RUN_JSON("-n", "2", "--json", "list");
	json_auto_t *rev = RUN_JSON("-r", "--json", "list", "--reason=panic", "-n", "3");
	json_auto_t *groups = RUN_JSON("--json", "list", "--group", "-r", "-n", "2");
	_cleanup_free_ char *one_ids = listed(one), *two_ids = listed(two), *rev_ids = listed(rev);

	cr_assert_str_eq(one_ids, "19");
	cr_assert_str_eq(two_ids, "18 19");
	cr_assert_str_eq(rev_ids, "18 15 12");
	/* Groups ordered by their newest crash, newest first: 19's, then 18's. */
	cr_assert_eq(json_array_size(groups), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(groups, 0), "last")),
		     T0 + 19 * HOUR);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(groups, 1), "last")),
		     T0 + 18 * HOUR);
}

Test(pstorectl, list_options_before_the_verb_for_every_verb)
{
	Run show = RUN("--reason=oops", "show"), dmesg = RUN("--comm=bash", "dmesg"),
	    unknown = RUN("--group", "show"), other = RUN("--raw", "list");

	cr_assert_eq(show.status, 0, "%s", show.err);
	cr_assert_not_null(strstr(show.out, ids[19]), "%s", show.out);
	cr_assert_eq(dmesg.status, 0, "%s", dmesg.err);
	cr_assert_str_eq(dmesg.out, "<4>[ 5.0] crash number 5\n");
	/* An option of another verb is unknown to this one, and said so in pstorectl's name. */
	cr_assert_eq(unknown.status, 1);
	cr_assert_str_eq(unknown.err,
			 "pstorectl: Unknown option '--group': see 'pstorectl show --help'.\n");
	cr_assert_eq(other.status, 1);
	cr_assert_str_eq(other.err,
			 "pstorectl: Unknown option '--raw': see 'pstorectl list --help'.\n");
}

Test(pstorectl, show_dmesg_export_without_id_take_the_newest)
{
	Run show = RUN("show"), dmesg = RUN("dmesg", "--until=2026-12-01 02:30"),
	    both = RUN("show", ids[1], "--reason=oops"), none = RUN("export", "--kind=nothing");
	json_auto_t *export = RUN_JSON("export", "--reason=panic");

	cr_assert_eq(show.status, 0, "%s", show.err);
	cr_assert(strneq(show.out, "           ID: ", 15), "%s", show.out);
	cr_assert(strneq(show.out + 15, ids[19], STORE_CRASH_ID_LEN), "%s", show.out);
	cr_assert_eq(dmesg.status, 0, "%s", dmesg.err);
	cr_assert_str_eq(dmesg.out, "<4>[ 2.0] crash number 2\n");
	cr_assert_str_eq(json_string_value(json_object_get(export, "id")), ids[18]);
	cr_assert_eq(both.status, 1);
	cr_assert_not_null(strstr(both.err, "not both"), "%s", both.err);
	cr_assert_eq(none.status, 1);
	cr_assert_str_eq(none.out, "");
	cr_assert_str_eq(none.err, "pstorectl: No crashes found.\n");
}

/* SYSTEMD_COLORS=1 colours also what is not a terminal, as journalctl does; NO_COLOR wins. */
Test(pstorectl, list_colours_by_severity)
{
	Run corrected, panic, oops, no_color;

	setenv("SYSTEMD_COLORS", "1", 1);
	corrected = RUN("list", "--no-legend", "--kind=hardware-error");
	panic = RUN("list", "--no-legend", "--reason=panic", "-1");
	oops = RUN("list", "--no-legend", "--reason=oops", "-1");
	setenv("NO_COLOR", "1", 1);
	no_color = RUN("list", "--no-legend", "--reason=panic", "-1");
	unsetenv("NO_COLOR");
	unsetenv("SYSTEMD_COLORS");

	cr_assert_not_null(strstr(corrected.out, "  \x1b[0;38;5;245moops\x1b[0m  "), "%s",
			   corrected.out);
	cr_assert_not_null(strstr(panic.out, "  \x1b[0;1;31mpanic\x1b[0m  "), "%s", panic.out);
	cr_assert_null(strchr(oops.out, '\x1b'), "%s", oops.out);
	cr_assert_null(strchr(no_color.out, '\x1b'), "%s", no_color.out);
}

Test(pstorectl, list_footer_counts_one_in_the_singular)
{
	Run crash = RUN("list", "-n", "1"), group = RUN("list", "--group", "-n", "1");

	cr_assert_eq(crash.status, 0, "%s", crash.err);
	cr_assert_not_null(strstr(crash.out, "\n1 crash listed.\n"), "%s", crash.out);
	cr_assert_eq(group.status, 0, "%s", group.err);
	cr_assert_not_null(strstr(group.out, "\n1 signature listed.\n"), "%s", group.out);
}

Test(pstorectl, list_bad_options)
{
	const char *const bad[][3] = {
		{"list", "--since=next blue moon", NULL},
		{"list", "--until=2026-13-45", NULL},
		{"list", "-n", "many"},
		{"list", "-n", "-3"},
		{"list", "--frobnicate", NULL},
		{"--json=yaml", "list", NULL},
		{"list", "--since=2026-12-02", "--until=2026-12-01"},
		{"frobnicate", NULL, NULL},
		{"list", "extra-argument", NULL},
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		Run r = run_as(0, bad[i]);

		cr_assert_eq(r.status, 1, "%s %s: exit %d", bad[i][0], bad[i][1] ?: "", r.status);
		cr_assert_str_eq(r.out, "");
		cr_assert_neq(strlen(r.err), 0);
	}
}

/* Every option error in pstorectl's name, whether the option came before or after the verb. */
Test(pstorectl, option_errors_name_pstorectl)
{
	Run after = RUN("list", "--frobnicate"), before = RUN("--frobnicate", "list"),
	    none = RUN("--frobnicate"), value = RUN("show", "--no-pager=yes", "x"),
	    missing = RUN("list", "-n");

	cr_assert_str_eq(after.err, "pstorectl: Unknown option '--frobnicate': see 'pstorectl list "
				    "--help'.\n");
	cr_assert_str_eq(before.err, after.err);
	cr_assert_str_eq(none.err, "pstorectl: Unknown option '--frobnicate': see 'pstorectl "
				   "--help'.\n");
	cr_assert_str_eq(value.err, "pstorectl: Option '--no-pager' takes no value: see 'pstorectl "
				    "show --help'.\n");
	cr_assert_str_eq(missing.err, "pstorectl: Option '-n' needs a value (N): see 'pstorectl "
				      "list --help'.\n");
}

Test(pstorectl, help_and_version)
{
	Run h = RUN("--help"), v = RUN("--version"), lh = RUN("list", "-h");

	cr_assert_eq(h.status, 0);
	cr_assert_not_null(strstr(h.out, "Commands:"));
	cr_assert_not_null(strstr(h.out, "--since=TIME"));
	cr_assert_eq(lh.status, 0);
	cr_assert(strneq(lh.out, "pstorectl [OPTIONS...] list\n", 28), "%s", lh.out);
	cr_assert_not_null(strstr(lh.out, "--since=TIME"));
	cr_assert_null(strstr(lh.out, "Commands:"), "the options of list only");
	cr_assert_eq(v.status, 0);
	cr_assert(strneq(v.out, "pstored ", 8));
}

Test(pstorectl, show)
{
	Run r = RUN("show", ids[4]);

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "           ID: "));
	cr_assert_not_null(strstr(r.out, ids[4]));
	cr_assert_not_null(strstr(r.out, "       Reason: oops\n"));
	cr_assert_not_null(strstr(r.out, "      Message: BUG: crash number 4\n"));
	cr_assert_not_null(strstr(r.out, "   Call trace: func\n"));
	cr_assert_not_null(strstr(r.out, "               do_syscall_64\n"));
	cr_assert_not_null(strstr(r.out, "      Records: dmesg-erst-x"));
	cr_assert_not_null(strstr(r.out, "       Upload: collector: sent, 1 attempt"));
	cr_assert_not_null(strstr(r.out, "Tue 2026-12-01 04:00:00 UTC"));
	cr_assert_not_null(strstr(r.out, store_dir));
}

Test(pstorectl, show_json_and_short_id)
{
	char prefix[9];
	json_auto_t *v = NULL;

	snprintf(prefix, sizeof(prefix), "%.8s", ids[5]);
	v = RUN_JSON("show", prefix, "--json");
	cr_assert_str_eq(json_string_value(json_object_get(v, "id")), ids[5]);
	cr_assert(json_is_string(json_object_get(v, "path")));
	cr_assert(json_is_array(json_object_get(v, "records")));
	cr_assert(json_is_object(json_object_get(v, "analysis")));
	cr_assert(json_is_object(json_object_get(v, "upload")));
}

/* The first character that starts two ids: there are more crashes than hex digits. */
static char shared_first_char(size_t *ret_count)
{
	for (const char *c = "0123456789abcdef"; *c; c++) {
		size_t n = 0;

		for (int i = 0; i < CRASHES; i++)
			n += ids[i][0] == *c;
		if (n >= 2) {
			*ret_count = n;
			return *c;
		}
	}
	cr_assert_fail("no two ids share a first character");
	return 0;
}

Test(pstorectl, ambiguous_prefix_lists_matches)
{
	size_t n;
	char prefix[2] = {shared_first_char(&n), 0};
	Run r = RUN("show", prefix);

	cr_assert_eq(r.status, 1);
	cr_assert_str_eq(r.out, "");
	cr_assert_not_null(strstr(r.err, "is ambiguous"), "%s", r.err);
	for (int i = 0; i < CRASHES; i++)
		if (ids[i][0] == prefix[0])
			cr_assert_not_null(strstr(r.err, ids[i]), "match %s not listed", ids[i]);
	cr_assert_eq(count_lines(r.err), n + 1);
}

Test(pstorectl, bad_ids)
{
	const char *const verbs[] = {"show", "dmesg", "export", "delete"};
	Run missing = RUN("delete");

	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		Run none = RUN(verbs[i], "ffffffff-ffff-ffff-ffff-ffffffffffff");
		Run bad = RUN(verbs[i], "not/an/id"), zz = RUN(verbs[i], "zz");

		cr_assert_eq(none.status, 1);
		cr_assert_not_null(strstr(none.err, "No crash with id"), "%s", none.err);
		cr_assert_eq(bad.status, 1);
		/* Not the store's "Invalid argument": what is wrong is the id. */
		cr_assert_eq(zz.status, 1);
		cr_assert_str_eq(zz.err, "pstorectl: 'zz' is not a valid crash id: ids are hexadecimal "
					 "digits and dashes, as 'pstorectl list' shows them, and "
					 "their start is enough.\n");
	}
	/* delete takes no default crash: show, dmesg and export take the newest. */
	cr_assert_eq(missing.status, 1);
	cr_assert_not_null(strstr(missing.err, "Too few arguments"), "%s", missing.err);
}

Test(pstorectl, dmesg)
{
	Run r = RUN("dmesg", ids[2]);

	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.out, "<4>[ 2.0] crash number 2\n");
}

Test(pstorectl, dmesg_json_replaces_bad_utf8)
{
	json_auto_t *v = RUN_JSON("--json=short", "dmesg", ids[3]);

	cr_assert_str_eq(json_string_value(json_object_get(v, "id")), ids[3]);
	cr_assert_str_eq(json_string_value(json_object_get(v, "dmesg")), "bad \xef\xbf\xbd byte\n");
}

static void check_export(json_t *doc, int i)
{
	char rec[128];
	unsigned char raw[256];
	json_t *r0 = json_array_get(json_object_get(doc, "records"), 0);
	const char *b64 = json_string_value(json_object_get(r0, "data"));
	int n;

	record_of(i, rec, sizeof(rec));
	cr_assert_eq(json_integer_value(json_object_get(doc, "export_version")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(doc, "id")), ids[i]);
	cr_assert_str_eq(json_string_value(json_object_get(doc, "dmesg")), rec + 13);
	cr_assert(json_is_object(json_object_get(doc, "analysis")));
	cr_assert_not_null(b64);
	n = b64_pton(b64, raw, sizeof(raw));
	cr_assert_eq(n, (int)strlen(rec));
	cr_assert_eq(memcmp(raw, rec, n), 0);
}

Test(pstorectl, export_stdout)
{
	json_auto_t *doc = RUN_JSON("export", ids[6]);

	check_export(doc, 6);
}

Test(pstorectl, export_output_file)
{
	_cleanup_free_ char *path = NULL;
	json_auto_t *doc = NULL;
	struct stat st;
	Run r;

	cr_assert(asprintf(&path, "%s/out.json", tmpdir) > 0);
	r = RUN("export", "--output", path, ids[8], "--json=short");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.out, "");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	doc = json_load_file(path, 0, NULL);
	cr_assert_not_null(doc);
	check_export(doc, 8);

	/* A directory that does not exist: a clear error, exit 1. */
	r = RUN("export", "-o", "/nonexistent/dir/out.json", ids[8]);
	cr_assert_eq(r.status, 1);
	cr_assert_not_null(strstr(r.err, "/nonexistent/dir/out.json"));
}

Test(pstorectl, delete)
{
	char prefix[13];
	json_auto_t *after = NULL;
	Run bad, ok;

	/* One bad id among good ones: nothing is deleted. */
	bad = RUN("delete", ids[0], "ffffffff", ids[1]);
	cr_assert_eq(bad.status, 1);
	after = RUN_JSON("--json", "list");
	cr_assert_eq(json_array_size(after), CRASHES);
	json_decref(after);

	snprintf(prefix, sizeof(prefix), "%.12s", ids[0]);
	ok = RUN("delete", prefix, ids[1]);
	cr_assert_eq(ok.status, 0, "%s", ok.err);
	cr_assert_not_null(strstr(ok.err, ids[0]));
	after = RUN_JSON("--json", "list");
	cr_assert_eq(json_array_size(after), CRASHES - 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(after, 0), "id")),
			 ids[2]);

	ok = RUN("show", prefix);
	cr_assert_eq(ok.status, 1);
}

Test(pstorectl, delete_json)
{
	json_auto_t *v = RUN_JSON("--json=short", "delete", ids[9], ids[9]);

	/* The key of vacuum --json. */
	cr_assert_eq(json_array_size(json_object_get(v, "removed")), 1);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(v, "removed"), 0)),
			 ids[9]);
}

Test(pstorectl, missing_store)
{
	const char *const verbs[] = {"list", "show", "dmesg", "export", "delete"};

	snprintf(store_dir, sizeof(store_dir), "%s/no-such-store", tmpdir);
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		/* list takes no id; the others get one */
		Run r = RUN(verbs[i], i == 0 ? NULL : "0");

		cr_assert_eq(r.status, 1, "%s", verbs[i]);
		cr_assert_not_null(strstr(r.err, "No such file or directory"), "%s", r.err);
		cr_assert_not_null(strstr(r.err, "--store-dir"), "%s", r.err);
	}
}

Test(pstorectl, unreadable_store)
{
	Run r;

	/* As root, become nobody; otherwise take our own access away. */
	if (geteuid() == 0)
		r = run_as(65534, (const char *const[]){"list", NULL});
	else {
		cr_assert_eq(chmod(store_dir, 0), 0);
		r = RUN("list");
		(void)chmod(store_dir, 0700);
	}
	cr_assert_eq(r.status, 1);
	cr_assert_not_null(strstr(r.err, "Permission denied"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "group 'pstore'"), "%s", r.err);
}

/*
 * The way pstorectl(1) documents to let a group read the store: chgrp -R,
 * chmod 2750. Its members read every crash, also one archived later (the
 * set-group-ID bit), and change none; others still get the message.
 */
Test(pstorectl, pstore_group_grants_read)
{
	const gid_t pstore_gid = 4242;
	const uid_t nobody = 65534;
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *cmd = NULL;
	Run r;

	if (geteuid() != 0)
		cr_skip_test("needs root to become another user");
	/* mkdtemp() made the parent 0700: open it as /var/lib is. */
	cr_assert_eq(chmod(tmpdir, 0755), 0);
	cr_assert(asprintf(&cmd, "chgrp -R %u '%s' && chmod 2750 '%s'", pstore_gid, store_dir,
			   store_dir) > 0);
	cr_assert_eq(system(cmd), 0);
	/* A crash archived after the change. */
	cr_assert_eq(RUN("delete", ids[0]).status, 0);
	cr_assert_eq(store_open(store_dir, 0, &s), 0);
	add_crash(s, 0);

	r = run_as_member(nobody, pstore_gid, (const char *const[]){"list", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "20 crashes listed."), "%s", r.out);
	for (int i = 0; i < 2; i++) {
		r = run_as_member(nobody, pstore_gid, (const char *const[]){"show", ids[i], NULL});
		cr_assert_eq(r.status, 0, "show %s: %s", ids[i], r.err);
		r = run_as_member(nobody, pstore_gid, (const char *const[]){"dmesg", ids[i], NULL});
		cr_assert_eq(r.status, 0, "dmesg %s: %s", ids[i], r.err);
		r = run_as_member(nobody, pstore_gid,
				  (const char *const[]){"export", ids[i], NULL});
		cr_assert_eq(r.status, 0, "export %s: %s", ids[i], r.err);
	}

	r = run_as_member(nobody, pstore_gid, (const char *const[]){"delete", ids[1], NULL});
	cr_assert_eq(r.status, 1);
	cr_assert_not_null(strstr(r.err, "Permission denied"), "%s", r.err);
	cr_assert_eq(RUN("show", ids[1]).status, 0);

	r = run_as(nobody, (const char *const[]){"list", NULL});
	cr_assert_eq(r.status, 1);
	cr_assert_not_null(strstr(r.err, "group 'pstore'"), "%s", r.err);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_fclose_ FILE *f = NULL;

	cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "we");
	cr_assert_not_null(f, "%s: %m", path);
	fputs(text, f);
}

/* Makes tmpdir/sub (with parents) and returns its path. */
static char *make_dir(const char *sub)
{
	_cleanup_free_ char *cmd = NULL;
	char *p = NULL;

	cr_assert(asprintf(&p, "%s/%s", tmpdir, sub) > 0);
	cr_assert(asprintf(&cmd, "mkdir -p '%s'", p) > 0);
	cr_assert_eq(system(cmd), 0);
	return p;
}

Test(pstorectl, status)
{
	_cleanup_free_ char *pstore = make_dir("pstore"), *sys = make_dir("sys");
	_cleanup_free_ char *params = make_dir("sys/module/pstore/parameters");
	_cleanup_free_ char *acpi = make_dir("sys/firmware/acpi/tables");
	_cleanup_free_ char *etc = make_dir("etc");
	_cleanup_free_ char *pdir = NULL, *sdir = NULL, *cdir = NULL;
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *v = NULL, *run = NULL;
	json_t *p, *st, *u;
	Run r;

	write_text(pstore, "dmesg-erst-7300000000000000001", "Panic#1 Part1\nabc\n");
	write_text(pstore, "dmesg-erst-7300000000000000002.enc.z", "xyz");
	write_text(pstore, "dmesg-efi_pstore-176400000000101", "Oops#1 Part1\n");
	write_text(params, "backend", "erst\n");
	write_text(params, "compress", "deflate\n");
	write_text(acpi, "ERST", "ERST");
	/* The crashes' target. */
	write_text(etc, "pstored.conf",
		   "[Target.collector]\nType=http-json\nURL=http://127.0.0.1:9/{id}\n");

	cr_assert_eq(store_open(store_dir, 0, &s), 0);
	run = json_pack("{s:I, s:I, s:s, s:i, s:i}", "started_at", T0, "finished_at", T0 + 2000000,
			"result", "success", "crashes_archived", 2, "records_erased", 5);
	cr_assert_eq(store_write_last_archive(s, run), 0);

	cr_assert(asprintf(&pdir, "--pstore-dir=%s", pstore) > 0);
	cr_assert(asprintf(&sdir, "--sysfs-dir=%s", sys) > 0);
	cr_assert(asprintf(&cdir, "--config=%s/pstored.conf", etc) > 0);
	v = RUN_JSON("status", pdir, sdir, cdir, "--json");
	p = json_object_get(v, "pstore");
	st = json_object_get(v, "store");
	cr_assert_eq(json_is_false(json_object_get(p, "mounted")), true);
	cr_assert_str_eq(json_string_value(json_object_get(p, "backend")), "erst");
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(p, "parameters"), "compress")),
		"deflate");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(p, "records"), "count")),
		     3);
	cr_assert_eq(json_integer_value(json_object_get(
			     json_object_get(json_object_get(p, "records"), "backends"), "erst")),
		     2);
	cr_assert_eq(
		json_integer_value(json_object_get(
			json_object_get(json_object_get(p, "records"), "backends"), "efi_pstore")),
		1);
	cr_assert(json_is_true(json_object_get(json_object_get(p, "erst"), "present")));
	cr_assert_eq(json_integer_value(json_object_get(st, "crashes")), CRASHES);
	u = json_object_get(st, "upload");
	cr_assert_eq(json_integer_value(json_object_get(u, "waiting")), 4); /* 0, 5, 10, 15 */
	cr_assert_eq(json_integer_value(json_object_get(u, "failed")), 0);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(u, "targets"), 0)),
			 "collector");
	cr_assert_gt(json_integer_value(json_object_get(st, "bytes")), 0);
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(st, "last_archive"), "result")),
		"success");

	r = RUN("status", pdir, sdir, cdir);
	cr_assert_eq(r.status, 0);
	cr_assert_not_null(strstr(r.out, "is not mounted"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "      Backend: erst\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "   Parameters: backend=erst compress=deflate\n"));
	cr_assert_not_null(strstr(r.out, "      Waiting: 3 records"));
	cr_assert_not_null(strstr(r.out, "20 crashes"));
	cr_assert_not_null(strstr(r.out, "       Upload: 4 crashes waiting, 0 failed (targets: "
					 "collector)\n"),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.out, " Last archive: Tue 2026-12-01 00:00:02 UTC, success, 2 "
					 "crashes archived, 5 records erased\n"),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.err, "3 records in"), "%s", r.err);
}

/*
 * A last-archive.json that is corrupt, or that cannot be read at all (here a
 * directory): the last run is "unknown", with a warning naming the file, and
 * the rest of the status is still there.
 */
Test(pstorectl, status_unreadable_last_archive)
{
	static const struct {
		const char *text; /* the file's content, or NULL for a directory */
		int error;
		const char *cause;
	} cases[] = {
		{"{\"started_at\": 17960832", EBADMSG, "Bad message (not a JSON object)"},
		{"[\"success\"]", EBADMSG, "Bad message (not a JSON object)"},
		{NULL, EISDIR, "Is a directory"},
	};
	_cleanup_free_ char *path = NULL;

	cr_assert(asprintf(&path, "%s/%s", store_dir, STORE_LAST_ARCHIVE_FILE) > 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *warning = NULL;
		json_auto_t *v = NULL;
		json_t *last;
		Run r;

		(void)unlink(path);
		(void)rmdir(path);
		if (cases[i].text)
			write_text(store_dir, STORE_LAST_ARCHIVE_FILE, cases[i].text);
		else
			cr_assert_eq(mkdir(path, 0700), 0, "%s: %m", path);

		v = RUN_JSON("status", "--pstore-dir=/nonexistent", "--sysfs-dir=/nonexistent",
			     "--json");
		last = json_object_get(json_object_get(v, "store"), "last_archive");
		cr_assert_str_eq(json_string_value(json_object_get(last, "result")), "unknown");
		cr_assert_str_eq(json_string_value(json_object_get(last, "read_error")),
				 strerror(cases[i].error));
		cr_assert_eq(json_integer_value(json_object_get(last, "read_errno")),
			     cases[i].error);
		cr_assert_eq(
			json_integer_value(json_object_get(json_object_get(v, "store"), "crashes")),
			CRASHES);

		r = RUN("status", "--pstore-dir=/nonexistent", "--sysfs-dir=/nonexistent");
		cr_assert_eq(r.status, 0, "%s", r.err);
		cr_assert_not_null(strstr(r.out, "20 crashes"), "%s", r.out);
		cr_assert_not_null(strstr(r.out, "       Upload: "), "%s", r.out);
		cr_assert_not_null(strstr(r.out, " Last archive: unknown (cannot read "
						 "last-archive.json)\n"),
				   "%s", r.out);
		cr_assert(asprintf(&warning,
				   "Warning: Cannot read the record of the last archive "
				   "run, %s: %s. The next 'pstored archive' run replaces "
				   "it; remove it to clear this warning.\n",
				   path, cases[i].cause) > 0);
		cr_assert_not_null(strstr(r.err, warning), "%s", r.err);
	}
}

/* What our pstore_erst module tells: ERST full, two dumps lost. */
Test(pstorectl, status_erst_module)
{
	_cleanup_free_ char *sys = make_dir("sys"), *acpi = make_dir("sys/firmware/acpi/tables");
	_cleanup_free_ char *mod = make_dir("sys/module/pstore_erst/parameters");
	_cleanup_free_ char *sdir = NULL, *rm = NULL;
	json_auto_t *v = NULL;
	json_t *e;
	Run r;

	write_text(acpi, "ERST", "ERST");
	write_text(mod, "record_count", "7\n");
	write_text(mod, "record_size", "8192\n");
	write_text(mod, "nospc_dumps", "2\n");
	cr_assert(asprintf(&sdir, "--sysfs-dir=%s", sys) > 0);

	v = RUN_JSON("status", "--pstore-dir=/nonexistent", sdir, "--json");
	e = json_object_get(json_object_get(v, "pstore"), "erst");
	cr_assert(json_is_true(json_object_get(e, "present")));
	cr_assert_str_eq(json_string_value(json_object_get(e, "source")), "pstore_erst");
	cr_assert_eq(json_integer_value(json_object_get(e, "records")), 7);
	cr_assert_eq(json_integer_value(json_object_get(e, "record_size")), 8192);
	cr_assert_eq(json_integer_value(json_object_get(e, "nospc_dumps")), 2);
	cr_assert(json_is_true(json_object_get(e, "full")));

	r = RUN("status", "--pstore-dir=/nonexistent", sdir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "         ERST: 7 records (buffer 8192 bytes), from "
					 "pstore_erst; ACPI ERST reports no capacity\n"),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.err, "Warning: ERST is full: 2 dumps were lost; run 'pstored "
					 "archive' (or erase records) to free it."),
			   "%s", r.err);

	/* After erasing: no warning while the module lost nothing. */
	write_text(mod, "record_count", "1\n");
	write_text(mod, "nospc_dumps", "0\n");
	json_decref(v);
	v = RUN_JSON("status", "--pstore-dir=/nonexistent", sdir, "--json");
	e = json_object_get(json_object_get(v, "pstore"), "erst");
	cr_assert(json_is_false(json_object_get(e, "full")));
	r = RUN("status", "--pstore-dir=/nonexistent", sdir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "         ERST: 1 record (buffer 8192 bytes)"), "%s",
			   r.out);
	cr_assert_null(strstr(r.err, "ERST is full"), "%s", r.err);

	/* Without the module: the table, and /dev/erst_dbg where the kernel has it. */
	cr_assert(asprintf(&rm, "rm -r '%s'", mod) > 0);
	cr_assert_eq(system(rm), 0);
	json_decref(v);
	v = RUN_JSON("status", "--pstore-dir=/nonexistent", sdir, "--json");
	e = json_object_get(json_object_get(v, "pstore"), "erst");
	cr_assert(json_is_true(json_object_get(e, "present")));
	cr_assert_null(json_object_get(e, "full"));
	cr_assert_null(json_object_get(e, "record_size"));
	if (access("/dev/erst_dbg", R_OK) < 0) {
		cr_assert(json_is_null(json_object_get(e, "records")));
		cr_assert(json_is_null(json_object_get(e, "source")));
	}
}

/*
 * The backends the machine has but the kernel did not register, with what
 * would register each, and kdump: what a new user reads first, to know
 * whether a crash will be kept at all.
 */
Test(pstorectl, status_available_backends_and_kdump)
{
	_cleanup_free_ char *sys = make_dir("sys"), *kernel = make_dir("sys/kernel");
	_cleanup_free_ char *params = make_dir("sys/module/pstore/parameters");
	_cleanup_free_ char *efi = make_dir("sys/firmware/efi"), *sdir = NULL, *rm = NULL;
	_cleanup_free_ char *efi_pstore = NULL;
	json_auto_t *v = NULL;
	json_t *a, *k;
	Run r;

	cr_assert(asprintf(&sdir, "--sysfs-dir=%s", sys) > 0);
	write_text(params, "backend", "(null)\n");
	write_text(kernel, "kexec_crash_size", "0\n");
	write_text(kernel, "kexec_crash_loaded", "0\n");

	/* An EFI system without efi_pstore, nothing reserved for kdump: no crash is kept. */
	v = RUN_JSON("status", "--pstore-dir=/nonexistent", sdir, "--json");
	a = json_object_get(json_object_get(v, "pstore"), "available");
	cr_assert_eq(json_array_size(a), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "backend")),
			 "efi");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "arm")),
			 "modprobe efi_pstore");
	k = json_object_get(v, "kdump");
	cr_assert_eq(json_integer_value(json_object_get(k, "reserved")), 0);
	cr_assert(json_is_false(json_object_get(k, "armed")));
	r = RUN("status", "--pstore-dir=/nonexistent", sdir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "    Available: efi, not registered: EFI system, "
					 "efi_pstore not loaded (modprobe efi_pstore)\n"),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.out, "        Kdump: not armed: no memory reserved "
					 "(crashkernel=256M on the kernel command line, then "
					 "kdump-tools or kexec -p)\n"),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.err, "Warning: A crash of this kernel will not be kept: no "
					 "pstore backend is registered and kdump is not armed"),
			   "%s", r.err);

	/* efi_pstore loaded but disabled, ERST whose driver is off; memory reserved. */
	efi_pstore = make_dir("sys/module/efi_pstore/parameters");
	write_text(efi_pstore, "pstore_disable", "Y\n");
	free(make_dir("sys/firmware/acpi/tables"));
	write_text(sys, "firmware/acpi/tables/ERST", "ERST");
	write_text(kernel, "kexec_crash_size", "268435456\n");
	r = RUN("status", "--pstore-dir=/nonexistent", sdir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "    Available: efi, not registered: efi_pstore loaded "
					 "with pstore_disable=Y (efi_pstore.pstore_disable=0 on "
					 "the kernel command line)\n"
					 "               erst, not registered: ERST table present, "
					 "its driver off or failed (modprobe pstore_erst, where "
					 "erst_disable is set)\n"),
			   "%s", r.out);
	cr_assert_not_null(strstr(r.out, "        Kdump: not armed: 256.0M reserved, no capture "
					 "kernel loaded (systemctl start kdump-tools, or kexec "
					 "-p)\n"),
			   "%s", r.out);

	/* efi registered, ERST left over; kdump armed: a crash is kept, no warning. */
	write_text(params, "backend", "efi\n");
	write_text(kernel, "kexec_crash_loaded", "1\n");
	json_decref(v);
	v = RUN_JSON("status", "--pstore-dir=/nonexistent", sdir, "--json");
	a = json_object_get(json_object_get(v, "pstore"), "available");
	cr_assert_eq(json_array_size(a), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 0), "arm")),
			 "pstore.backend=erst on the kernel command line");
	k = json_object_get(v, "kdump");
	cr_assert(json_is_true(json_object_get(k, "armed")));
	cr_assert(json_is_null(json_object_get(k, "arm")));
	r = RUN("status", "--pstore-dir=/nonexistent", sdir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "        Kdump: armed (capture kernel loaded, 256.0M "
					 "reserved)\n"),
			   "%s", r.out);
	cr_assert_null(strstr(r.err, "will not be kept"), "%s", r.err);

	/* A kernel without kexec. */
	cr_assert(asprintf(&rm, "rm -r '%s'", kernel) > 0);
	cr_assert_eq(system(rm), 0);
	json_decref(v);
	v = RUN_JSON("status", "--pstore-dir=/nonexistent", sdir, "--json");
	cr_assert(json_is_null(json_object_get(v, "kdump")));
	r = RUN("status", "--pstore-dir=/nonexistent", sdir);
	cr_assert_not_null(strstr(r.out, "        Kdump: unknown (the kernel has no kexec"), "%s",
			   r.out);
}

Test(pstorectl, status_without_store_or_pstore)
{
	json_auto_t *v = NULL;
	Run r;

	snprintf(store_dir, sizeof(store_dir), "%s/no-such-store", tmpdir);
	v = RUN_JSON("status", "--pstore-dir=/nonexistent", "--sysfs-dir=/nonexistent", "--json");
	cr_assert(json_is_null(json_object_get(json_object_get(v, "pstore"), "backend")));
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(v, "store"), "errno")),
		     ENOENT);
	r = RUN("status", "--pstore-dir=/nonexistent", "--sysfs-dir=/nonexistent");
	cr_assert_eq(r.status, 0);
	cr_assert_not_null(strstr(r.out, "No such file or directory (nothing archived yet)"), "%s",
			   r.out);
}

/* Writes text to the test's pstored.conf; returns the --config= option that names it. */
static char *config_option(const char *text)
{
	char *opt = NULL;

	write_text(tmpdir, "pstored.conf", text);
	cr_assert(asprintf(&opt, "--config=%s/pstored.conf", tmpdir) > 0);
	return opt;
}

/*
 * status --json shows the configuration as pstored uses it, with its
 * warnings; one that cannot be loaded is an error there and for the uploads.
 */
Test(pstorectl, status_config)
{
	_cleanup_free_ char *opt = config_option("[Archive]\nUnlnk=no\n[Store]\nMaxUse=1G\n"
						 "[Target.c]\nType=journal-remote\n"
						 "URL=https://127.0.0.1:9\n");
	_cleanup_free_ char *warning = NULL;
	json_auto_t *v = NULL, *missing = NULL;
	json_t *config;

	v = RUN_JSON("status", "--pstore-dir=/nonexistent", "--sysfs-dir=/nonexistent", opt,
		     "--json");
	config = json_object_get(v, "config");
	cr_assert(json_is_true(json_object_get(json_object_get(config, "Archive"), "Unlink")));
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(config, "Store"), "MaxUse")),
		1024 * 1024 * 1024);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_object_get(config, "Target"), "c"), "Type")),
			 "journal-remote");
	cr_assert(asprintf(&warning,
			   "%s/pstored.conf:2: unknown key 'Unlnk' in section [Archive]; line "
			   "ignored",
			   tmpdir) > 0);
	cr_assert_eq(json_array_size(json_object_get(config, "warnings")), 1);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(config, "warnings"), 0)),
			 warning);

	missing = RUN_JSON("status", "--pstore-dir=/nonexistent", "--sysfs-dir=/nonexistent",
			   "--config=/nonexistent/pstored.conf", "--json");
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(missing, "config"), "error")),
		"/nonexistent/pstored.conf: No such file or directory");
	cr_assert_str_eq(
		json_string_value(json_object_get(
			json_object_get(json_object_get(missing, "store"), "upload"), "error")),
		"/nonexistent/pstored.conf: No such file or directory");
}

Test(pstorectl, vacuum)
{
	_cleanup_free_ char *opt = config_option("[Store]\nMaxCrashes=15\nKeepUnsent=no\n");
	json_auto_t *v = NULL, *after = NULL;

	v = RUN_JSON("vacuum", opt, "--json=short");
	cr_assert_eq(json_array_size(json_object_get(v, "removed")), 5);
	for (int i = 0; i < 5; i++)
		cr_assert_str_eq(
			json_string_value(json_array_get(json_object_get(v, "removed"), i)),
			ids[i]);
	after = RUN_JSON("--json", "list");
	cr_assert_eq(json_array_size(after), 15);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(after, 0), "id")),
			 ids[5]);
}

Test(pstorectl, vacuum_keeps_unsent)
{
	/* Crashes 0, 5, 10 and 15 wait for upload: of the 5 oldest, crash 0 stays. */
	_cleanup_free_ char *opt = config_option("[Store]\nMaxCrashes=15\n");
	json_auto_t *v = NULL;
	Run r;

	v = RUN_JSON("--json", "vacuum", opt);
	cr_assert_eq(json_array_size(json_object_get(v, "removed")), 5);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(v, "removed"), 0)),
			 ids[1]);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(v, "removed"), 4)),
			 ids[6]);

	/* Within the limits now: nothing more goes. */
	r = RUN("vacuum", opt);
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.out, "");
	cr_assert_not_null(strstr(r.err, "Nothing to remove"), "%s", r.err);
}

/* Without --json, the ids it removed on stdout, one a line, as pstorectl(1) says. */
Test(pstorectl, vacuum_prints_the_ids)
{
	_cleanup_free_ char *opt = config_option("[Store]\nMaxCrashes=18\nKeepUnsent=no\n");
	_cleanup_free_ char *expected = NULL;
	Run r = RUN("vacuum", opt);

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(asprintf(&expected, "%s\n%s\n", ids[0], ids[1]) > 0);
	cr_assert_str_eq(r.out, expected);
	cr_assert_not_null(strstr(r.err, "Removed 2 crashes from "), "%s", r.err);
}

/* A bad value is a warning naming file, line and key, and the default applies, as at boot. */
Test(pstorectl, vacuum_bad_config)
{
	_cleanup_free_ char *opt = config_option("[Store]\nMaxCrashes=lots\n");
	json_auto_t *after = NULL;
	Run r;

	r = RUN("vacuum", opt);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "pstored.conf:2: invalid value 'lots' for key "
					 "'MaxCrashes' in section [Store]: "),
			   "%s", r.err);
	cr_assert_not_null(strstr(r.err, "; line ignored, MaxCrashes= keeps its previous value "
					 "(default 1000)\n"),
			   "%s", r.err);
	after = RUN_JSON("--json", "list");
	cr_assert_eq(json_array_size(after), CRASHES);
}
