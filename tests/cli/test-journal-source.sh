#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstorectl --journal: the crashes in this machine's journal (a private
# systemd-journald, tests/lib/journald.sh), as "pstored archive" logged
# them, those that retention already removed from the store too.
set -u
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
PSTORECTL=$top_builddir/cli/pstorectl
tmp=$(mktemp -d /tmp/test-journal-source.XXXXXX)
. "$top_srcdir/tests/lib/checks.sh"
ctl() { "$PSTORECTL" --no-pager "$@"; }

mkdir "$tmp/pstore"
cp -a "$top_srcdir"/tests/fixtures/sample/. "$tmp/pstore/"
"$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" --config=/dev/null \
	>"$tmp/archive.log" 2>&1
check "pstored archive" test $? -eq 0
journald_sync
cp -a "$tmp/store" "$tmp/before"
ids=$(ctl --store-dir="$tmp/store" --json=short list | jq -r '.[].id' | sort)
n=$(echo "$ids" | wc -l)
check "crashes archived" test "$n" -ge 2

printf '[Store]\nMaxCrashes=1\n' >"$tmp/keep-one.conf"
ctl --store-dir="$tmp/store" vacuum --config="$tmp/keep-one.conf" >/dev/null 2>&1
check "retention left one crash in the store" \
	eq "$(ctl --store-dir="$tmp/store" --json=short list | jq length)" 1

check "--journal lists them all" eq "$(ctl --journal --json=short list | jq -r '.[].id' | sort)" "$ids"
check "--journal: one machine, no HOST column" eval '! ctl --journal list | grep -q HOST'
gone=$(comm -23 <(echo "$ids") <(ctl --store-dir="$tmp/store" --json=short list | jq -r '.[].id'))
for id in $gone; do
	check "dmesg of removed crash ${id:0:8}" \
		eq "$(ctl --journal dmesg --raw "$id" | md5sum)" "$(md5sum <"$tmp/before/$id/dmesg.txt")"
	check "show of removed crash ${id:0:8}" \
		eq "$(ctl --journal --json=short show "$id" | jq -r .kind)" \
		"$(jq -r .kind "$tmp/before/$id/crash.json")"
done

rm -rf "$tmp"
checks_done
