// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * make-crashes STORE N [FIRST]: puts N kernel crashes into the store through
 * the store API, as "pstored archive" would after a panic each: a dmesg
 * record, the reassembled dmesg.txt and crash.json (pstored-store(5)). The
 * logs carry what redaction must remove: an IPv4 and an IPv6 address, a MAC
 * address, the hostname (from $MAKE_CRASHES_HOSTNAME) and a serial number
 * ($MAKE_CRASHES_SERIAL). $MAKE_CRASHES_PAD=BYTES adds that much boot log
 * before the panic, for large documents. $MAKE_CRASHES_MACHINE_ID,
 * $MAKE_CRASHES_KERNEL and $MAKE_CRASHES_SIGNATURE make the crashes another
 * machine's, of another kernel, with another signature (none if empty). With
 * $MAKE_CRASHES_MACHINES=M, crash number N is machine N % M's instead: the
 * machine id's last 8 hex digits plus N % M. With $MAKE_CRASHES_SIGNATURES=S,
 * its signature is the signature, "-" and N % S. Prints the ids, one a line.
 * For the upload tests and the bench, which need many crashes quickly: they
 * are committed COMMIT_BATCH at a time, as "pstored archive" commits the
 * crashes of one run together.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "sha256-util.h"
#include "store/store.h"
#include "time-util.h"

#define COMMIT_BATCH 1000

/* BYTES of boot log lines. */
static char *make_padding(size_t bytes)
{
	static const char line[] = "<6>[    6.000000] usb 1-1: new high-speed USB device\n";
	char *pad = malloc(bytes + 1);

	if (!pad)
		return NULL;
	for (size_t i = 0; i < bytes; i++)
		pad[i] = line[i % (sizeof(line) - 1)];
	if (bytes > 0)
		pad[bytes - 1] = '\n';
	pad[bytes] = '\0';
	return pad;
}

/* What the environment can change, see above. */
typedef struct CrashTemplate {
	const char *hostname;
	const char *serial;
	const char *machine_id;
	const char *kernel;
	const char *signature;
	const char *padding;
	unsigned long machines;	  /* 0: every crash is machine_id's */
	unsigned long signatures; /* 0: every crash has signature */
} CrashTemplate;

/* The machine id of crash n: c->machine_id, its last 8 hex digits plus n % c->machines. */
static void crash_machine_id(const CrashTemplate *c, unsigned n, char ret[static 33])
{
	size_t len = strlen(c->machine_id);

	if (c->machines == 0 || len != 32) {
		snprintf(ret, 33, "%s", c->machine_id);
		return;
	}
	snprintf(ret, 33, "%.24s%08lx", c->machine_id,
		 (strtoul(c->machine_id + 24, NULL, 16) + n % c->machines) & 0xffffffffUL);
}

/*
 * Stages crash n in *ret (committed by the caller); *ret stays NULL when the store has it
 * already. Prints its id.
 */
static int make_crash(Store *s, unsigned n, const CrashTemplate *c, StoreTxn **ret)
{
	_cleanup_(store_txn_freep) StoreTxn *t = NULL;
	_cleanup_free_ char *log = NULL, *record = NULL, *name = NULL, *file = NULL,
			    *signature = NULL;
	char digest[SHA256_HEX_SIZE], id[STORE_CRASH_ID_LEN + 1], machine_id[33];
	const char *digests[] = {digest};
	json_auto_t *crash = NULL;
	usec_t now = now_usec();
	uint64_t record_id = ((uint64_t)(now / USEC_PER_SEC) << 32) + n;
	int r;

	*ret = NULL;
	if (asprintf(&log,
		     "<6>[    1.000000] Linux version %s "
		     "(debian-kernel@lists.debian.org)\n"
		     "<6>[    2.000000] DMI: ACME Server X1/Board, BIOS 1.2 serial %s\n"
		     "<6>[    3.000000] e1000e 0000:00:19.0 eth0: (PCI Express:2.5GT/s) "
		     "52:54:00:12:34:%02x\n"
		     "<6>[    4.000000] eth0: 10.0.%u.%u up, fe80::5054:ff:fe12:%x\n"
		     "<6>[    5.000000] systemd[1]: Set hostname to <%s>.\n"
		     "%s"
		     "<6>[  100.%06u] sysrq: Trigger a crash\n"
		     "<0>[  100.%06u] Kernel panic - not syncing: sysrq triggered crash %u\n"
		     "<4>[  100.%06u] CPU: 0 PID: 1 Comm: bash Not tainted %s #1\n"
		     "<4>[  100.%06u] Call Trace:\n"
		     "<4>[  100.%06u]  <TASK>\n"
		     "<4>[  100.%06u]  panic+0x1a/0x20\n"
		     "<4>[  100.%06u]  sysrq_handle_crash+0x16/0x20\n"
		     "<4>[  100.%06u]  </TASK>\n",
		     c->kernel, c->serial, n % 256, n / 256 % 256, n % 256, n, c->hostname,
		     c->padding, n, n, n, n, c->kernel, n, n, n, n, n) < 0)
		return log_oom();
	if (asprintf(&record, "Panic#1 Part1\n%s", log) < 0 ||
	    asprintf(&name, "dmesg-erst-%" PRIu64, record_id) < 0 ||
	    asprintf(&file, "records/%s", name) < 0)
		return log_oom();

	r = sha256_hex(record, strlen(record), digest);
	if (r < 0)
		return log_error_errno(r, "Failed to hash a record: %m");
	r = store_crash_id_from_digests(digests, 1, id);
	if (r < 0)
		return log_error_errno(r, "Failed to make a crash id: %m");

	crash_machine_id(c, n, machine_id);
	if (c->signatures > 0 ? asprintf(&signature, "%s-%lu", c->signature, n % c->signatures) < 0
			      : !(signature = strdup(c->signature)))
		return log_oom();

	r = store_txn_begin(s, id, &t);
	if (r == -EEXIST)
		return 0;
	if (r < 0)
		return log_error_errno(r, "Failed to add crash %s: %m", id);
	r = store_txn_write_file(t, file, record, strlen(record));
	if (r >= 0)
		r = store_txn_write_file(t, "dmesg.txt", log, strlen(log));
	if (r < 0)
		return log_error_errno(r, "Failed to write crash %s: %m", id);

	crash = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:I, s:I, s:s, s:s, s:b, s:[], "
			  "s:[{s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:I, s:b}], "
			  "s:{s:s, s:s, s:s, s:s, s:s}}",
			  "schema_version", 1, "id", id, "kind", "kernel-crash", "reason", "panic",
			  "pstore_reason", "Panic", "dump_count", 1, "backend", "erst", "time",
			  (json_int_t)now, "archived_at", (json_int_t)now, "boot_id",
			  "0123456789abcdef0123456789abcdef", "machine_id", machine_id, "complete",
			  1, "parts_missing", "records", "name", name, "type", "dmesg", "backend",
			  "erst", "record_id", name + strlen("dmesg-erst-"), "part", 1, "size",
			  (json_int_t)strlen(record), "sha256", digest, "time", (json_int_t)now,
			  "compressed", 0, "analysis", "reason", "panic", "message",
			  "Kernel panic - not syncing: sysrq triggered crash", "function",
			  "sysrq_handle_crash", "kernel_version", c->kernel, "comm", "bash");
	/* A crash without a signature has null for it, as pstored archive writes it. */
	if (!crash || json_object_set_new(json_object_get(crash, "analysis"), "signature",
					  *signature ? json_string(signature) : json_null()) < 0)
		return log_oom();
	r = store_txn_prepare(t, crash);
	if (r < 0)
		return log_error_errno(r, "Failed to write crash %s: %m", id);
	puts(id);
	*ret = TAKE_PTR(t);
	return 0;
}

/* Commits the staged crashes, and frees them. */
static int commit_crashes(StoreTxn **txns, size_t *n)
{
	int r;

	r = store_txns_commit(txns, *n);
	for (size_t i = 0; i < *n; i++)
		store_txn_free(txns[i]);
	*n = 0;
	if (r < 0)
		return log_error_errno(r, "Failed to commit crashes: %m");
	return 0;
}

int main(int argc, char *argv[])
{
	_cleanup_(store_freep) Store *s = NULL;
	_cleanup_free_ char *padding =
		make_padding(strtoul(getenv("MAKE_CRASHES_PAD") ?: "0", NULL, 10));
	CrashTemplate c = {
		.hostname = getenv("MAKE_CRASHES_HOSTNAME") ?: "testhost",
		.serial = getenv("MAKE_CRASHES_SERIAL") ?: "PF2ABC9Z",
		.machine_id =
			getenv("MAKE_CRASHES_MACHINE_ID") ?: "fedcba9876543210fedcba9876543210",
		.kernel = getenv("MAKE_CRASHES_KERNEL") ?: "6.1.0-17-amd64",
		.signature =
			getenv("MAKE_CRASHES_SIGNATURE") ?: "kernel-sysrq_handle_crash-0123abcd",
		.padding = padding,
		.machines = strtoul(getenv("MAKE_CRASHES_MACHINES") ?: "0", NULL, 10),
		.signatures = strtoul(getenv("MAKE_CRASHES_SIGNATURES") ?: "0", NULL, 10),
	};
	StoreTxn *txns[COMMIT_BATCH];
	unsigned long n, first = 0;
	size_t n_txns = 0;
	int r;

	if (argc < 3 || argc > 4)
		return log_error_errno(EINVAL, "Usage: %s STORE N [FIRST]", argv[0]), EXIT_FAILURE;
	n = strtoul(argv[2], NULL, 10);
	if (argc == 4)
		first = strtoul(argv[3], NULL, 10);

	if (!padding)
		return log_oom(), EXIT_FAILURE;

	r = store_open(argv[1], STORE_CREATE, &s);
	if (r < 0)
		return log_error_errno(r, "Failed to open %s: %m", argv[1]), EXIT_FAILURE;
	for (unsigned long i = first; i < first + n; i++) {
		r = make_crash(s, (unsigned)i, &c, &txns[n_txns]);
		if (r >= 0 && txns[n_txns])
			n_txns++;
		if (r >= 0 && n_txns == COMMIT_BATCH)
			r = commit_crashes(txns, &n_txns);
		if (r < 0) {
			while (n_txns > 0)
				store_txn_free(txns[--n_txns]);
			return EXIT_FAILURE;
		}
	}
	return commit_crashes(txns, &n_txns) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
