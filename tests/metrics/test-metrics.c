// SPDX-License-Identifier: GPL-2.0-or-later
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs-util.h"
#include "macro.h"
#include "metrics/metrics.h"
#include "time-util.h"

static void check_text(Metrics *m, const char *want)
{
	size_t len;
	const char *text = metrics_text(m, &len);

	cr_assert_str_eq(text, want);
	cr_assert_eq(len, strlen(want));
}

Test(metrics, families_and_samples)
{
	_cleanup_metrics_ Metrics *m = NULL;

	cr_assert_eq(metrics_new(&m), 0);
	cr_assert_eq(
		metrics_family(m, "pstored_store_crashes", METRIC_GAUGE, "Crashes in the store."),
		0);
	cr_assert_eq(metrics_sample(
			     m, (const char *const[]){"kind", "dmesg", "reason", "panic", NULL}, 2),
		     0);
	cr_assert_eq(
		metrics_sample(m, (const char *const[]){"kind", "cper", "reason", "hardware", NULL},
			       1),
		0);
	cr_assert_eq(metrics_family(m, "pstored_store_bytes", METRIC_GAUGE, "Bytes."), 0);
	cr_assert_eq(metrics_sample(m, NULL, 123456789012.0), 0);
	cr_assert_eq(metrics_family(m, "pstored_last_run_seconds", METRIC_GAUGE, "Time."), 0);
	cr_assert_eq(metrics_sample(m, (const char *const[]){NULL}, 1765061234.5), 0);
	check_text(m, "# HELP pstored_store_crashes Crashes in the store.\n"
		      "# TYPE pstored_store_crashes gauge\n"
		      "pstored_store_crashes{kind=\"dmesg\",reason=\"panic\"} 2\n"
		      "pstored_store_crashes{kind=\"cper\",reason=\"hardware\"} 1\n"
		      "# HELP pstored_store_bytes Bytes.\n"
		      "# TYPE pstored_store_bytes gauge\n"
		      "pstored_store_bytes 123456789012\n"
		      "# HELP pstored_last_run_seconds Time.\n"
		      "# TYPE pstored_last_run_seconds gauge\n"
		      "pstored_last_run_seconds 1765061234.5\n");
}

Test(metrics, a_family_without_samples_is_left_out)
{
	_cleanup_metrics_ Metrics *m = NULL;

	cr_assert_eq(metrics_new(&m), 0);
	cr_assert_eq(metrics_family(m, "pstored_upload_failures", METRIC_COUNTER, "None yet."), 0);
	cr_assert_eq(metrics_family(m, "pstored_upload_queue", METRIC_GAUGE, "Queued."), 0);
	cr_assert_eq(metrics_sample(m, (const char *const[]){"target", "fleet", NULL}, 0), 0);
	check_text(m, "# HELP pstored_upload_queue Queued.\n"
		      "# TYPE pstored_upload_queue gauge\n"
		      "pstored_upload_queue{target=\"fleet\"} 0\n");
}

/* A target is named by the administrator: its name must not break the line or add labels. */
Test(metrics, label_values_and_help_are_escaped)
{
	_cleanup_metrics_ Metrics *m = NULL;

	cr_assert_eq(metrics_new(&m), 0);
	cr_assert_eq(metrics_family(m, "x", METRIC_GAUGE, "a \\ b\nc \"d\""), 0);
	cr_assert_eq(
		metrics_sample(m, (const char *const[]){"target", "a\"} 9\nevil{b=\"\\", NULL}, 1),
		0);
	check_text(m, "# HELP x a \\\\ b\\nc \"d\"\n"
		      "# TYPE x gauge\n"
		      "x{target=\"a\\\"} 9\\nevil{b=\\\"\\\\\"} 1\n");
}

Test(metrics, bad_names_and_values_are_refused)
{
	_cleanup_metrics_ Metrics *m = NULL;

	cr_assert_eq(metrics_new(&m), 0);
	cr_assert_eq(metrics_sample(m, NULL, 1), -EINVAL, "no open family");
	cr_assert_eq(metrics_family(m, "", METRIC_GAUGE, "h"), -EINVAL);
	cr_assert_eq(metrics_family(m, "1x", METRIC_GAUGE, "h"), -EINVAL);
	cr_assert_eq(metrics_family(m, "a-b", METRIC_GAUGE, "h"), -EINVAL);
	cr_assert_eq(metrics_family(m, "a", METRIC_GAUGE, "\xff"), -EINVAL);
	cr_assert_eq(metrics_family(m, "a", (MetricType)7, "h"), -EINVAL);
	cr_assert_eq(metrics_family(m, "ns:a_b", METRIC_GAUGE, "h"), 0);
	cr_assert_eq(metrics_sample(m, (const char *const[]){"a:b", "v", NULL}, 1), -EINVAL);
	cr_assert_eq(metrics_sample(m, (const char *const[]){"a", "\xc3(", NULL}, 1), -EINVAL);
	cr_assert_eq(metrics_sample(m, (const char *const[]){"a", NULL}, 1), -EINVAL);
	check_text(m, "");
}

Test(metrics, the_file_is_replaced_whole)
{
	char dir[] = "/tmp/test-metrics-XXXXXX";
	_cleanup_metrics_ Metrics *m = NULL;
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len;

	cr_assert_not_null(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	/* A FIFO where an earlier version put its temporary file: never opened. */
	cr_assert_eq(mkfifoat(fd, "pstored.prom.tmp", 0600), 0);
	cr_assert_eq(write_file_at(fd, "pstored.prom", O_TRUNC, 0600, "old\n", 4), 0);

	cr_assert_eq(metrics_new(&m), 0);
	cr_assert_eq(metrics_family(m, "up", METRIC_GAUGE, "h"), 0);
	cr_assert_eq(metrics_sample(m, NULL, 1), 0);
	cr_assert_eq(metrics_write_at(m, fd, "pstored.prom"), 0);

	cr_assert_eq(read_full_file_at(fd, "pstored.prom", 4096, &text, &len), 0);
	cr_assert_str_eq(text, "# HELP up h\n# TYPE up gauge\nup 1\n");
	cr_assert_eq(fstatat(fd, "pstored.prom", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq(st.st_mode & 07777, 0644, "node_exporter runs as its own user");
	cr_assert_eq(fstatat(fd, "pstored.prom.tmp", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISFIFO(st.st_mode));
	cr_assert_eq(rm_rf_at(AT_FDCWD, dir), 0);
}

/* The entries of dir but name, and name's content. */
static void check_dir_holds_only(const char *dir, const char *name, char **ret_text)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	size_t len;

	cr_assert_geq(fd, 0);
	cr_assert_eq(opendir_at(fd, ".", 0, &d), 0);
	while ((de = readdir(d)))
		cr_assert(dot_or_dot_dot(de->d_name) || streq(de->d_name, name), "%s left in %s",
			  de->d_name, dir);
	closedir(d);
	cr_assert_eq(read_full_file_at(fd, name, 4096, ret_text, &len), 0);
}

/*
 * Two writers of one metrics file at once (two archive runs, issue 34,
 * finding 11): each write succeeds, the file is always one writer's whole,
 * and no temporary file is left.
 */
Test(metrics, two_writers_at_once)
{
	char dir[] = "/tmp/test-metrics-XXXXXX";
	_cleanup_free_ char *text = NULL;
	pid_t pids[2];
	int status;

	cr_assert_not_null(mkdtemp(dir));
	for (int w = 0; w < 2; w++) {
		pids[w] = fork();
		cr_assert_geq(pids[w], 0);
		if (pids[w] == 0) {
			_cleanup_metrics_ Metrics *m = NULL;

			if (metrics_new(&m) < 0 ||
			    metrics_family(m, "writer", METRIC_GAUGE, "h") < 0 ||
			    metrics_sample(m, NULL, w) < 0)
				_exit(2);
			for (int i = 0; i < 2000; i++)
				if (metrics_write(m, dir, "pstored.prom") < 0)
					_exit(1);
			_exit(0);
		}
	}
	for (int w = 0; w < 2; w++) {
		cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "writer %d failed to write the file", w);
	}
	check_dir_holds_only(dir, "pstored.prom", &text);
	cr_assert(streq(text, "# HELP writer h\n# TYPE writer gauge\nwriter 0\n") ||
		  streq(text, "# HELP writer h\n# TYPE writer gauge\nwriter 1\n"));
	cr_assert_eq(rm_rf_at(AT_FDCWD, dir), 0);
}

Test(metrics, a_directory_by_path)
{
	char dir[] = "/tmp/test-metrics-XXXXXX";
	_cleanup_metrics_ Metrics *m = NULL;
	_cleanup_free_ char *text = NULL, *missing = NULL;
	_cleanup_close_ int fd = -1;
	size_t len;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(metrics_new(&m), 0);
	cr_assert_eq(metrics_family(m, "up", METRIC_GAUGE, "h"), 0);
	cr_assert_eq(metrics_sample(m, NULL, 1), 0);
	cr_assert_eq(metrics_write(m, dir, "pstored.prom"), 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read_full_file_at(fd, "pstored.prom", 4096, &text, &len), 0);
	cr_assert_str_eq(text, "# HELP up h\n# TYPE up gauge\nup 1\n");
	cr_assert(asprintf(&missing, "%s/missing", dir) >= 0);
	cr_assert_eq(metrics_write(m, missing, "pstored.prom"), -ENOENT);
	cr_assert_eq(rm_rf_at(AT_FDCWD, dir), 0);
}

Test(metrics, last_run)
{
	_cleanup_metrics_ Metrics *m = NULL;
	const char *text;
	usec_t before, after;
	double t;

	cr_assert_eq(metrics_new(&m), 0);
	before = now_usec();
	cr_assert_eq(metrics_last_run(m, "x", "x run", false), 0);
	after = now_usec();
	text = metrics_text(m, NULL);
	cr_assert_eq(
		sscanf(text,
		       "# HELP x_last_run_timestamp_seconds When the last run of x run ended, in "
		       "seconds since the epoch.\n# TYPE x_last_run_timestamp_seconds gauge\n"
		       "x_last_run_timestamp_seconds %lf\n",
		       &t),
		1);
	/* The same clock, not time(2): its coarse clock may not have reached t's second yet. */
	cr_assert(t >= (double)before / USEC_PER_SEC - 1e-5 &&
			  t <= (double)after / USEC_PER_SEC + 1e-5,
		  "%f not within [%f, %f]", t, (double)before / USEC_PER_SEC,
		  (double)after / USEC_PER_SEC);
	cr_assert_not_null(strstr(text, "\n# HELP x_last_run_success 1 if the last run of x run "
					"succeeded, else 0.\n# TYPE x_last_run_success gauge\n"
					"x_last_run_success 0\n"));
	cr_assert_eq(metrics_last_run(m, "9", "x", true), -EINVAL);
}
