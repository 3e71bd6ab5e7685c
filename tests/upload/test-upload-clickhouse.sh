#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# clickhouse target against Debian's clickhouse-server on loopback, with the
# schema we ship (lib/upload/clickhouse/schema.sql) applied by
# clickhouse-client. Three machines (stores with their own machine ids and
# the same crash ids) upload in batches of two crashes, with the user and key
# of a credentials file (a wrong key fails the crashes until the file
# changes). Before the schema is applied, ClickHouse answers 404 and the
# crashes stay queued, with a message that says to apply it. A ClickHouse
# that is slow (stopped with SIGSTOP, past a Timeout= of 2 s), that answers
# an error (HTTP 500), or that is down keeps the crashes queued; each is delivered once afterwards: as many distinct
# (machine id, crash id) as crashes, and as many rows with FINAL. An uploader
# killed between an INSERT and the states it gives sends the rest again,
# still once each. The key is never in the program's output nor in
# crash.json. Read back, "pstorectl --clickhouse=URL list [--group] [--json]"
# and dmesg show what "pstorectl -D" shows of the same crashes sent to
# systemd-journal-remote; show and export what "pstorectl --documents" shows
# of the documents an http-json target sends of them, with the host name.
# Rows that are not pstored's are named and skipped.

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root
command -v clickhouse-client >/dev/null && [ -x /usr/sbin/clickhouse-server ] ||
	{ echo "SKIP: no clickhouse-server (tools/install-deps)" >&2; exit 77; }

start_clickhouse

printf 'pstored\n%s\n' "$CH_KEY" >"$T/clickhouse.credentials"
chmod 600 "$T/clickhouse.credentials"
write_config "$T/pstored.conf" \
	"[Target.fleet]" \
	"Type=clickhouse" \
	"URL=http://127.0.0.1:$CH_HTTP_PORT/" \
	"CredentialsFile=$T/clickhouse.credentials" \
	"AllowInsecureCredentials=yes" \
	"BatchSize=2" \
	"MaxPerDay=infinity" \
	"MaxBytesPerDay=infinity"

# machine N: its store, crashes of its machine id.
machine() {
	STORE="$T/machine$1"
	export MAKE_CRASHES_MACHINE_ID="$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1"
}

# upload_expect PATTERN ARGS...: "pstorectl upload ARGS" (now, past the
# backoff) whose summary matches PATTERN.
upload_expect() {
	pattern=$1
	shift
	pstorectl_upload "$@" >"$T/out" 2>&1 || :
	grep -qE "$pattern" "$T/out" || { cat "$T/out"; fail "expected '$pattern' in the summary"; }
	! grep -q "$CH_KEY" "$T/out" || fail "the key is in the output"
}

# all_in_state STATE: every crash of $STORE is STATE for the target;
# "queued": pending, or not tried yet.
all_in_state() {
	for d in "$STORE"/*/; do
		state=$(upload_state "$(basename "$d")" fleet)
		[ "$state" = "$1" ] || { [ "$1" = queued ] && [ "$state" != sent ]; } ||
			fail "crash $(basename "$d") of $STORE is $state, not $1"
	done
}

# Machine 4, before the schema is applied: ClickHouse answers 404, for the
# database (UNKNOWN_DATABASE), then with the database alone for the table
# (UNKNOWN_TABLE). The crashes stay queued, with a message that says to apply
# the schema; they are never sent (the store is gone after this).
machine 4
make_crashes 2 1 >/dev/null
for code in 81 60; do
	upload_expect "0 sent, 2 deferred, 0 failed"
	all_in_state pending
	for f in "$T/out" "$STORE"/*/crash.json; do
		grep -qF "HTTP 404: Code: $code, " "$f" &&
			grep -qF "(no table pstored.crashes there: apply /usr/share/pstored/clickhouse/schema.sql with clickhouse-client --multiquery; the crashes stay queued)" "$f" ||
			{ cat "$f"; fail "no table (code $code): not said in $f"; }
	done
	[ "$code" = 60 ] || clickhouse_query "CREATE DATABASE pstored"
done
rm -rf "$STORE"

clickhouse-client --host=127.0.0.1 --port="$CH_TCP_PORT" --multiquery \
	<"$top_srcdir/lib/upload/clickhouse/schema.sql" || fail "the schema does not apply"
# Applying it again changes nothing.
clickhouse-client --host=127.0.0.1 --port="$CH_TCP_PORT" --multiquery \
	<"$top_srcdir/lib/upload/clickhouse/schema.sql" || fail "the schema does not apply twice"

# Machine 1: a credentials file without both lines, with a third line or with
# CRLF line ends is refused, with what it should hold.
machine 1
make_crashes 3 1 >/dev/null
for bad in 'pstored\n' 'pstored\n\n' '\nkey\n' 'pstored\nkey\nmore\n' 'pstored\r\nkey\r\n'; do
	# shellcheck disable=SC2059
	printf "$bad" >"$T/clickhouse.credentials"
	! pstorectl_upload >"$T/out" 2>&1 || fail "credentials file '$bad' is taken"
	grep -qF "CredentialsFile=$T/clickhouse.credentials must hold the ClickHouse user on one line and its key on the next." "$T/out" ||
		{ cat "$T/out"; fail "the bad credentials file '$bad' is not explained"; }
done

# A wrong key: ClickHouse refuses (401), the crashes fail; due again once the file changes.
printf 'pstored\nwrong-key\n' >"$T/clickhouse.credentials"
upload_expect "0 sent, 0 deferred, 3 failed"
all_in_state failed
grep -q '"status": 401' "$STORE"/*/crash.json || fail "no 401 recorded"
! grep -rq "wrong-key" "$STORE" || fail "the key is in crash.json"

# ClickHouse up, the right key; the uploader killed once ClickHouse took the
# first INSERT, at the second rename (of a crash.json rewritten with its
# state): not every state of the batch is written, and the rerun sends those
# crashes again, which are still one crash each (checked at the end).
printf 'pstored\n%s\n' "$CH_KEY" >"$T/clickhouse.credentials"
strace -o /dev/null -e trace=rename,renameat,renameat2 \
	-e inject=rename,renameat,renameat2:signal=SIGKILL:when=2 \
	unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
	"$PSTORED" --config="$T/pstored.conf" --store-dir="$STORE" --dmi-dir="$T/dmi" upload \
	>"$T/out" 2>&1 && fail "the uploader was not killed"
[ "$(clickhouse_query "SELECT uniqExact(crash_id) FROM pstored.crashes
	WHERE machine_id = '$MAKE_CRASHES_MACHINE_ID'")" = 2 ] || fail "the first INSERT did not land"
sent=0
for d in "$STORE"/*/; do
	[ "$(upload_state "$(basename "$d")" fleet)" != sent ] || sent=$((sent + 1))
done
[ "$sent" -lt 3 ] || fail "every state was written before the kill"
pstored_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "upload failed"; }
grep -q "[23] sent, 0 deferred, 0 failed.*over 1 connection" "$T/out" || { cat "$T/out"; fail "wrong summary"; }
all_in_state sent

# Machine 2, the same crash ids: ClickHouse stopped, the INSERT times out.
machine 2
make_crashes 3 1 >/dev/null
# Only then a short Timeout=: the rest of the test must not depend on how
# fast a loaded machine answers.
cp "$T/pstored.conf" "$T/pstored.conf.saved"
echo "Timeout=2s" >>"$T/pstored.conf"
kill -STOP "$ch_pid"
upload_expect "0 sent, 2 deferred, 0 failed"
kill -CONT "$ch_pid"
mv "$T/pstored.conf.saved" "$T/pstored.conf"
all_in_state queued
grep -q "Timeout was reached\|timed out" "$STORE"/*/crash.json || fail "no timeout recorded"
upload_expect "3 sent, 0 deferred, 0 failed"
all_in_state sent

# Machine 3: ClickHouse answers 500 (a table of other columns), then is down.
machine 3
make_crashes 3 1 >/dev/null
clickhouse_query "RENAME TABLE pstored.crashes TO pstored.crashes_away;
	CREATE TABLE pstored.crashes (x UInt8) ENGINE = Memory"
upload_expect "0 sent, 3 deferred, 0 failed"
all_in_state pending
grep -q "HTTP 500: Code: 117" "$STORE"/*/crash.json || fail "the error is not recorded"
clickhouse_query "DROP TABLE pstored.crashes;
	RENAME TABLE pstored.crashes_away TO pstored.crashes"
stop_clickhouse
upload_expect "0 sent, 2 deferred, 0 failed"
all_in_state queued
grep -q "Connection refused\|Couldn't connect" "$STORE"/*/crash.json || fail "no refusal recorded"
start_clickhouse
upload_expect "3 sent, 0 deferred, 0 failed"
all_in_state sent

# A crash sent again (--force) is one crash still.
machine 1
upload_expect "3 sent, 0 deferred, 0 failed" --force

! grep -rq "$CH_KEY" "$T"/machine* || fail "the key is in crash.json"

clickhouse_query "SELECT uniqExact(machine_id, crash_id), uniqExact(machine_id)
	FROM pstored.crashes" >"$T/distinct"
[ "$(cat "$T/distinct")" = "$(printf '9\t3')" ] || fail "distinct crashes: $(cat "$T/distinct")"
clickhouse_query "SELECT count() FROM pstored.crashes FINAL" >"$T/final"
[ "$(cat "$T/final")" = 9 ] || fail "rows with FINAL: $(cat "$T/final")"

# The rows and the views, whole (times and ids vary: left out).
clickhouse_query "SELECT machine_id, hostname, kind, reason, backend, message, function,
		module, kernel, signature, taint, comm, frame_function, frame_offset,
		frame_size, frame_module, position(dmesg, 'sysrq triggered crash') > 0,
		position(dmesg, 'PF2ABC9Z'), visitParamExtractString(records, 'type')
	FROM pstored.crashes FINAL ORDER BY machine_id, crash_id FORMAT TSV" >"$T/rows"
clickhouse_query "SELECT signature, crashes, machines, kernels FROM pstored.signatures;
	SELECT machine_id, crashes, signatures, hostname FROM pstored.machines
	ORDER BY machine_id" >>"$T/rows"
diff -u "$top_srcdir/tests/upload/clickhouse-rows.expected" "$T/rows" ||
	fail "the rows at ClickHouse differ from tests/upload/clickhouse-rows.expected"

# Read back: "pstorectl --clickhouse=URL list" and "list --group" show what
# "pstorectl -D" shows of the same crashes sent to systemd-journal-remote;
# so does --json, but for the analysis' "comm", which the journal entry does
# not carry. "list --group" is counted by ClickHouse, with --json or a match
# by pstorectl from the rows. Machine 4's crashes have no signature: each is
# a group of its own.
machine 4
MAKE_CRASHES_SIGNATURE="" make_crashes 2 1 >/dev/null
upload_expect "2 sent, 0 deferred, 0 failed"
start_journal_remote http
write_config "$T/journal.conf" "[Target.journal]" "Type=journal-remote" \
	"URL=http://127.0.0.1:$JR_PORT" "MaxPerDay=infinity"
for m in 1 2 3 4; do
	machine $m
	unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
		"$PSTORECTL" --store-dir="$STORE" upload --config="$T/journal.conf" \
		--dmi-dir="$T/dmi" >"$T/out" 2>&1 || { cat "$T/out"; fail "upload to journal-remote failed"; }
done
stop_journal_remote
CH_URL="http://pstored:$CH_KEY@127.0.0.1:$CH_HTTP_PORT/"
for verb in "list" "list --group" "list --json" "list --group --json" "list --group -r -n 3" \
	"list --group --reason=panic"; do
	# shellcheck disable=SC2086
	"$PSTORECTL" -D "$T/remote" $verb >"$T/journal.out" 2>&1 || fail "-D $verb failed"
	# shellcheck disable=SC2086
	"$PSTORECTL" --clickhouse="$CH_URL" $verb >"$T/clickhouse.out" 2>&1 ||
		{ cat "$T/clickhouse.out"; fail "--clickhouse $verb failed"; }
	grep -v '^ *"comm": ' "$T/clickhouse.out" >"$T/clickhouse-no-comm.out"
	diff -u "$T/journal.out" "$T/clickhouse-no-comm.out" || fail "--clickhouse $verb differs from -D"
done

# A wrong key, and a server that is down: said, with the password masked.
! "$PSTORECTL" --clickhouse="http://pstored:wrong-key@127.0.0.1:$CH_HTTP_PORT/" list \
	>"$T/out" 2>&1 || fail "a wrong key lists"
grep -qF "ClickHouse at http://pstored:***@127.0.0.1:$CH_HTTP_PORT/ answered HTTP 401" "$T/out" ||
	{ cat "$T/out"; fail "the refusal is not said"; }
! grep -q "wrong-key" "$T/out" || fail "the password is in the message"

# show, dmesg and export of every crash, chosen by the same matches (the crash
# ids are the same on every machine). dmesg shows what -D shows. The row holds
# the document the http-json target sends, which the machine's own "pstorectl
# export --redacted" prints: put in a directory, it is what --documents reads,
# and --clickhouse shows and exports what --documents does, but for the host
# name, which the row keeps and the document does not, and where it is.
for m in 1 2 3; do
	machine $m
	mkdir -p "$T/documents/$m"
	"$PSTORECTL" -D "$T/remote" list --json --machine="$MAKE_CRASHES_MACHINE_ID" >"$T/list.json"
	python3 -c 'import json, sys
for c in json.load(open(sys.argv[1])): print(c["id"], c["time"])' "$T/list.json" >"$T/crashes"
	[ "$(wc -l <"$T/crashes")" = 3 ] || fail "machine $m: not 3 crashes"
	while read -r id time; do
		pstorectl_export --redacted --config="$T/pstored.conf" --target=fleet --json=short \
			"$id" >"$T/documents/$m/$id.json"
		set -- --machine="$MAKE_CRASHES_MACHINE_ID" --since="@${time}us" --until="@${time}us"
		for verb in dmesg "dmesg --json" "dmesg --raw"; do
			# shellcheck disable=SC2086
			"$PSTORECTL" -D "$T/remote" $verb "$@" >"$T/journal.out" 2>&1 ||
				fail "-D $verb of $id failed"
			# shellcheck disable=SC2086
			"$PSTORECTL" --clickhouse="$CH_URL" $verb "$@" >"$T/clickhouse.out" 2>&1 ||
				{ cat "$T/clickhouse.out"; fail "--clickhouse $verb of $id failed"; }
			cmp "$T/journal.out" "$T/clickhouse.out" ||
				fail "--clickhouse $verb of $id differs from -D"
		done
		for verb in show "show --json" export "export --json=short"; do
			# shellcheck disable=SC2086
			"$PSTORECTL" --documents="$T/documents/$m" $verb "$@" >"$T/documents.out" 2>&1 ||
				{ cat "$T/documents.out"; fail "--documents $verb of $id failed"; }
			# shellcheck disable=SC2086
			"$PSTORECTL" --clickhouse="$CH_URL" $verb "$@" >"$T/clickhouse.out" 2>&1 ||
				{ cat "$T/clickhouse.out"; fail "--clickhouse $verb of $id failed"; }
			grep -q "$UPLOAD_HOSTNAME" "$T/clickhouse.out" || fail "--clickhouse $verb of $id: no host name"
			python3 - "$T/documents.out" "$T/clickhouse.out" "$T/documents/$m/$id.json" <<-'EOF2' ||
				import json, sys
				def without_source(text):
				    # The host name the row adds, and where the crash is.
				    try:
				        doc = json.loads(text)
				    except ValueError:
				        return [l for l in text.splitlines()
				                if not l.startswith(("         Host: ", "      Storage: "))]
				    doc.pop("hostname", None)
				    doc.pop("path", None)
				    return doc
				documents, clickhouse = (open(f).read() for f in sys.argv[1:3])
				sys.exit(without_source(documents) != without_source(clickhouse))
			EOF2
				{ diff -u "$T/documents.out" "$T/clickhouse.out"; fail "--clickhouse $verb of $id differs from --documents"; }
		done
	done <"$T/crashes"
done

# Rows that are not pstored's, first in the order of the listing (the oldest):
# a crash id that is none, a machine id that is none, records that are not
# JSON, a row of 2 MB; each named and skipped, the rest listed. A row whose
# document is another crash's is not shown.
python3 -c 'import json
rows = [(1, "not-a-crash-id", "", "[]", ""),
        (2, "00000000-0000-5000-8000-000000000001", "NOT-A-MACHINE", "[]", ""),
        (3, "00000000-0000-5000-8000-000000000002", "", "not json", ""),
        (4, "00000000-0000-5000-8000-000000000003", "", "[]", "x" * 2000000),
        (5, "00000000-0000-5000-8000-000000000004", "e" * 32, "[]", "")]
print("INSERT INTO pstored.crashes FORMAT JSONEachRow")
for t, c, m, r, h in rows:
    print(json.dumps({"time_usec": t, "crash_id": c, "machine_id": m, "records": r,
        "hostname": h, "document": json.dumps({"export_version": 1,
        "id": "00000000-0000-5000-8000-000000000005"})}))' >"$T/bad-rows"
curl -sSf --data-binary @"$T/bad-rows" "http://127.0.0.1:$CH_HTTP_PORT/" || fail "the bad rows are not taken"
"$PSTORECTL" -D "$T/remote" list --since=@1000000000 >"$T/journal.out" 2>&1 || fail "-D list failed"
"$PSTORECTL" --clickhouse="$CH_URL" list --since=@1000000000 >"$T/clickhouse.out" \
	2>"$T/clickhouse.err" || { cat "$T/clickhouse.err"; fail "--clickhouse list fails on bad rows"; }
diff -u "$T/journal.out" "$T/clickhouse.out" || fail "--clickhouse list of bad rows differs from -D"
cat >"$T/expected.err" <<-EOF2
	pstorectl: Row 1 from ClickHouse is not a row of pstored.crashes (of /usr/share/pstored/clickhouse/schema.sql): skipped.
	pstorectl: Row 2 from ClickHouse is not a row of pstored.crashes (of /usr/share/pstored/clickhouse/schema.sql): skipped.
	pstorectl: Row 3 from ClickHouse is not a row of pstored.crashes (of /usr/share/pstored/clickhouse/schema.sql): skipped.
	pstorectl: Row 4 from ClickHouse is over 1048576 bytes, or holds too many values for its size: not a row of pstored.crashes; skipped.
EOF2
diff -u "$T/expected.err" "$T/clickhouse.err" || fail "the bad rows are not named"
! "$PSTORECTL" --clickhouse="$CH_URL" show 00000000-0000-5000-8000-000000000004 \
	>"$T/out" 2>&1 || fail "the document of another crash is shown"
cat >"$T/expected.err" <<-EOF2
	pstorectl: Row 1 from ClickHouse is not a row of pstored.crashes (of /usr/share/pstored/clickhouse/schema.sql): skipped.
	pstorectl: Row 2 from ClickHouse is not a row of pstored.crashes (of /usr/share/pstored/clickhouse/schema.sql): skipped.
	pstorectl: Row 3 from ClickHouse is not a row of pstored.crashes (of /usr/share/pstored/clickhouse/schema.sql): skipped.
	pstorectl: Row 4 from ClickHouse is over 1048576 bytes, or holds too many values for its size: not a row of pstored.crashes; skipped.
	pstorectl: Row 1 from ClickHouse is not a row of pstored.crashes (of /usr/share/pstored/clickhouse/schema.sql): skipped.
	pstorectl: Crash 00000000-0000-5000-8000-000000000004 of eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee cannot be read from ClickHouse.
EOF2
diff -u "$T/expected.err" "$T/out" || fail "the document of another crash is not named"
stop_clickhouse
! "$PSTORECTL" --clickhouse="$CH_URL" list >"$T/out" 2>&1 || fail "a server that is down lists"
grep -qF "Cannot read the crashes from ClickHouse at http://pstored:***@127.0.0.1:$CH_HTTP_PORT/" "$T/out" ||
	{ cat "$T/out"; fail "the server down is not said"; }
