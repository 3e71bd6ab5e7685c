#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The budgets of pstored.conf (MaxRecordSize=, MaxParts=, MaxLogSize=,
# MaxRecordsPerRun=, MaxBytesPerRun=) against hostile pstore contents, with
# a real systemd-journald: each run ends in bounded time and memory, keeps
# the records byte for byte, says in crash.json, the journal entry and
# 'pstorectl show' what a budget cut, and loses no record to retention.
# tests/pstore/check-invariants holds after every run.
set -eu
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
PSTORECTL=$top_builddir/cli/pstorectl
MAKE_PSTORE=$top_srcdir/tests/pstore/make-pstore
CHECK=$top_srcdir/tests/pstore/check-invariants
tmp=$(mktemp -d /tmp/test-budgets.XXXXXX)
. "$top_srcdir/tests/lib/checks.sh"

# The bounds of pstored(8), with room for a slow machine; a sanitizer's
# shadow memory does not count.
TIME_MAX=30
if ldd "$PSTORED" | grep -q libasan; then RSS_MAX=1048576; else RSS_MAX=65536; fi
# What a run over 100,000 records needs (pstored(8), Bounds: the records a run
# can take, not the ones it cannot); 1473dc2 needed 40 MiB.
if ldd "$PSTORED" | grep -q libasan; then SCAN_RSS_MAX=1048576; else SCAN_RSS_MAX=16384; fi

. "$top_srcdir/tests/lib/pstore-case.sh"
# archive [OPTIONS...]: pstored within TIME_MAX; $rc, $rss (KiB), output in $tmp/out
archive() {
	rc=0
	/usr/bin/time -f %M -o "$tmp/rss" timeout "$TIME_MAX" "$PSTORED" archive \
		--pstore-dir="$tmp/pstore" --store-dir="$tmp/store" "$@" >"$tmp/out" 2>&1 || rc=$?
	rss=$(tail -n 1 "$tmp/rss")
}
bounded() {
	[ "$rc" -ne 124 ] && [ "$rss" -le "$RSS_MAX" ] || { echo "  rc=$rc, $rss KiB" >&2; return 1; }
}
invariants() {
	journalctl --sync
	"$CHECK" --orig="$tmp/orig" --pstore="$tmp/pstore" --store="$tmp/store" \
		--pstorectl="$PSTORECTL"
}
crashes() { find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | wc -l; }
left() { find "$tmp/pstore" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
crash() { find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | head -n 1; }
field() { journald_field "$1" SYSLOG_IDENTIFIER=pstored "${@:2}"; }
show() { "$PSTORECTL" --store-dir="$tmp/store" --no-pager show "$(basename "$(crash)")"; }

# Issue 24, 1: a 24-byte record claims to be part 4294967295 of its dump.
setup huge-part-number
archive --config=/dev/null
check "huge part number: bounded" bounded
check "huge part number: exit status" eq "$rc" 0
check "huge part number: archived" eq "$(crashes)" 1
check "huge part number: missing parts as one range" \
	eq "$(jq -c .parts_missing "$(crash)/crash.json")" "[[1,4294967294]]"
check "huge part number: crash.json is small" test "$(stat -c %s "$(crash)/crash.json")" -lt 4096
check "huge part number: PSTORE_PARTS_MISSING" eq "$(field PSTORE_PARTS_MISSING)" 1-4294967294
check "huge part number: pstorectl show reads it" show
check "huge part number: invariants" invariants

# Issue 24, 2: 20 section descriptors point at one blob that inflates to 16 MiB.
setup cper-shared-blob
archive --config=/dev/null
check "CPER shared blob: bounded" bounded
check "CPER shared blob: exit status" eq "$rc" 0
check "CPER shared blob: log within MaxRecordSize=" \
	test "$(stat -c %s "$(crash)/dmesg.txt")" -le $((2 * 1048576))
check "CPER shared blob: truncated in crash.json" \
	grep -q '^MaxRecordSize=1048576: the sections of unknown-erst-[0-9]* beyond it are not decoded$' \
	<(jq -r '.truncated[]' "$(crash)/crash.json")
check "CPER shared blob: PSTORE_TRUNCATED" grep -q '^MaxRecordSize=1048576: ' <(field PSTORE_TRUNCATED)
check "CPER shared blob: pstorectl show" grep -q '^    Truncated: MaxRecordSize=1048576: ' <(show)
check "CPER shared blob: invariants" invariants

# Issue 24, 3: 300 parts inflating to 300 MiB, a crash larger than MaxUse=.
setup inflate-many-parts
archive --config=/dev/null
check "many parts: bounded" bounded
check "many parts: exit status" eq "$rc" 0
check "many parts: kept in the store" eq "$(crashes)" 1
check "many parts: all 300 records stored" eq "$(ls "$(crash)/records" | wc -l)" 300
size=$(stat -c %s "$(crash)/dmesg.txt")
check "many parts: log cut at MaxLogSize=, at a line" test "$size" -le 8388608 -a "$size" -gt 8388000
check "many parts: truncated" eq "$(jq -r '.truncated[]' "$(crash)/crash.json")" \
	"MaxLogSize=8388608: the log holds its newest $size bytes, from the first whole line"
check "many parts: the log ends with Part1" \
	eq "$(tail -c 65536 "$(crash)/dmesg.txt" | grep -o '] part [0-9]* ' | sort -u)" "] part 1 "
check "many parts: invariants" invariants

# Issue 34, 8: a dump longer than MaxLogSize= keeps its newest lines, Part1
# with the panic, as MaxParts= keeps the newest parts.
setup long-dump
archive --config=/dev/null
size=$(stat -c %s "$(crash)/dmesg.txt")
part1=$(ls "$tmp/orig" | sort | head -n 1)
check "long dump: bounded" bounded
check "long dump: exit status" eq "$rc" 0
check "long dump: log cut at MaxLogSize=, at a line" test "$size" -le 8388608 -a "$size" -gt 8388000
check "long dump: the log ends with Part1, whole" \
	cmp -s <(tail -c "$(($(stat -c %s "$tmp/orig/$part1") - 14))" "$(crash)/dmesg.txt") \
	<(tail -n +2 "$tmp/orig/$part1")
check "long dump: the log starts with a whole line" \
	grep -qx '<6>\[ *[0-9]*\.000000\] long line [0-9]*' <(head -n 1 "$(crash)/dmesg.txt")
check "long dump: the panic found" \
	eq "$(jq -r '"\(.reason) \(.analysis.function) \(.analysis.message)"' "$(crash)/crash.json")" \
	"panic sysrq_handle_crash Kernel panic - not syncing: sysrq triggered crash"
check "long dump: truncated" eq "$(jq -r '.truncated[]' "$(crash)/crash.json")" \
	"MaxLogSize=8388608: the log holds its newest $size bytes, from the first whole line"
check "long dump: PSTORE_DMESG is dmesg.txt" cmp -s <(field PSTORE_DMESG) <(cat "$(crash)/dmesg.txt"; echo)
check "long dump: invariants" invariants

# Retention never removes a crash of the run: MaxUse= far below one crash.
setup erst-multipart
printf '[Store]\nMaxUse=1K\n' >"$tmp/small.conf"
archive --config="$tmp/small.conf"
check "MaxUse=1K: exit status" eq "$rc" 0
check "MaxUse=1K: the crash of this run stays" eq "$(crashes)" 1
check "MaxUse=1K: records erased" eq "$(left)" 0
check "MaxUse=1K: invariants" invariants
# The next run's retention makes room for the new crash, and keeps that one.
"$MAKE_PSTORE" "$tmp/pstore" two-boots
cp -a "$tmp/pstore/." "$tmp/orig/"
old=$(basename "$(crash)")
archive --config="$tmp/small.conf"
check "MaxUse=1K, next run: exit status" eq "$rc" 0
check "MaxUse=1K, next run: the old crash goes" test ! -e "$tmp/store/$old"
check "MaxUse=1K, next run: both new crashes stay" eq "$(crashes)" 2

# A part that inflates past MaxRecordSize=: archived, its head in the log, no false size.
setup inflate-past-max
archive --config=/dev/null
check "inflates past MaxRecordSize=: exit status" eq "$rc" 0
check "inflates past MaxRecordSize=: archived" eq "$(crashes)" 1
check "inflates past MaxRecordSize=: erased" eq "$(left)" 0
check "inflates past MaxRecordSize=: no false size" eval '! grep -q "bytes, more than MaxRecordSize" "$tmp/out"'
check "inflates past MaxRecordSize=: the head is the log" \
	eq "$(head -n 1 "$(crash)/dmesg.txt")" "<6>[    0.000000] big line 0"
check "inflates past MaxRecordSize=: truncated" grep -q \
	'^MaxRecordSize=1048576: dmesg-erst-[0-9]*.enc.z inflates to more, its first 1048576 bytes are in the log$' \
	<(jq -r '.truncated[]' "$(crash)/crash.json")
check "inflates past MaxRecordSize=: invariants" invariants
# The same under a backend name with a terminal escape: 'pstorectl show' escapes the reason.
setup inflate-past-max
esc=$(printf 'dmesg-er\033[2Jst-1.enc.z')
mv "$tmp"/pstore/dmesg-erst-*.enc.z "$tmp/pstore/$esc"
mv "$tmp"/orig/dmesg-erst-*.enc.z "$tmp/orig/$esc"
archive --config=/dev/null
check "escape in the name: archived" eq "$rc/$(crashes)" 0/1
check "escape in the name: the reason escaped by show" \
	grep -qF 'Truncated: MaxRecordSize=1048576: dmesg-er\x1b[2Jst-1.enc.z inflates to more' <(show)
check "escape in the name: no ESC from show" eval '! show | grep -q "$(printf "\033")"'

# MaxParts=: the newest parts make the log, the others are stored all the same.
setup erst-multipart
printf '[Archive]\nMaxParts=2\n' >"$tmp/parts.conf"
archive --config="$tmp/parts.conf"
check "MaxParts=2: exit status" eq "$rc" 0
check "MaxParts=2: three records stored" eq "$(ls "$(crash)/records" | wc -l)" 3
check "MaxParts=2: the newest lines in the log" grep -q 'erst line 300$' "$(crash)/dmesg.txt"
check "MaxParts=2: not the oldest" eval '! grep -q "erst line 1$" "$(crash)/dmesg.txt"'
check "MaxParts=2: truncated" eq "$(jq -r '.truncated[]' "$(crash)/crash.json")" \
	"MaxParts=2: the 1 oldest parts are stored, but not in the log"
check "MaxParts=2: invariants" invariants

# MaxRecordsPerRun=: the oldest crashes now, the rest at the next run.
setup many
printf '[Archive]\nMaxRecordsPerRun=15\n' >"$tmp/run.conf"
archive --config="$tmp/run.conf"
check "MaxRecordsPerRun=15: exit status" eq "$rc" 0
check "MaxRecordsPerRun=15: 15 crashes" eq "$(crashes)" 15
check "MaxRecordsPerRun=15: the others left" eq "$(left)" 25
check "MaxRecordsPerRun=15: says so" grep -q '25 of 40 crashes left in .* for the next run' "$tmp/out"
check "MaxRecordsPerRun=15: invariants" invariants
archive --config="$tmp/run.conf"
archive --config="$tmp/run.conf"
check "MaxRecordsPerRun=15: all in three runs" eq "$(crashes)/$(left)" 40/0
# Issue 34, 9: far more records than a run takes: the scan keeps the oldest
# that it can take, in memory that does not grow with the others.
setup many-records
printf '[Archive]\nMaxRecordsPerRun=10\n' >"$tmp/ten.conf"
archive --config="$tmp/ten.conf"
check "100,000 records: exit status" eq "$rc" 0
check "100,000 records: bounded" bounded
check "100,000 records: memory of the records taken" test "$rss" -le "$SCAN_RSS_MAX"
check "100,000 records: the 10 oldest archived" eq "$(crashes)/$(left)" 10/99990
check "100,000 records: the oldest" eq "$(find "$tmp/store" -path '*/records/*' -printf '%f\n' | sort)" \
	"$(ls "$tmp/orig" | sort -t- -k3n | head -n 10 | sort)"
check "100,000 records: says so" grep -q '^pstored: 99990 of 100000 records left in .* for the next run' "$tmp/out"
printf '[Archive]\nMaxBytesPerRun=1\n' >"$tmp/bytes.conf"
setup many
archive --config="$tmp/bytes.conf"
check "MaxBytesPerRun=1: one crash per run" eq "$(crashes)/$(left)" 1/39
# A record larger than MaxRecordSize= is never read, so it takes nothing from the run's bytes.
setup erst-multipart
head -c $((8 * 1024 * 1024)) /dev/zero >"$tmp/pstore/dmesg-erst-1"
cp -a "$tmp/pstore/dmesg-erst-1" "$tmp/orig/"
touch -d @0 "$tmp/pstore/dmesg-erst-1"
printf '[Archive]\nMaxBytesPerRun=1M\n' >"$tmp/bytes.conf"
archive --config="$tmp/bytes.conf"
check "MaxBytesPerRun=1M: the crash after a huge record archived" eq "$(crashes)/$(left)" 1/1
check "MaxBytesPerRun=1M: the huge record said" grep -q 'dmesg-erst-1: record is 8388608 bytes' "$tmp/out"

rm -rf "$tmp"
checks_done
