#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Storage=journal, where the journal is the only copy of a crash (issue 34,
# finding 1): a record is erased only once its crash's entry is read back from
# the journal files, after journald was asked to write them out. A journald
# that is not running, that dies with the entries in its socket buffer, or
# that keeps nothing (Storage=none) leaves every record in pstore, a message
# that says what to do, exit status 1 and a failed run in last-archive.json.
# Against a real systemd-journald (tests/lib/journald.sh), stopped and
# started again between the cases.
set -eu
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
MAKE_PSTORE=$top_srcdir/tests/pstore/make-pstore
tmp=$(mktemp -d /tmp/test-journal-only.XXXXXX)
. "$top_srcdir/tests/lib/checks.sh"

printf '[Archive]\nStorage=journal\n' >"$tmp/journal.conf"
printf '[Archive]\nStorage=both\n' >"$tmp/both.conf"

archive() { # archive [OPTIONS...]: runs pstored, output in $tmp/out, status in $rc
	rc=0
	"$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" "$@" \
		>"$tmp/out" 2>&1 || rc=$?
}
# setup_journal CASE: a fresh pstore (and a pristine copy to compare with), and
# a store directory, for last-archive.json only.
setup_journal() {
	rm -rf "$tmp/pstore" "$tmp/orig" "$tmp/store"
	"$MAKE_PSTORE" "$tmp/orig" "$1"
	cp -a "$tmp/orig" "$tmp/pstore"
	mkdir -m 0700 "$tmp/store"
}
# journald_restart [STORAGE]: a new journald, with an empty journal.
journald_restart() {
	journald_kill
	rm -rf /run/log/journal/*
	journald_start "$@"
}
left() { find "$tmp/pstore" -mindepth 1 -maxdepth 1 | wc -l; }
all_left() { diff -r "$tmp/orig" "$tmp/pstore" >/dev/null; }
entries() { journald_count SYSLOG_IDENTIFIER=pstored; }
run_result() { jq -r .result "$tmp/store/last-archive.json"; }
# The output with the pstore directory named by its place.
output() { sed "s|$tmp/|TMP/|g" "$tmp/out"; }

# journald up: every crash read back, erased.
setup_journal mixed
archive --config="$tmp/journal.conf"
check "journald up: exit status" eq "$rc" 0
check "journald up: pstore erased" eq "$(left)" 0
check "journald up: one entry per crash" eq "$(entries)" 5
check "journald up: run recorded as success" eq "$(run_result)" success
check "journald up: no crash stored" eq "$(find "$tmp/store" -mindepth 1 -maxdepth 1 -type d | wc -l)" 0

# journald keeps nothing (Storage=none): sd_journal_sendv() succeeds, yet
# nothing reaches the journal files.
journald_restart none
setup_journal mixed
archive --config="$tmp/journal.conf"
check "journald keeps nothing: exit status" eq "$rc" 1
check "journald keeps nothing: every record stays" all_left
check "journald keeps nothing: run recorded as failure" eq "$(run_result)" failure
check "journald keeps nothing: the messages" eq "$(output | grep -v '^pstored: Crash .* is not in the journal files')" \
	"pstored: 5 of 5 crashes could not be archived; their records stay in TMP/pstore for the next run: systemd-journald kept no entry; check Storage= and the rate limits in journald.conf (see journald.conf(5)), or set Storage=both in pstored.conf, then run 'pstored archive' again."
check "journald keeps nothing: each crash named" eq "$(output | grep -c '^pstored: Crash .* is not in the journal files although systemd-journald wrote them out; its records stay in pstore$')" 5
journald_restart

# journald dies with the entries in its socket buffer: stopped, it takes the
# datagrams into the buffer but writes nothing; killed while pstored waits for
# it to write them out, it loses them.
setup_journal mixed
kill -s STOP "$JOURNALD_PID"
rc=0
"$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" \
	--config="$tmp/journal.conf" --log-level=debug >"$tmp/out" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null && ! grep -q 'Waiting for systemd-journald' "$tmp/out"; do
	sleep 0.1
done
journald_kill
wait "$pid" || rc=$?
check "journald dies before writing: exit status" eq "$rc" 1
check "journald dies before writing: every record stays" all_left
check "journald dies before writing: run recorded as failure" eq "$(run_result)" failure
check "journald dies before writing: said so" grep -q \
	'^pstored: /run/systemd/journal/io.systemd.journal: cannot have systemd-journald write out the entries of 5 crashes: Connection reset by peer; their records stay in pstore$' "$tmp/out"

# journald not running, its sockets left behind.
setup_journal mixed
archive --config="$tmp/journal.conf"
check "journald not running: exit status" eq "$rc" 1
check "journald not running: every record stays" all_left
check "journald not running: run recorded as failure" eq "$(run_result)" failure
check "journald not running: the last message says what to do" eq "$(output | tail -n 1)" \
	"pstored: 5 of 5 crashes could not be archived; their records stay in TMP/pstore for the next run: systemd-journald is not running; start it (systemctl start systemd-journald), or set Storage=both in pstored.conf, then run 'pstored archive' again."

# No journald socket at all: sd_journal_sendv() reports success then.
rm -f /run/systemd/journal/socket /run/systemd/journal/io.systemd.journal
for opt in --no-unlink ""; do
	setup_journal mixed
	archive --config="$tmp/journal.conf" $opt
	check "no journald$opt: exit status" eq "$rc" 1
	check "no journald$opt: every record stays" all_left
	check "no journald$opt: run recorded as failure" eq "$(run_result)" failure
	check "no journald$opt: the messages" eq "$(output)" \
		"pstored: /run/systemd/journal/io.systemd.journal: cannot have systemd-journald write out the entries of 5 crashes: Connection refused; their records stay in pstore
pstored: 5 of 5 crashes could not be archived; their records stay in TMP/pstore for the next run: systemd-journald is not running; start it (systemctl start systemd-journald), or set Storage=both in pstored.conf, then run 'pstored archive' again."
done

# journald back, but --no-journal with Storage=journal would keep the crashes
# nowhere: refused, every record stays.
rm -rf /run/log/journal/*
journald_start
setup_journal mixed
archive --config="$tmp/journal.conf" --no-journal
check "--no-journal: exit status" eq "$rc" 1
check "--no-journal: every record stays" all_left
check "--no-journal: run recorded as failure" eq "$(run_result)" failure
check "--no-journal: no entry" eq "$(entries)" 0
check "--no-journal: the message" eq "$(output)" \
	"pstored: --no-journal with Storage=journal would keep the crashes nowhere; nothing archived, the records stay in TMP/pstore: drop --no-journal, or set Storage=both (or store) in pstored.conf."

# journald back: the records left by the failed runs are archived now.
setup_journal mixed
archive --config="$tmp/journal.conf"
check "journald back: exit status" eq "$rc" 0
check "journald back: pstore erased" eq "$(left)" 0
check "journald back: one entry per crash" eq "$(entries)" 5

rm -rf "$tmp"
checks_done
