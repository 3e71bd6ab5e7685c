// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * upload_run() tells the program what it could not do, or why there was
 * nothing to do, through the log function the program set (UploadOptions.log,
 * as kmod_set_log_fn()), with each message's priority and errno; without one
 * it says nothing. The passes here stop before any network: no target, no
 * store, no token file.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "config/config.h"
#include "fs-util.h"
#include "macro.h"
#include "store/store.h"
#include "upload/upload.h"

static char tmpdir[] = "/tmp/test-upload-run.XXXXXX";
static char store_dir[64], token_file[64];
static PstoredConfig *no_targets, *one_target;

static PstoredConfig *load_config(const char *name, const char *text)
{
	_cleanup_free_ char *path = NULL;
	PstoredConfig *c = NULL;
	int fd;

	cr_assert_geq(asprintf(&path, "%s/%s", tmpdir, name), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write_full(fd, text, strlen(text)), 0);
	close(fd);
	cr_assert_eq(pstored_config_load(path, NULL, &c, NULL), 0);
	cr_assert_eq(c->n_warnings, 0);
	return c;
}

static void setup(void)
{
	_cleanup_free_ char *target = NULL;

	cr_redirect_stderr();
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(store_dir, sizeof(store_dir), "%s/store", tmpdir);
	snprintf(token_file, sizeof(token_file), "%s/token", tmpdir);
	cr_assert_geq(asprintf(&target,
			       "[Target.t]\nType=http-json\nURL=https://127.0.0.1:9/{id}\n"
			       "TokenFile=%s\n",
			       token_file),
		      0);
	no_targets = load_config("empty.conf", "");
	one_target = load_config("target.conf", target);
}

static void teardown(void)
{
	pstored_config_free(no_targets);
	pstored_config_free(one_target);
	(void)rm_rf_at(AT_FDCWD, tmpdir);
}

TestSuite(upload_run, .init = setup, .fini = teardown);

/* Runs a pass with the given configuration and target; returns upload_run()'s result. */
static int run(const PstoredConfig *c, const char *target, UploadLogFn log, FILE *f)
{
	UploadSummary sum;
	UploadOptions o = {
		.store_dir = store_dir,
		.config = c,
		.target = target,
		.log = log,
		.userdata = f,
	};

	return upload_run(&o, &sum);
}

/* The program's side: one line per message, "<priority> errno message". */
_printf_(4, 0) static void collect(void *userdata, int priority, int error, const char *format,
				   va_list ap)
{
	FILE *f = userdata;

	fprintf(f, "<%d> %d ", priority, error);
	errno = error;
	vfprintf(f, format, ap);
	fputc('\n', f);
}

static void create_store(void)
{
	_cleanup_(store_freep) Store *s = NULL;

	cr_assert_eq(store_open(store_dir, STORE_CREATE, &s), 0);
}

Test(upload_run, messages_go_to_the_log_function)
{
	_cleanup_free_ char *got = NULL, *expected = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	cr_assert_not_null(f);
	cr_assert_eq(run(no_targets, NULL, collect, f), 0);
	cr_assert_eq(run(no_targets, "nope", collect, f), -ENOENT);
	cr_assert_eq(run(one_target, NULL, collect, f), 0);
	create_store();
	cr_assert_eq(run(one_target, "t", collect, f), -ENOENT);
	cr_assert_eq(symlink("/dev/null", token_file), 0);
	cr_assert_eq(run(one_target, NULL, collect, f), -ELOOP);
	cr_assert_eq(fclose(f), 0);

	cr_assert_geq(
		asprintf(&expected,
			 "<6> 0 No upload target configured ([Target.NAME] in pstored.conf): "
			 "nothing to do.\n"
			 "<3> 2 No [Target.nope] section in the configuration: see "
			 "pstored.conf(5).\n"
			 "<6> 0 No crash store at %1$s: nothing to upload.\n"
			 "<3> 2 [Target.t] Cannot read TokenFile=%2$s: No such file or "
			 "directory (it should be a file readable by root only, holding the "
			 "bearer token).\n"
			 "<3> 40 [Target.t] TokenFile=%2$s is a symbolic link: refused (point "
			 "TokenFile= at the file itself).\n",
			 store_dir, token_file),
		0);
	cr_assert_str_eq(got, expected);
	cr_assert_stderr_eq_str("");
}

Test(upload_run, silent_without_a_log_function)
{
	cr_assert_eq(run(no_targets, NULL, NULL, NULL), 0);
	cr_assert_eq(run(no_targets, "nope", NULL, NULL), -ENOENT);
	cr_assert_eq(run(one_target, NULL, NULL, NULL), 0);
	create_store();
	cr_assert_eq(run(one_target, NULL, NULL, NULL), -ENOENT);
	fflush(stderr);
	cr_assert_stderr_eq_str("");
}
