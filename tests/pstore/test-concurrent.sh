#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Two 'pstored archive' runs on one store at once (issue 34, finding 11): the
# second waits for the store's lock of archive runs (.archive-lock) while the
# first archives, then finds nothing left, and both succeed; each crash is
# stored and journaled once. A run that finds the lock held for longer than
# it waits (30 s) leaves everything alone, records nothing and exits 75.
# pstorectl vacuum and delete during a run lose nothing either.
# Against a real systemd-journald (tests/lib/journald.sh).
set -eu
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
MAKE_PSTORE=$top_srcdir/tests/pstore/make-pstore
tmp=$(mktemp -d /tmp/test-concurrent.XXXXXX)
. "$top_srcdir/tests/lib/checks.sh"
. "$top_srcdir/tests/lib/pstore-case.sh"

# start NAME [ENV=VALUE...]: starts pstored archive in the background, output
# in $tmp/NAME.out, pid in ${pid[NAME]}.
declare -A pid
start() {
	local name=$1
	shift
	env "$@" "$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" \
		--config=/dev/null >"$tmp/$name.out" 2>&1 9>&- &
	pid[$name]=$!
}
# wait_for NAME TEXT: until the output of NAME has TEXT, or NAME ended.
wait_for() {
	while kill -0 "${pid[$1]}" 2>/dev/null && ! grep -qF "$2" "$tmp/$1.out"; do
		sleep 0.1
	done
}
finish() { # finish NAME: waits for NAME, its exit status in $rc
	rc=0
	wait "${pid[$1]}" || rc=$?
}
crashes() { find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l; }
left() { find "$tmp/pstore" -mindepth 1 -maxdepth 1 | wc -l; }
output() { sed "s|$tmp/|TMP/|g" "$tmp/$1.out"; }

# The first run slowed down at each step of each crash, the second started
# once the first is at its first crash.
setup mixed
start first PSTORED_TEST_STEP_DELAY=0.3s
wait_for first "Test delay"
start second
wait_for second "waiting up to"
finish first
check "first run: exit status" eq "$rc" 0
finish second
check "second run: exit status" eq "$rc" 0
check "second run: waited, then found nothing to do" eq "$(output second)" \
	"pstored: TMP/store/.archive-lock: another 'pstored archive' is running; waiting up to 30 s for it to finish."
check "pstore erased" eq "$(left)" 0
check "each crash stored once" eq "$(crashes)" 5
check "each crash journaled once" eq "$(journald_field PSTORE_CRASH_ID SYSLOG_IDENTIFIER=pstored | sort | uniq -c | awk '{ print $1 }' | sort -u | xargs)/$(journald_count SYSLOG_IDENTIFIER=pstored)" 1/5
check "the last run recorded: the second, with nothing to do" \
	eq "$(jq -r '"\(.result) \(.crashes_archived)"' "$tmp/store/last-archive.json")" "success 0"

# The lock held by another run (this shell) for longer than a run waits.
setup mixed
mkdir -m 0700 "$tmp/store"
exec 9>"$tmp/store/.archive-lock"
flock -n 9
start held
finish held
check "lock held: exit status" eq "$rc" 75
check "lock held: every record stays" diff -r "$tmp/orig" "$tmp/pstore"
check "lock held: nothing stored" eq "$(crashes)" 0
check "lock held: the run is not recorded" test ! -e "$tmp/store/last-archive.json"
check "lock held: the messages" eq "$(output held)" \
	"pstored: TMP/store/.archive-lock: another 'pstored archive' is running; waiting up to 30 s for it to finish.
pstored: TMP/store/.archive-lock: another 'pstored archive' has been running for more than 30 s; the records in TMP/pstore are left to it: run 'pstored archive' again once it has finished."
exec 9>&-
start released
finish released
check "lock released: exit status" eq "$rc" 0
check "lock released: archived" eq "$(crashes)/$(left)" 5/0

# pstorectl vacuum and delete during a run: they take the store's write lock,
# which the run's transactions hold from the first crash staged until the last
# of the batch is journaled and erased, so no crash of a batch leaves the
# store between its commit and the erasing of its records; each journal entry
# has its log.
PSTORECTL=$top_builddir/cli/pstorectl
printf '[Store]\nMaxUse=1K\n' >"$tmp/small.conf"
# Crashes whose journal entry has no log: sent from a crash that left the store.
entries_without_log() {
	journalctl --sync
	journalctl --no-pager -q --all -o json SYSLOG_IDENTIFIER=pstored |
		jq -r 'select((.PSTORE_DMESG // "") | length == 0) | .PSTORE_CRASH_ID'
}
for verb in vacuum delete; do
	setup mixed
	start slow PSTORED_TEST_STEP_DELAY=0.3s
	wait_for slow "before the journal entry"
	last=$(grep -o 'before storing of crash [0-9a-f-]*' "$tmp/slow.out" | tail -n 1 | cut -d' ' -f5)
	rc=0
	case $verb in
	vacuum) "$PSTORECTL" --store-dir="$tmp/store" vacuum --config="$tmp/small.conf" ;;
	delete) "$PSTORECTL" --store-dir="$tmp/store" delete "$last" ;;
	esac >/dev/null 2>"$tmp/$verb.out" 9>&- || rc=$?
	check "$verb during a run: exit status" eq "$rc" 0
	finish slow
	check "$verb during a run: the run's exit status" eq "$rc" 0
	check "$verb during a run: pstore erased" eq "$(left)" 0
	check "$verb during a run: every entry with its log" eq "$(entries_without_log)" ""
done
check "delete during a run: the crash deleted" test ! -e "$tmp/store/$last"
check "delete during a run: the others stay" eq "$(crashes)" 4

rm -rf "$tmp"
checks_done
