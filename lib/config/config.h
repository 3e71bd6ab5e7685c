/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * pstored.conf: the configuration of pstored and pstorectl, documented in
 * pstored.conf(5).
 *
 * The main file is the first of /etc/pstored.conf, /run/pstored.conf,
 * /usr/local/lib/pstored.conf and /usr/lib/pstored.conf that exists. Then the
 * drop-ins pstored.conf.d/\*.conf of the same four directories are read, sorted
 * by file name regardless of their directory; a drop-in in a directory earlier
 * in that list hides one of the same name in a later directory, and a drop-in
 * that is empty or a symlink to /dev/null masks that name. Later assignments
 * override earlier ones: these are systemd's rules (systemd-system.conf(5),
 * "Configuration Directories and Precedence").
 *
 * Limits use UINT64_MAX for "no limit"; time spans are in microseconds.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

#define PSTORED_CONFIG_UNLIMITED UINT64_MAX

typedef enum PstoredStorage {
	PSTORED_STORAGE_BOTH, /* the store and the journal */
	PSTORED_STORAGE_STORE,
	PSTORED_STORAGE_JOURNAL,
	PSTORED_STORAGE_NONE, /* neither: records are only erased (if Unlink=yes) */
	_PSTORED_STORAGE_MAX,
} PstoredStorage;

typedef enum PstoredTargetType {
	_PSTORED_TARGET_TYPE_INVALID = -1, /* never in a loaded configuration */
	PSTORED_TARGET_JOURNAL_REMOTE,
	PSTORED_TARGET_HTTP_JSON,
	PSTORED_TARGET_CLICKHOUSE,
	_PSTORED_TARGET_TYPE_MAX,
} PstoredTargetType;

typedef enum PstoredHttpMethod {
	PSTORED_HTTP_PUT,
	PSTORED_HTTP_POST,
	_PSTORED_HTTP_METHOD_MAX,
} PstoredHttpMethod;

/* One [Target.NAME] section. */
typedef struct PstoredTarget {
	char *name; /* NAME: letters, digits, '-' and '_' */
	PstoredTargetType type;
	char *url;
	PstoredHttpMethod method; /* http-json only */
	char *ca_file;		  /* absolute paths, NULL when not set */
	char *client_certificate;
	char *client_key;
	char *token_file;
	char *credentials_file; /* clickhouse: the user and the key, one a line */
	uint64_t batch_size;	/* clickhouse: crashes per INSERT */
	uint64_t timeout_usec;
	uint64_t max_per_day; /* PSTORED_CONFIG_UNLIMITED for no limit */
	uint64_t max_bytes_per_day;
	uint64_t max_document_size;
	bool redact;
	char **redact_regex; /* POSIX extended regexes, NULL-terminated, never NULL */
	size_t n_redact_regex;
	/* Send TokenFile= or a client certificate to an http:// URL, in clear text. */
	bool allow_insecure_credentials;
} PstoredTarget;

typedef struct PstoredConfig {
	/* [Archive] */
	PstoredStorage storage;
	bool unlink;
	bool keep_console; /* keep console, pmsg and ftrace logs */
	/* Budgets: of a record (bytes, also after inflation or as decoded CPER sections), of a
	 * crash (parts in its log, bytes of its log), of a run (records, bytes read) */
	uint64_t max_record_size;
	uint64_t max_parts;
	uint64_t max_log_size;
	uint64_t max_records_per_run;
	uint64_t max_bytes_per_run;
	bool kdump;	 /* take kdump-tools' dumps */
	char *kdump_dir; /* kdump-tools' KDUMP_COREDIR */

	/* [Store]; PSTORED_CONFIG_UNLIMITED turns a limit off */
	uint64_t max_age_usec;
	uint64_t max_use;
	uint64_t max_crashes;
	bool keep_unsent;

	/* [Metrics]: where the node_exporter textfiles go, NULL (the default) for nowhere */
	char *metrics_directory;

	/* [Target.NAME] sections, in the order they first appear, without the disabled ones */
	PstoredTarget *targets;
	size_t n_targets;

	/* What pstored_config_load() found wrong and ignored: "FILE:LINE: what; what was done" */
	char **warnings;
	size_t n_warnings;
} PstoredConfig;

/*
 * Loads the configuration. path == NULL: the main file and drop-ins under
 * root (NULL or "/" for the real root; tests pass a fake one). path != NULL:
 * only that file, no drop-ins ("/dev/null" gives the defaults); root is then
 * ignored.
 *
 * A problem in the files does not fail the load, as in systemd: at boot,
 * archiving with the defaults beats archiving nothing. A line that cannot be
 * understood (syntax, unknown key, bad value) is ignored, so its key keeps
 * its earlier value or default; the lines of an unknown section are ignored;
 * a file that exists but cannot be read is ignored. A problem anywhere in a
 * [Target.NAME] section, or in what the section says as a whole, disables
 * that target: sending with half of its settings could send what should not
 * be sent, or to where it should not go. Each problem is one line in
 * (*ret)->warnings, "FILE:LINE: what is wrong; what was done" ("FILE: ..."
 * for a file that cannot be read).
 *
 * Returns 0 and *ret, or a negative errno: -ENOMEM, or the error of opening
 * path (the file the caller asked for), with *ret_error (if ret_error is not
 * NULL) set to "FILE: cause". The caller frees *ret_error. Nothing is
 * logged. Outputs are untouched on failure, except *ret_error.
 */
int pstored_config_load(const char *path, const char *root, PstoredConfig **ret, char **ret_error);

/*
 * The programs' pstored_config_load(path, NULL, ...): logs each warning, and
 * on failure logs what is wrong where, in the same words for every verb, and
 * returns the error; with error_message, the failure's message also replaces
 * *error_message (log_error_errno_save()). The one function of this library
 * that logs (config-log.c).
 */
int pstored_config_load_and_log(const char *path, PstoredConfig **ret, char **error_message);

/* The built-in defaults, as documented in pstored.conf(5). */
int pstored_config_new_default(PstoredConfig **ret);

PstoredConfig *pstored_config_free(PstoredConfig *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(PstoredConfig *, pstored_config_free);

/* NULL when there is no [Target.NAME] section of that name. */
const PstoredTarget *pstored_config_find_target(const PstoredConfig *c, const char *name);

/*
 * The effective configuration as JSON, keys named as in the file:
 * {"Archive":{...},"Store":{...},"Metrics":{...},
 * "Target":{"NAME":{...}}}; sizes in bytes,
 * time spans in microseconds, "infinity" for no limit. What
 * "pstorectl status --json" shows as "config" (with the warnings), what the
 * cases of tests/config/cases/ compare with their expected.json, and what
 * fuzz-config checks for every input it accepts.
 */
int pstored_config_to_json(const PstoredConfig *c, json_t **ret);

const char *pstored_storage_to_string(PstoredStorage s);
const char *pstored_target_type_to_string(PstoredTargetType t);
const char *pstored_http_method_to_string(PstoredHttpMethod m);
