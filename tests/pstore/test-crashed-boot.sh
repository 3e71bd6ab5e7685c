#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The crashed boot (issue 36): pstored archive stores, as crash.json's
# crashed_boot_id and the journal field PSTORE_CRASHED_BOOT_ID, the boot of
# journald's list whose journal covers the crash's time, and pstorectl show
# says to run journalctl -b with it. A real systemd-journald
# (tests/lib/journald.sh) holds two boots: this one, and a previous boot
# (2025-12-01 09:00 to 09:59:50 UTC) whose journal file systemd-journal-remote
# writes from export format, as journald keeps the files of earlier boots.
# The sample's crashes are dated inside the previous boot, in this one, and
# before both.
set -eu
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
PSTORECTL=$top_builddir/cli/pstorectl
JOURNAL_REMOTE=${JOURNAL_REMOTE:-/usr/lib/systemd/systemd-journal-remote}
tmp=$(mktemp -d /tmp/test-crashed-boot.XXXXXX)
. "$top_srcdir/tests/lib/checks.sh"
export TZ=UTC

machine=$(cat /etc/machine-id)
this_boot=$(tr -d - </proc/sys/kernel/random/boot_id)
old_boot=0f1d2c3b4a5948e7a6b5c4d3e2f10a9b
mkdir -p "/var/log/journal/$machine"
# entry TIME MESSAGE: one entry of the previous boot, in journal export format.
entry() {
	printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n_MACHINE_ID=%s\n' \
		"$1" "$1" "$old_boot" "$machine"
	printf '_TRANSPORT=kernel\nPRIORITY=6\nMESSAGE=%s\n\n' "$2"
}
{
	entry 1764579600000000 'Linux version 6.1.0-27-amd64 (the previous boot)'
	entry 1764583190000000 'sysrq: Trigger a crash'
} | "$JOURNAL_REMOTE" --split-mode=none --output="/var/log/journal/$machine/system@old.journal" - \
	>"$tmp/remote.log" 2>&1 || { cat "$tmp/remote.log"; fail "systemd-journal-remote"; }
echo "the archiving boot" | systemd-cat -t test-crashed-boot
journald_sync
check "journald lists two boots" eq "$(journalctl --list-boots | grep -cE " ($old_boot|$this_boot) ")" 2

# The sample's crashes: the ERST panic at 09:30 (the previous boot), the EFI
# oops the day before (no boot the journal knows), the MCE now (this boot).
mkdir "$tmp/pstore"
cp -a "$top_srcdir"/tests/fixtures/sample/. "$tmp/pstore/"
touch -d '2025-12-01 09:30 UTC' "$tmp"/pstore/dmesg-erst-*
touch -d '2025-11-30 12:00 UTC' "$tmp"/pstore/dmesg-efi-*
touch "$tmp"/pstore/mce-erst-*
cp -a "$tmp/pstore" "$tmp/pstore-again"
"$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" --config=/dev/null \
	>"$tmp/archive.log" 2>&1 || { cat "$tmp/archive.log"; fail "pstored archive"; }

# crashed KIND REASON: the crashed_boot_id of the crash, "none" without one.
crashed() {
	jq -r --arg k "$1" --arg r "$2" 'select(.kind == $k and .reason == $r) |
		.crashed_boot_id // "none"' "$3"/*/crash.json
}
check "the ERST panic: the previous boot" eq "$(crashed kernel-crash panic "$tmp/store")" \
	"$old_boot"
check "the EFI oops, before every boot: none" eq "$(crashed kernel-crash oops "$tmp/store")" none
check "the MCE: this boot" eq "$(crashed hardware-error mce "$tmp/store")" "$this_boot"
check "boot_id stays the archiving boot" eq \
	"$(jq -r .boot_id "$tmp"/store/*/crash.json | sort -u)" "$this_boot"

panic=$(jq -r 'select(.reason == "panic") | .id' "$tmp"/store/*/crash.json)
"$PSTORECTL" --store-dir="$tmp/store" --no-pager show "$panic" >"$tmp/show"
check "show: Crashed boot, and the command that shows its log" grep -qxF \
	"$(printf '%13s: %s (its log: journalctl -b %s)' 'Crashed boot' "$old_boot" "$old_boot")" \
	"$tmp/show"
check "show: the archiving boot with the archiving time" grep -q \
	"^     Archived: .* by boot $this_boot\$" "$tmp/show"
check "journalctl -b with it shows the crashed boot's log" \
	grep -qxF 'sysrq: Trigger a crash' <(journalctl -b "$old_boot" -o cat --no-pager)
check "the journal entry: PSTORE_CRASHED_BOOT_ID" eq \
	"$(journald_field PSTORE_CRASHED_BOOT_ID PSTORE_CRASH_ID="$panic")" "$old_boot"
check "the journal entry of the oops: no PSTORE_CRASHED_BOOT_ID" eq \
	"$(journald_field PSTORE_CRASHED_BOOT_ID PSTORE_REASON=oops)" ""
"$PSTORECTL" --journal --no-pager show "$panic" >"$tmp/show-journal"
check "show --journal: the same Crashed boot" eq "$(grep 'Crashed boot' "$tmp/show-journal")" \
	"$(grep 'Crashed boot' "$tmp/show")"

# --no-journal: the journal is not read either.
"$PSTORED" archive --pstore-dir="$tmp/pstore-again" --store-dir="$tmp/store-again" \
	--config=/dev/null --no-journal >"$tmp/archive.log" 2>&1 ||
	{ cat "$tmp/archive.log"; fail "pstored archive --no-journal"; }
check "--no-journal: no crashed boot" eq \
	"$(jq -r '.crashed_boot_id // "none"' "$tmp"/store-again/*/crash.json | sort -u)" none

rm -rf "$tmp"
checks_done
