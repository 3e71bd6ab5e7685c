#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstored archive interrupted and failing, against a real systemd-journald
# (tests/lib/journald.sh), on the "mixed" pstore of tests/pstore/make-pstore
# (multi-part ERST and EFI crashes, a compressed part, an MCE, ramoops logs):
#
# 1. Killed: under tests/lib/fault-inject.so, pstored is SIGKILLed before
#    its Nth durability-relevant call (open for writing, write, fsync,
#    fdatasync, syncfs, rename, unlink, mkdir, journal send), for every N of
#    a whole run (or 200 spread over them if a run makes more), then run
#    again without it.
# 2. Failing: the Nth call of each of these families that a run makes fails
#    with EIO, for every N (or 200 spread over them).
# 3. Full: the store on a tmpfs too small for all crashes (ENOSPC).
# 4. Killed at random times: without the shim, SIGKILL after a random delay
#    within a clean run's duration, FAULT_RANDOM_KILLS times (50; the kills
#    of 1. land between calls, these anywhere, in the middle of a write too).
# 5. On the "many" pstore (40 crashes), the syncfs of the store's write-back
#    thread fails with EIO.
#
# After each faulty run tests/pstore/check-invariants checks that nothing is
# lost, half-visible or journaled twice; a failing run must exit non-zero
# and say what failed and what to do. The rerun must archive every crash
# exactly once, the same as a clean run does (the reference).
#
# Between two runs journald is made to write out what it was sent
# (journalctl --sync): the entry of a killed pstored may still wait in
# journald's socket, and the rerun looks the crash up in the journal; a
# reboot or a restart of the service takes far longer than journald needs
# to read its queue.
#
# make check-valgrind leaves this test out (it takes the compiled test
# programs only): under memcheck its 500 runs would take a quarter of an
# hour. Its error paths are those of pstored, and run clean under
# valgrind-run with the shim preloaded when tried by hand.
set -eu

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: $0 needs root (private mount namespace, tmpfs, journald)" >&2
	exit 77
fi
if ! command -v unshare >/dev/null; then
	echo "SKIP: $0 needs unshare(1) (util-linux)" >&2
	exit 77
fi
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
PSTORECTL=$top_builddir/cli/pstorectl
SHIM=$top_builddir/tests/lib/fault-inject.so
CHECK=$top_srcdir/tests/pstore/check-invariants
# At most this many kill points, and EIO points per family, spread over all
# of them (FAULT_POINTS=20 for a quick run).
MAX_POINTS=${FAULT_POINTS:-200}
RANDOM_KILLS=${FAULT_RANDOM_KILLS:-50}
tmp=$(mktemp -d /tmp/test-faults.XXXXXX)
cleanup() {
	local rc=$?
	! mountpoint -q "$tmp/store" || umount "$tmp/store"
	rm -rf "$tmp"
	(exit $rc)
	journald_stop
}
trap cleanup EXIT
# A sanitizer build's runtime would insist on being loaded before the shim.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
. "$top_srcdir/tests/lib/checks.sh"
runs=0

# A fresh pstore (from $tmp/orig), store and journal.
fresh() {
	if mountpoint -q "$tmp/store"; then
		umount "$tmp/store"
	fi
	rm -rf "$tmp/pstore" "$tmp/store" "$tmp/trace" "$tmp/count"
	cp -a "$tmp/orig" "$tmp/pstore"
	journalctl --rotate >/dev/null
	rm -f /run/log/journal/*/*@*.journal /run/log/journal/*/*.journal~
}

archive() { # archive [ENV=VALUE...]: pstored, output in $tmp/out, status in $rc
	rc=0
	# In a subshell of its own, whose stderr takes bash's "Killed" notice.
	(env "$@" "$PSTORED" archive --config=/dev/null --pstore-dir="$tmp/pstore" \
		--store-dir="$tmp/store" >"$tmp/out" 2>&1; exit $?) 2>/dev/null || rc=$?
	runs=$((runs + 1))
}
faulty() { archive LD_PRELOAD="$SHIM" FAULT_INJECT_TRACE="$tmp/trace" "$@"; }

invariants() { # invariants [--final]: tests/pstore/check-invariants, once journald wrote all
	journalctl --sync
	"$CHECK" --orig="$tmp/orig" --pstore="$tmp/pstore" --store="$tmp/store" \
		--pstorectl="$PSTORECTL" --reference-store="$tmp/ref-store" \
		--reference-journal="$tmp/ref-journal" "$@"
}

# The rerun after a faulty run: succeeds, leaves everything archived once and
# records that it erased what the faulty run left.
rerun() { # rerun WHAT
	local left
	left=$(find "$tmp/pstore" -mindepth 1 | wc -l)
	archive
	[ "$rc" -eq 0 ] || { cat "$tmp/out" >&2; fail "$1: the rerun exited with $rc"; }
	check "$1, after the rerun" invariants --final
	jq -e --argjson n "$left" '.result == "success" and .records_erased == $n and
		(has("error") | not)' "$tmp/store/last-archive.json" >/dev/null ||
		fail "$1: last-archive.json of the rerun does not say success, $left records erased"
}

# The reference: a clean run of $tmp/orig, its store and journal.
reference() {
	rm -rf "$tmp/ref-store"
	records=$(find "$tmp/orig" -type f | wc -l)
	fresh
	archive
	[ "$rc" -eq 0 ] || { cat "$tmp/out" >&2; fail "the clean run exited with $rc"; exit 1; }
	journalctl --sync
	journalctl --no-pager -q --all -o json SYSLOG_IDENTIFIER=pstored >"$tmp/ref-journal"
	mv "$tmp/store" "$tmp/ref-store"
	crashes=$(find "$tmp/ref-store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)
	[ "$crashes" -ge 5 ] || fail "the clean run stored $crashes crashes of $records records"
	jq -e --argjson c "$crashes" --argjson r "$records" \
		'.result == "success" and .crashes_archived == $c and .records_erased == $r' \
		"$tmp/ref-store/last-archive.json" >/dev/null ||
		fail "the clean run's last-archive.json does not say success, $crashes crashes, $records records"
}

"$top_srcdir/tests/pstore/make-pstore" "$tmp/orig" mixed
reference
# The number of calls the shim sees in a run.
fresh
faulty FAULT_INJECT_COUNT="$tmp/count"
[ "$rc" -eq 0 ] || fail "the run under the shim alone exited with $rc"
check "the run under the shim alone" invariants --final
calls=$(cat "$tmp/count")
[ "$calls" -eq "$(wc -l <"$tmp/trace")" ] || fail "the trace does not list $calls calls"
cp "$tmp/trace" "$tmp/calls"
# Every family of the shim that a run calls; those listed here it must.
declare -A family_calls
families=
for family in open write fsync fdatasync syncfs rename unlink mkdir journal; do
	family_calls[$family]=$(grep -c "^[0-9]* $family " "$tmp/calls" || true)
	[ "${family_calls[$family]}" -eq 0 ] || families="$families $family"
done
for family in open write fsync syncfs rename unlink mkdir journal; do
	[ "${family_calls[$family]}" -gt 0 ] || fail "a run makes no $family call"
done

# points COUNT: 1 ... COUNT, or MAX_POINTS of them spread evenly, first and last included.
points() {
	if [ "$1" -le "$MAX_POINTS" ]; then
		seq 1 "$1"
	else
		seq 1 "$MAX_POINTS" | awk -v c="$1" -v m="$MAX_POINTS" \
			'{ print int(($1 - 1) * (c - 1) / (m - 1 > 0 ? m - 1 : 1)) + 1 }' | uniq
	fi
}

# 1. SIGKILL before call N, for every N.
kill_points=0
for n in $(points "$calls"); do
	what="killed before call $n ($(sed -n "${n}p" "$tmp/calls" | cut -d' ' -f2-))"
	fresh
	faulty FAULT_INJECT_KILL="$n"
	kill_points=$((kill_points + 1))
	[ "$rc" -eq 137 ] || { fail "$what: exited with $rc, not killed"; continue; }
	check "$what" invariants
	rerun "$what"
done

# atomic_rewrite NAME WHAT: sets span to the calls of the atomic rewrite of
# the store's file NAME in a clean run, from the open of its temporary file,
# .#NAME and 16 hex digits, to its rename over NAME (neither file is
# fsynced): "FIRST LAST".
atomic_rewrite() {
	local first last
	first=$(awk -v t="/[.]#$1[0-9a-f]+\$" '$NF ~ t { print $1; exit }' "$tmp/calls")
	last=$(awk -v t="/[.]#$1[0-9a-f]+\$" '$2 == "rename" && $(NF - 2) ~ t { print $1; exit }' \
		"$tmp/calls")
	[ -n "$first" ] && [ -n "$last" ] ||
		fail "the calls do not show $2 written and renamed"
	span="${first:-0} ${last:-0}"
}
failed_call_in() { # failed_call_in FIRST LAST: the failed call of the trace is one of FIRST...LAST
	local n
	n=$(awk '$NF == "FAIL" { print $1; exit }' "$tmp/trace")
	[ -n "$n" ] && [ "$n" -ge "$1" ] && [ "$n" -le "$2" ]
}
atomic_rewrite index "the new store's empty index"
empty_index=$span
atomic_rewrite last-archive.json "the record of the run, last-archive.json"
record=$span

# 2. The Nth call of a family fails with EIO: pstored says what failed and
#    what to do and exits non-zero, the records stay; a rerun archives
#    everything. Calls that pstored can do without may fail unnoticed:
#    writes of the index (a cache, rebuilt from the crash directories; its
#    temporary file too), among them the new store's empty index (from its
#    open to its rename),
#    and the removal of a staging
#    directory of an earlier run (there is none here). The record of the run,
#    last-archive.json (the same span), may fail too, but not unnoticed: the
#    run still succeeds, with a warning. A run that fails records its last
#    message there, unless the store could not be opened at all.
fail_points=0
for family in $families; do
	for n in $(points "${family_calls[$family]}"); do
		what="$family $n fails with EIO ($(grep "^[0-9]* $family " "$tmp/calls" |
			sed -n "${n}p" | cut -d' ' -f3-))"
		fresh
		faulty FAULT_INJECT_FAIL="$family:$n:EIO"
		fail_points=$((fail_points + 1))
		# shellcheck disable=SC2086 # FIRST LAST
		if failed_call_in $record; then
			[ "$rc" -eq 0 ] && grep -q "last-archive.json: cannot record this run: Input/output error; no crash is affected" "$tmp/out" ||
				{ cat "$tmp/out" >&2; fail "$what: exited with $rc, or no warning"; }
		elif grep -q -e '/index FAIL$' -e '/[.]#index[0-9a-f]*\( -> index\)\? FAIL$' \
			-e '^[0-9]* unlink .*/\.tmp-[^/]* FAIL$' "$tmp/trace" ||
			failed_call_in $empty_index; then
			:
		elif [ "$rc" -eq 0 ]; then
			fail "$what: exited with 0"
		elif ! grep -q "Input/output error" "$tmp/out" || ! grep -q "stay in .*pstore" "$tmp/out" ||
			! grep -q "see the kernel log .*, then run 'pstored archive' again" "$tmp/out"; then
			cat "$tmp/out" >&2
			fail "$what: no clear message"
		elif ! grep -q "cannot open the crash store" "$tmp/out" &&
			! jq -e --arg e "$(tail -n 1 "$tmp/out" | sed 's/^pstored: //')" \
				'.result == "failure" and .error == $e' "$tmp/store/last-archive.json" >/dev/null; then
			fail "$what: last-archive.json does not record the failure with its last message"
		fi
		check "$what" invariants
		rerun "$what"
	done
done

# 3. A store on a full file system: some crashes fit, the others stay in
#    pstore; with room again the rerun takes them.
fresh
mkdir "$tmp/store"
mount -t tmpfs -o size=40k,mode=0700 tmpfs "$tmp/store"
archive
if [ "$rc" -eq 0 ]; then
	fail "ENOSPC: exited with 0"
else
	grep -q "No space left on device" "$tmp/out" && grep -q "free space on the file system of the store" "$tmp/out" ||
		{ cat "$tmp/out" >&2; fail "ENOSPC: no clear message"; }
fi
stored=$(find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)
[ "$stored" -gt 0 ] && [ "$stored" -lt "$crashes" ] ||
	fail "ENOSPC: $stored of $crashes crashes stored, the file system is not the right size"
[ -z "$(find "$tmp/store" -mindepth 1 -maxdepth 1 -name '.tmp-*')" ] ||
	fail "ENOSPC: a staging directory was left behind"
check "ENOSPC" invariants
mount -o remount,size=16m "$tmp/store"
rerun "ENOSPC"

# 4. SIGKILL at a random time, up to 1.5 times as long as a clean run takes
#    (measured here: the machine may be busy). A kill that lands after the
#    store was created was in the middle of the job; some must.
fresh
start=$(date +%s%N)
archive
duration_us=$((($(date +%s%N) - start) / 1000))
[ "$rc" -eq 0 ] || fail "the timed clean run exited with $rc"
landed=0
for i in $(seq 1 "$RANDOM_KILLS"); do
	delay_us=$(((RANDOM * 32768 + RANDOM) % (duration_us * 3 / 2 + 1)))
	what="killed after $delay_us us (random kill $i)"
	fresh
	{
		"$PSTORED" archive --config=/dev/null --pstore-dir="$tmp/pstore" \
			--store-dir="$tmp/store" >"$tmp/out" 2>&1 &
		pid=$!
		sleep "$(printf '%d.%06d' $((delay_us / 1000000)) $((delay_us % 1000000)))"
		kill -KILL "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
	} 2>/dev/null
	runs=$((runs + 1))
	if [ "$rc" -eq 137 ] && [ -d "$tmp/store" ]; then
		landed=$((landed + 1))
	elif [ "$rc" -ne 137 ] && [ "$rc" -ne 0 ]; then
		cat "$tmp/out" >&2
		fail "$what: exited with $rc"
	fi
	check "$what" invariants
	rerun "$what"
done
[ "$RANDOM_KILLS" -eq 0 ] || [ "$landed" -gt 0 ] ||
	fail "none of $RANDOM_KILLS random kills landed while pstored archived ($duration_us us)"

# 5. The store's write-back ahead: on a pstore of 40 crashes a second thread
#    syncs the store's file system once 32 are staged, while the next are
#    written, and the commit syncs again. The thread's syncfs failing with
#    EIO fails the commit: non-zero exit, a clear message, the records stay.
rm -rf "$tmp/orig"
"$top_srcdir/tests/pstore/make-pstore" "$tmp/orig" many
reference
fresh
faulty
syncs=$(grep -c '^[0-9]* syncfs ' "$tmp/trace" || true)
[ "$rc" -eq 0 ] && [ "$syncs" -eq 2 ] ||
	fail "40 crashes: exited with $rc after $syncs syncfs calls, not 0 after 2 (the write-back thread's, the commit's)"
what="40 crashes: the write-back thread's syncfs fails with EIO"
fresh
faulty FAULT_INJECT_FAIL=syncfs:1:EIO
if [ "$rc" -eq 0 ]; then
	fail "$what: exited with 0"
elif ! grep -q "cannot store 40 crashes: Input/output error; their records stay in pstore" "$tmp/out" ||
	! grep -q "see the kernel log .*, then run 'pstored archive' again" "$tmp/out"; then
	cat "$tmp/out" >&2
	fail "$what: no clear message"
fi
check "$what" invariants
rerun "$what"

echo "$kill_points kill points, $fail_points EIO points, $landed of $RANDOM_KILLS random kills" \
	"during archiving, $runs runs of pstored ($calls calls in a run)"
checks_done
