// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pstorectl status: the kernel side (is pstore mounted, which backend, its
 * parameters, records waiting, ERST), the store side (crashes, size, uploads
 * waiting, the last archive run) and, in JSON, the effective configuration.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "crash-util.h"
#include "fs-util.h"
#include "log.h"
#include "pager.h"
#include "parse-util.h"
#include "store/last-archive.h"
#include "pstorectl.h"
#include "utf8-util.h"

/* From the kernel's include/acpi/apei.h (erst-dbg, CONFIG_ACPI_APEI_ERST_DEBUG). */
#define APEI_ERST_GET_RECORD_COUNT _IOR('E', 2, uint32_t)

/* A sysfs or procfs file larger than this is not one we understand. */
#define KERNEL_FILE_MAX 4096

static const char *arg_pstore_dir = "/sys/fs/pstore";
static const char *arg_sysfs_dir = "/sys";
static const char *arg_config;

enum {
	ARG_PSTORE_DIR = ARG_VERB_BASE,
	ARG_SYSFS_DIR,
	ARG_CONFIG,
};

static int handle_status_option(int c, const char *arg)
{
	switch (c) {
	case ARG_PSTORE_DIR:
		arg_pstore_dir = arg;
		return 0;
	case ARG_SYSFS_DIR:
		arg_sysfs_dir = arg;
		return 0;
	case ARG_CONFIG:
		arg_config = arg;
		return 0;
	default:
		return -EINVAL;
	}
}

static const OptionSpec status_option_table[] = {
	{"pstore-dir", required_argument, ARG_PSTORE_DIR, "DIR",
	 "The pstore file system (default: /sys/fs/pstore)"},
	{"sysfs-dir", required_argument, ARG_SYSFS_DIR, "DIR",
	 "Read kernel parameters below DIR (default: /sys)"},
	{"config", required_argument, ARG_CONFIG, "FILE",
	 "Read the configuration from FILE only"},
	{}};

const VerbOptions status_options = {status_option_table, NULL, handle_status_option};

/* A kernel file's first line, or NULL if it cannot be read. */
static char *read_kernel_line(int dir_fd, const char *name)
{
	char *buf;
	size_t n;

	if (read_full_file_at(dir_fd, name, KERNEL_FILE_MAX, &buf, &n) < 0)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Undoes the octal escapes (\040 for a space) of /proc/self/mountinfo. */
static void unescape_mountinfo(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		} else
			*w++ = *p;
	}
	*w = '\0';
}

/*
 * The file system type mounted at path, from /proc/self/mountinfo (the last
 * mount there wins: it is the one visible), or NULL if path is no mount point.
 * A line reads: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTS
 */
static char *mounted_fstype(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL, *real = realpath(path, NULL);
	char *fstype = NULL;
	size_t size = 0;

	if (!f || !real)
		return NULL;
	while (getline(&line, &size, f) > 0) {
		char *fields[5], *sep, *save = NULL, *p = line;
		size_t i;

		for (i = 0; i < ARRAY_SIZE(fields); i++, p = NULL)
			if (!(fields[i] = strtok_r(p, " ", &save)))
				break;
		sep = strstr(save ?: "", " - ");
		if (i < ARRAY_SIZE(fields) || !sep)
			continue;
		unescape_mountinfo(fields[4]);
		if (!streq(fields[4], real))
			continue;
		free(fstype);
		fstype = strndup(sep + 3, strcspn(sep + 3, " \n"));
	}
	return fstype;
}

/* Kernel parameters of pstore, {"backend": "erst", "compress": "deflate", ...}, sorted by name. */
static int pstore_parameters(json_t *ret)
{
	_cleanup_free_ char *dir = NULL;
	_cleanup_close_ int fd = -1;
	struct dirent **names = NULL;
	int n, r = 0;

	if (asprintf(&dir, "%s/module/pstore/parameters", arg_sysfs_dir) < 0)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = scandirat(fd, ".", &names, NULL, alphasort);
	if (n < 0)
		return -errno;

	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *v = NULL;

		if (r == 0 && names[i]->d_name[0] != '.') {
			v = read_kernel_line(fd, names[i]->d_name);
			if (v && json_object_set_new(ret, names[i]->d_name, json_string(v)) < 0)
				r = -ENOMEM;
		}
		free(names[i]);
	}
	free(names);
	return r;
}

/*
 * The records waiting in pstore: {"count", "bytes", "backends": {"erst": N}}.
 * Names are <type>-<backend>-<id>[.enc.z], and only the type may hold a '-'
 * (powerpc-ofw), so the backend is the second last part.
 */
static int pstore_records(json_t *ret)
{
	json_t *backends = json_object();
	uint64_t count = 0, bytes = 0;
	struct dirent *de;
	DIR *d;
	int r;

	if (!backends || json_object_set_new(ret, "backends", backends) < 0)
		return -ENOMEM;
	r = opendir_at(AT_FDCWD, arg_pstore_dir, 0, &d);
	if (r < 0)
		return r;

	FOREACH_DIRENT(de, d, r = -errno) {
		_cleanup_free_ char *name = strdup(de->d_name);
		struct stat st;
		char *last, *prev;

		if (!name) {
			closedir(d);
			return -ENOMEM;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		count++;
		bytes += st.st_size;

		if (strlen(name) > 6 && streq(name + strlen(name) - 6, ".enc.z"))
			name[strlen(name) - 6] = '\0';
		last = strrchr(name, '-');
		if (!last)
			continue;
		*last = '\0';
		prev = strrchr(name, '-');
		if (!prev)
			continue;
		json_t *n = json_object_get(backends, prev + 1);
		if (json_object_set_new(backends, prev + 1,
					json_integer(json_integer_value(n) + 1)) < 0) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (r < 0)
		return r;
	if (json_object_set_new(ret, "count", json_integer(count)) < 0 ||
	    json_object_set_new(ret, "bytes", json_integer(bytes)) < 0)
		return -ENOMEM;
	return 0;
}

/* A number in a file of dir_fd ("7\n"), or JSON null if it cannot be read. */
static json_t *read_kernel_uint(int dir_fd, const char *name)
{
	_cleanup_free_ char *v = read_kernel_line(dir_fd, name);
	uint64_t n;

	if (!v || parse_uint64(v, &n) < 0 || n > INT64_MAX)
		return json_null();
	return json_integer((json_int_t)n);
}

/*
 * What our pstore_erst module tells in its read-only parameters: the records
 * stored (GET_RECORD_COUNT), the size of the firmware's record buffer and
 * how many dumps the firmware refused for lack of space.
 */
static int erst_module_status(int dir_fd, json_t *v)
{
	json_t *lost = read_kernel_uint(dir_fd, "nospc_dumps");

	if (json_object_set_new(v, "nospc_dumps", lost) < 0 ||
	    json_object_set_new(v, "full", json_boolean(json_integer_value(lost) > 0)) < 0 ||
	    json_object_set_new(v, "records", read_kernel_uint(dir_fd, "record_count")) < 0 ||
	    json_object_set_new(v, "record_size", read_kernel_uint(dir_fd, "record_size")) < 0 ||
	    json_object_set_new(v, "source", json_string("pstore_erst")) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * ERST, as far as the kernel tells: the ACPI table is there; the record
 * count comes from our pstore_erst module where it is loaded, else from
 * /dev/erst_dbg where the kernel has it (Debian's has not). ACPI ERST reports
 * no capacity, so none is made up.
 */
static int erst_status(json_t **ret)
{
	_cleanup_free_ char *table = NULL, *module = NULL;
	_cleanup_close_ int fd = -1, dir_fd = -1;
	json_auto_t *v = NULL;
	uint32_t count;
	bool present;

	if (asprintf(&table, "%s/firmware/acpi/tables/ERST", arg_sysfs_dir) < 0 ||
	    asprintf(&module, "%s/module/pstore_erst/parameters", arg_sysfs_dir) < 0)
		return -ENOMEM;
	present = access(table, F_OK) >= 0;
	dir_fd = open(module, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!present && dir_fd < 0) {
		*ret = json_null();
		return 0;
	}
	v = json_pack("{s:b, s:n, s:n}", "present", present, "records", "source");
	if (!v)
		return -ENOMEM;
	if (dir_fd >= 0) {
		if (erst_module_status(dir_fd, v) < 0)
			return -ENOMEM;
	} else {
		fd = open("/dev/erst_dbg", O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && ioctl(fd, APEI_ERST_GET_RECORD_COUNT, &count) == 0 &&
		    (json_object_set_new(v, "records", json_integer(count)) < 0 ||
		     json_object_set_new(v, "source", json_string("erst_dbg")) < 0))
			return -ENOMEM;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

/* Whether path below the sysfs directory exists. */
static bool sysfs_exists(const char *path)
{
	_cleanup_free_ char *p = NULL;

	if (asprintf(&p, "%s/%s", arg_sysfs_dir, path) < 0)
		return false;
	return access(p, F_OK) >= 0;
}

/* A file below the sysfs directory: its first line, or NULL. */
static char *sysfs_line(const char *path)
{
	_cleanup_free_ char *p = NULL;

	if (asprintf(&p, "%s/%s", arg_sysfs_dir, path) < 0)
		return NULL;
	return read_kernel_line(AT_FDCWD, p);
}

/*
 * The backends this machine has but the kernel did not register, each
 * {"backend", "reason", "arm"}: the command or kernel parameter that would
 * make it the backend. pstore takes one backend, the first that registers:
 * a second one stays unused until the kernel is told which to take
 * (pstore.backend=). ramoops and pstore/blk need memory or a device set
 * aside, which sysfs cannot tell: they are never listed.
 */
static int add_available(json_t *v, const char *backend, const char *reason, const char *arm)
{
	json_t *a = json_pack("{s:s, s:s, s:s}", "backend", backend, "reason", reason, "arm", arm);

	return json_array_append_new(v, a) < 0 ? -ENOMEM : 0;
}

static int pstore_available(const char *backend, json_t **ret)
{
	bool efi = backend && streq(backend, "efi"), erst = backend && streq(backend, "erst");
	json_auto_t *v = json_array();
	int r = 0;

	if (!v)
		return -ENOMEM;
	if (sysfs_exists("firmware/efi") && !efi) {
		_cleanup_free_ char *disabled =
			sysfs_line("module/efi_pstore/parameters/pstore_disable");

		if (!sysfs_exists("module/efi_pstore"))
			r = add_available(v, "efi", "EFI system, efi_pstore not loaded",
					  "modprobe efi_pstore");
		else if (disabled && streq(disabled, "Y"))
			r = add_available(v, "efi", "efi_pstore loaded with pstore_disable=Y",
					  "efi_pstore.pstore_disable=0 on the kernel command line");
		else
			r = add_available(v, "efi", "another backend registered first",
					  "pstore.backend=efi on the kernel command line");
	}
	if (r >= 0 && sysfs_exists("firmware/acpi/tables/ERST") && !erst) {
		if (backend)
			r = add_available(v, "erst", "another backend registered first",
					  "pstore.backend=erst on the kernel command line");
		else
			r = add_available(v, "erst", "ERST table present, its driver off or failed",
					  "modprobe pstore_erst, where erst_disable is set");
	}
	if (r < 0)
		return r;
	*ret = TAKE_PTR(v);
	return 0;
}

/*
 * kdump, from the kexec files of sysfs: {"reserved": BYTES, "armed": BOOL,
 * "arm": COMMAND or null}, or null for a kernel without kexec. Armed means
 * a capture kernel is loaded (kexec_crash_loaded) into the memory reserved
 * with crashkernel= (kexec_crash_size): a panic boots it, and it can save
 * the dump.
 */
static int kdump_status(json_t **ret)
{
	_cleanup_free_ char *size = sysfs_line("kernel/kexec_crash_size"),
			    *loaded = sysfs_line("kernel/kexec_crash_loaded");
	uint64_t reserved = 0;
	const char *arm = NULL;
	bool armed;

	if (!size || parse_uint64(size, &reserved) < 0 || reserved > INT64_MAX) {
		*ret = json_null();
		return 0;
	}
	armed = loaded && streq(loaded, "1");
	if (reserved == 0)
		arm = "crashkernel=256M on the kernel command line, then kdump-tools or kexec -p";
	else if (!armed)
		arm = "systemctl start kdump-tools, or kexec -p";
	*ret = json_pack("{s:I, s:b, s:s?}", "reserved", (json_int_t)reserved, "armed", armed,
			 "arm", arm);
	return *ret ? 0 : -ENOMEM;
}

static int pstore_status(json_t **ret)
{
	_cleanup_free_ char *fstype = mounted_fstype(arg_pstore_dir);
	json_auto_t *v = NULL, *params = json_object(), *records = json_object(), *erst = NULL;
	json_auto_t *available = NULL;
	const char *backend;
	int r;

	if (!params || !records)
		return -ENOMEM;
	r = pstore_parameters(params);
	if (r < 0 && r != -ENOENT)
		return r;
	/* The kernel shows "(null)" while no backend is registered. */
	backend = json_string_value(json_object_get(params, "backend"));
	if (backend && streq(backend, "(null)"))
		backend = NULL;

	r = pstore_records(records);
	if (r < 0 && r != -ENOENT && r != -EACCES)
		return r;
	if (r < 0 && json_object_set_new(records, "error", json_string(strerror(-r))) < 0)
		return -ENOMEM;

	r = erst_status(&erst);
	if (r < 0)
		return r;
	r = pstore_available(backend, &available);
	if (r < 0)
		return r;

	v = json_pack("{s:s, s:b, s:o, s:o, s:O, s:O, s:O, s:O}", "path", arg_pstore_dir, "mounted",
		      fstype && streq(fstype, "pstore"), "fstype",
		      fstype ? json_string(fstype) : json_null(), "backend",
		      backend ? json_string(backend) : json_null(), "available", available,
		      "parameters", params, "records", records, "erst", erst);
	if (!v)
		return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

/*
 * The configuration as pstored uses it: pstored_config_to_json() and its
 * "warnings", or {"error"} when it cannot be loaded (then *ret_config is NULL).
 */
static int config_status(PstoredConfig **ret_config, json_t **ret)
{
	_cleanup_(pstored_config_freep) PstoredConfig *config = NULL;
	_cleanup_free_ char *error = NULL;
	json_auto_t *v = NULL, *warnings = NULL;
	int r;

	r = pstored_config_load(arg_config, NULL, &config, &error);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		v = json_pack("{s:s}", "error", error ?: strerror(-r));
		if (!v)
			return -ENOMEM;
		*ret_config = NULL;
		*ret = TAKE_PTR(v);
		return 0;
	}

	warnings = json_array();
	if (!warnings)
		return -ENOMEM;
	for (size_t i = 0; i < config->n_warnings; i++)
		if (json_array_append_new(warnings, json_string(config->warnings[i])) < 0)
			return -ENOMEM;
	r = pstored_config_to_json(config, &v);
	if (r < 0)
		return r;
	if (json_object_set(v, "warnings", warnings) < 0)
		return -ENOMEM;
	*ret_config = TAKE_PTR(config);
	*ret = TAKE_PTR(v);
	return 0;
}

/*
 * The uploads to the targets of config, as pstored upload sees them:
 * {"targets": [NAME...], "waiting": N, "failed": N}, a crash counted once
 * however many targets it waits for (or failed at); or, without config, a
 * copy of config_json, {"error"}.
 */
static int upload_status(const PstoredConfig *config, json_t *config_json, json_t *summaries,
			 json_t **ret)
{
	json_auto_t *v = NULL, *targets = NULL;
	json_int_t waiting = 0, failed = 0;
	json_t *c;
	size_t i;

	if (!config) {
		*ret = json_deep_copy(config_json);
		return *ret ? 0 : -ENOMEM;
	}

	targets = json_array();
	if (!targets)
		return -ENOMEM;
	for (size_t k = 0; k < config->n_targets; k++)
		if (json_array_append_new(targets, json_string(config->targets[k].name)) < 0)
			return -ENOMEM;

	json_array_foreach(summaries, i, c) {
		bool w = false, f = false;
		json_t *name;
		size_t k;

		json_array_foreach(targets, k, name) {
			const char *state = store_upload_state_for(c, json_string_value(name));

			w = w || (state && streq(state, "pending"));
			f = f || (state && streq(state, "failed"));
		}
		waiting += w;
		failed += f;
	}

	v = json_pack("{s:O, s:I, s:I}", "targets", targets, "waiting", waiting, "failed", failed);
	if (!v)
		return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

/*
 * {"path", "crashes", "bytes", "upload", "last_archive"}, or {"path", "error"};
 * "last_archive" is last-archive.json, null if there is none, or {"result":
 * "unknown", "read_error", "read_errno"} if it cannot be read or parsed.
 * "upload" is upload_status() of config and config_json.
 */
static int store_status(const PstoredConfig *config, json_t *config_json, json_t **ret)
{
	_cleanup_(store_freep) Store *s = NULL;
	json_auto_t *v = NULL, *summaries = NULL, *last = NULL, *upload = NULL;
	uint64_t bytes = 0;
	json_t *c;
	size_t i;
	int r;

	v = json_pack("{s:s}", "path", arg_store_dir);
	if (!v)
		return -ENOMEM;

	r = store_open(arg_store_dir, STORE_READONLY, &s);
	if (r >= 0)
		r = store_list(s, &summaries);
	if (r < 0) {
		if (r == -ENOMEM)
			return r;
		if (json_object_set_new(v, "error", json_string(strerror(-r))) < 0 ||
		    json_object_set_new(v, "errno", json_integer(-r)) < 0)
			return -ENOMEM;
		*ret = TAKE_PTR(v);
		return 0;
	}

	json_array_foreach(summaries, i, c)
		bytes += json_integer_value(json_object_get(c, "stored_bytes"));

	r = upload_status(config, config_json, summaries, &upload);
	if (r < 0)
		return r;
	r = store_read_last_archive(s, &last);
	if (r == -ENOMEM)
		return r;
	/* An unreadable record hides only the last run: the rest of the status still tells. */
	if (r < 0 && r != -ENOENT) {
		last = json_pack("{s:s, s:s, s:i}", "result", "unknown", "read_error", strerror(-r),
				 "read_errno", -r);
		if (!last)
			return -ENOMEM;
	}

	if (json_object_set_new(v, "crashes", json_integer(json_array_size(summaries))) < 0 ||
	    json_object_set_new(v, "bytes", json_integer(bytes)) < 0 ||
	    json_object_set(v, "upload", upload) < 0 ||
	    json_object_set(v, "last_archive", last ?: json_null()) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

static void line(const char *label, const char *fmt, ...) _printf_(2, 3);
static void line(const char *label, const char *fmt, ...)
{
	va_list ap;

	printf("%13s: ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void print_erst(json_t *erst)
{
	json_t *records = json_object_get(erst, "records"),
	       *size = json_object_get(erst, "record_size");
	json_int_t lost = json_integer_value(json_object_get(erst, "nospc_dumps"));
	const char *source = crash_string(erst, "source");

	if (!json_is_object(erst)) {
		line("ERST", "no ERST table in this machine's ACPI tables");
		return;
	}
	if (!json_is_integer(records)) {
		line("ERST", "present; the kernel reports neither its records nor its capacity");
		return;
	}
	printf("%13s: %" JSON_INTEGER_FORMAT " record%s", "ERST", json_integer_value(records),
	       json_integer_value(records) == 1 ? "" : "s");
	if (json_is_integer(size))
		printf(" (buffer %" JSON_INTEGER_FORMAT " bytes)", json_integer_value(size));
	printf(", from %s; ACPI ERST reports no capacity\n",
	       source && streq(source, "erst_dbg") ? "/dev/erst_dbg" : "pstore_erst");
	if (lost > 0)
		log_warning("Warning: ERST is full: %" JSON_INTEGER_FORMAT " dump%s lost; run "
			    "'pstored archive' (or erase records) to free it.",
			    lost, lost == 1 ? " was" : "s were");
}

static void print_pstore(json_t *p)
{
	json_t *params = json_object_get(p, "parameters"), *records = json_object_get(p, "records");
	json_t *erst = json_object_get(p, "erst"), *v;
	const char *fstype = crash_string(p, "fstype"), *backend = crash_string(p, "backend"), *k;
	char bbuf[FORMAT_BYTES_MAX];
	json_int_t count = json_integer_value(json_object_get(records, "count"));
	bool first = true;
	size_t i;

	if (json_is_true(json_object_get(p, "mounted")))
		line("Pstore", "%s (mounted)", arg_pstore_dir);
	else if (fstype)
		line("Pstore", "%s is a %s mount, not pstore", arg_pstore_dir, fstype);
	else
		line("Pstore", "%s is not mounted (mount -t pstore pstore %s)", arg_pstore_dir,
		     arg_pstore_dir);

	line("Backend", "%s",
	     backend
		     ?: json_object_size(params) > 0
			? "none registered (no pstore backend: see "
			  "pstore.backend= and erst_disable in pstorectl(1))"
			: "unknown (the kernel has no pstore module parameters)");

	json_array_foreach(json_object_get(p, "available"), i, v)
		printf("%13s%c %s, not registered: %s (%s)\n", i == 0 ? "Available" : "",
		       i == 0 ? ':' : ' ', crash_string(v, "backend"), crash_string(v, "reason"),
		       crash_string(v, "arm"));

	printf("%13s: ", "Parameters");
	json_object_foreach(params, k, v) {
		printf("%s%s=%s", first ? "" : " ", k, json_string_value(v));
		first = false;
	}
	printf("%s\n", first ? "-" : "");

	if (crash_string(records, "error"))
		line("Waiting", "cannot read %s: %s", arg_pstore_dir,
		     crash_string(records, "error"));
	else {
		printf("%13s: %" JSON_INTEGER_FORMAT " record%s, %s", "Waiting", count,
		       count == 1 ? "" : "s",
		       format_bytes(bbuf, json_integer_value(json_object_get(records, "bytes"))));
		first = true;
		json_object_foreach(json_object_get(records, "backends"), k, v) {
			printf("%s%s: %" JSON_INTEGER_FORMAT, first ? " (" : ", ", k,
			       json_integer_value(v));
			first = false;
		}
		printf("%s\n", first ? "" : ")");
	}

	print_erst(erst);

	if (count > 0)
		log_warning("Warning: %" JSON_INTEGER_FORMAT " record%s in %s hold firmware space "
			    "until 'pstored archive' (pstored.service) archives and erases them.",
			    count, count == 1 ? "" : "s", arg_pstore_dir);
}

static void print_kdump(json_t *k, bool backend)
{
	char bbuf[FORMAT_BYTES_MAX];
	json_int_t reserved = json_integer_value(json_object_get(k, "reserved"));

	if (!json_is_object(k))
		line("Kdump", "unknown (the kernel has no kexec: no %s/kernel/kexec_crash_size)",
		     arg_sysfs_dir);
	else if (json_is_true(json_object_get(k, "armed")))
		line("Kdump", "armed (capture kernel loaded, %s reserved)",
		     format_bytes(bbuf, reserved));
	else if (reserved > 0)
		line("Kdump", "not armed: %s reserved, no capture kernel loaded (%s)",
		     format_bytes(bbuf, reserved), crash_string(k, "arm"));
	else
		line("Kdump", "not armed: no memory reserved (%s)", crash_string(k, "arm"));
	if (!backend && !json_is_true(json_object_get(k, "armed")))
		log_warning(
			"Warning: A crash of this kernel will not be kept: no pstore backend is "
			"registered and kdump is not armed (see Available and Kdump).");
}

static void print_upload(json_t *u)
{
	json_t *targets = json_object_get(u, "targets"), *name;
	json_int_t waiting = json_integer_value(json_object_get(u, "waiting"));
	json_int_t failed = json_integer_value(json_object_get(u, "failed"));
	size_t i;

	if (crash_string(u, "error")) {
		line("Upload", "unknown: %s", crash_string(u, "error"));
		return;
	}
	if (json_array_size(targets) == 0) {
		line("Upload", "no targets configured (see [Target.NAME] in pstored.conf(5))");
		return;
	}
	printf("%13s: %" JSON_INTEGER_FORMAT " crash%s waiting, %" JSON_INTEGER_FORMAT
	       " failed (targets:",
	       "Upload", waiting, waiting == 1 ? "" : "es", failed);
	json_array_foreach(targets, i, name)
		printf(" %s", json_string_value(name));
	printf(")\n");
	if (failed > 0)
		log_warning("Warning: %" JSON_INTEGER_FORMAT " crash%s failed to upload and will "
			    "not be retried: see 'pstorectl show ID', then 'pstorectl upload "
			    "--force ID'.",
			    failed, failed == 1 ? "" : "es");
}

static void print_unreadable_last_archive(json_t *last)
{
	int e = (int)json_integer_value(json_object_get(last, "read_errno"));

	line("Last archive", "unknown (cannot read %s)", STORE_LAST_ARCHIVE_FILE);
	log_warning("Warning: Cannot read the record of the last archive run, %s/%s: %s%s. The "
		    "next 'pstored archive' run replaces it; remove it to clear this warning.",
		    arg_store_dir, STORE_LAST_ARCHIVE_FILE, crash_string(last, "read_error"),
		    e == EBADMSG  ? " (not a JSON object)"
		    : e == EFBIG  ? " (far larger than a record of a run)"
		    : e == EACCES ? " (run as root or join group '" PSTORE_GROUP "')"
				  : "");
}

static void print_store(json_t *st)
{
	json_t *last = json_object_get(st, "last_archive"), *n;
	char bbuf[FORMAT_BYTES_MAX], tbuf[FORMAT_TIMESTAMP_MAX];
	json_int_t crashes = json_integer_value(json_object_get(st, "crashes"));

	if (crash_string(st, "error")) {
		int e = (int)json_integer_value(json_object_get(st, "errno"));

		line("Store", "%s: %s%s", arg_store_dir, crash_string(st, "error"),
		     e == EACCES   ? " (run as root or join group '" PSTORE_GROUP "')"
		     : e == ENOENT ? " (nothing archived yet)"
				   : "");
		return;
	}
	line("Store", "%s: %" JSON_INTEGER_FORMAT " crash%s, %s", arg_store_dir, crashes,
	     crashes == 1 ? "" : "es",
	     format_bytes(bbuf, json_integer_value(json_object_get(st, "bytes"))));
	print_upload(json_object_get(st, "upload"));

	if (!json_is_object(last)) {
		line("Last archive", "never (no run recorded in the store)");
		return;
	}
	if (crash_string(last, "read_error")) {
		print_unreadable_last_archive(last);
		return;
	}
	/* last-archive.json is in the store: its text is escaped like a crash's. */
	printf("%13s: %s, ", "Last archive",
	       format_timestamp(tbuf, crash_time_usec(last, "finished_at"), false) ?: "-");
	utf8_escape_fputs(crash_string(last, "result") ?: "unknown", stdout);
	n = json_object_get(last, "crashes_archived");
	if (json_is_integer(n))
		printf(", %" JSON_INTEGER_FORMAT " crash%s archived", json_integer_value(n),
		       json_integer_value(n) == 1 ? "" : "es");
	n = json_object_get(last, "records_erased");
	if (json_is_integer(n))
		printf(", %" JSON_INTEGER_FORMAT " record%s erased", json_integer_value(n),
		       json_integer_value(n) == 1 ? "" : "s");
	if (crash_string(last, "error")) {
		fputs(": ", stdout);
		utf8_escape_fputs(crash_string(last, "error"), stdout);
	}
	putchar('\n');
}

int verb_status(int argc, char *argv[])
{
	_cleanup_(pstored_config_freep) PstoredConfig *config = NULL;
	json_auto_t *pstore = NULL, *kdump = NULL, *store = NULL, *config_json = NULL, *v = NULL;
	int r;

	r = pstore_status(&pstore);
	if (r < 0)
		return log_error_errno(r, "Failed to read the pstore status: %m");
	r = kdump_status(&kdump);
	if (r < 0)
		return log_oom();
	r = config_status(&config, &config_json);
	if (r < 0)
		return log_oom();
	r = store_status(config, config_json, &store);
	if (r < 0)
		return log_store_error(r, arg_store_dir);

	if (arg_json != JSON_OFF) {
		v = json_pack("{s:O, s:O, s:O, s:O}", "pstore", pstore, "kdump", kdump, "store",
			      store, "config", config_json);
		if (!v)
			return log_oom();
		return print_json(v);
	}

	pager_open();
	print_pstore(pstore);
	print_kdump(kdump, json_is_string(json_object_get(pstore, "backend")));
	print_store(store);
	return 0;
}
