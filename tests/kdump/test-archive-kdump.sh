#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstored archive on a kdump directory as kdump-tools 1.8 leaves it
# (KdumpDir=), against a real systemd-journald: each complete dump is taken
# once (reruns, a renamed directory, a lost record of the dumps taken), a
# half-written one waits, nothing below the directory ever changes, and a
# panic that pstore caught too is one crash of two sources.
set -eu
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
PSTORECTL=$top_builddir/cli/pstorectl
MAKE_PSTORE=$top_srcdir/tests/pstore/make-pstore
tmp=$(mktemp -d /tmp/test-archive-kdump.XXXXXX)
. "$top_srcdir/tests/lib/checks.sh"
. "$top_srcdir/tests/lib/pstore-case.sh"

printf '[Archive]\nKdumpDir=%s\n' "$tmp/crash" >"$tmp/pstored.conf"
archive() { # archive [OPTIONS...]: output in $tmp/out, status in $rc
	rc=0
	"$PSTORED" archive --config="$tmp/pstored.conf" --pstore-dir="$tmp/pstore" \
		--store-dir="$tmp/store" "$@" >"$tmp/out" 2>&1 || rc=$?
}
crashes() { find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | wc -l; }
entries() { journald_count SYSLOG_IDENTIFIER=pstored "$@"; }
field() { journald_field "$1" SYSLOG_IDENTIFIER=pstored "${@:2}"; }
# Every name, type, mode, owner, size, time and content below the kdump directory.
tree_sum() {
	(cd "$tmp/crash" && find . -printf '%p %y %m %U %s %T@ %l\n' | sort &&
		find . -type f -exec sha256sum {} + | sort) | sha256sum
}
# dump STAMP [DMESG-FILE]: a dump as kdump-tools leaves it once done.
dump() {
	mkdir -p "$tmp/crash/$1"
	if [ -n "${2:-}" ]; then
		cp "$2" "$tmp/crash/$1/dmesg.$1"
	else
		sed "s/@STAMP@/$1/" "$tmp/dmesg.in" >"$tmp/crash/$1/dmesg.$1"
	fi
	printf 'KDUMP   ' >"$tmp/crash/$1/dump.$1"
}
crash_of() { # the store's crash whose kdump directory is $1
	grep -l "\"directory\": \"$tmp/crash/$1\"" "$tmp"/store/*/crash.json | xargs -r dirname | xargs -r basename
}

cat >"$tmp/dmesg.in" <<'EOF'
[    0.000000] Linux version 6.1.0-27-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1 (2024-11-01)
[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/vda1 crashkernel=256M stamp=@STAMP@
[   42.123456] sysrq: Trigger a crash
[   42.123500] Kernel panic - not syncing: sysrq triggered crash
[   42.123600] CPU: 0 PID: 321 Comm: bash Not tainted 6.1.0-27-amd64 #1  Debian 6.1.115-1
[   42.123610] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   42.123700] Call Trace:
[   42.123701]  <TASK>
[   42.123702]  dump_stack_lvl+0x44/0x5c
[   42.123703]  panic+0x118/0x2f6
[   42.123704]  sysrq_handle_crash+0x16/0x20
[   42.123705]  __handle_sysrq.cold+0x43/0x11b
[   42.123706]  write_sysrq_trigger+0x24/0x40
[   42.123707]  proc_reg_write+0x56/0xa0
[   42.123708]  vfs_write+0xc7/0x3b0
[   42.123709]  ksys_write+0x6b/0xf0
[   42.123710]  do_syscall_64+0x55/0xb0
[   42.123711]  entry_SYSCALL_64_after_hwframe+0x6e/0xd8
[   42.123712]  </TASK>
EOF

case=first-run
mkdir -p "$tmp/pstore" "$tmp/crash"
printf 'kexec -p /boot/vmlinuz-6.1.0-27-amd64 --initrd=/var/lib/kdump/initrd.img\n' >"$tmp/crash/kexec_cmd"
dump 202612072201
# Half written: the vmcore not renamed yet, or not begun (the dmesg is written first).
dump 202612072202
mv "$tmp/crash/202612072202/dump.202612072202" "$tmp/crash/202612072202/dump-incomplete"
mkdir "$tmp/crash/202612072203"
head -n 3 "$tmp/dmesg.in" >"$tmp/crash/202612072203/dmesg.202612072203"
# Planted: a dmesg that links elsewhere, a FIFO, a 1 GiB sparse dmesg.
dump 202612072204
ln -sf /etc/passwd "$tmp/crash/202612072204/dmesg.202612072204"
dump 202612072205
rm "$tmp/crash/202612072205/dmesg.202612072205"
mkfifo "$tmp/crash/202612072205/dmesg.202612072205"
dump 202612072206
truncate -s 1G "$tmp/crash/202612072206/dmesg.202612072206"
before=$(tree_sum)
archive
check "exit status" eq "$rc" 0
check "the complete dumps taken" eq "$(crashes)" 2
check "one journal entry each" eq "$(entries)" 2
check "nothing below KdumpDir= changed" eq "$(tree_sum)" "$before"
check "half-written dumps wait" eq "$(grep -c 'left for a later run' "$tmp/out")" 2
check "link and FIFO named" eq "$(grep -c '; not taken as a kdump dump' "$tmp/out")" 2
id=$(crash_of 202612072201)
doc=$tmp/store/$id/crash.json
check "crash.json: source, kdump, record" eq \
	"$(jq -c '[.kind, .reason, .sources, .kdump.dmesg, .kdump.vmcore, [.records[].name], .complete, .analysis.function]' "$doc")" \
	"[\"kernel-crash\",\"panic\",[\"kdump\"],\"dmesg.202612072201\",\"$tmp/crash/202612072201/dump.202612072201\",[\"dmesg.202612072201\"],true,\"sysrq_handle_crash\"]"
check "the record is the dmesg, byte for byte" cmp -s "$tmp/store/$id/records/dmesg.202612072201" \
	"$tmp/crash/202612072201/dmesg.202612072201"
check "dmesg.txt is the dmesg" cmp -s "$tmp/store/$id/dmesg.txt" "$tmp/crash/202612072201/dmesg.202612072201"
check "PSTORE_SOURCES" eq "$(field PSTORE_SOURCES PSTORE_CRASH_ID="$id")" kdump
check "PSTORE_VMCORE" eq "$(field PSTORE_VMCORE PSTORE_CRASH_ID="$id")" \
	"$tmp/crash/202612072201/dump.202612072201"
check "MESSAGE" eq "$(field MESSAGE PSTORE_CRASH_ID="$id")" \
	"Kernel panic in a previous boot: Kernel panic - not syncing: sysrq triggered crash in sysrq_handle_crash, saved by kdump in $tmp/crash/202612072201; see 'pstorectl show ${id:0:8}'"
big=$(crash_of 202612072206)
check "1 GiB dmesg: its newest MaxLogSize= bytes" eq \
	"$(jq -c '[.complete, .records[0].size, .truncated]' "$tmp/store/$big/crash.json")" \
	'[false,8388608,["MaxLogSize=8388608: the dmesg is 1073741824 bytes; the log holds its newest 8388608, from the first whole line"]]'
"$PSTORECTL" --store-dir="$tmp/store" show "$id" 2>/dev/null | grep -E '^ +(Sources|Vmcore):' >"$tmp/show"
check "pstorectl show names the vmcore" eq "$(cat "$tmp/show")" \
	"      Sources: kdump
       Vmcore: $tmp/crash/202612072201/dump.202612072201 (open with crash(8))"
"$PSTORECTL" --store-dir="$tmp/store" export "$id" >"$tmp/export.json"
check "the exported document is valid" "$top_srcdir/tests/lib/validate-document" \
	"$top_srcdir/lib/upload/crash-document.schema.json" "$tmp/export.json"
check "kdump-taken: one line each" eq "$(cut -f5,6 "$tmp/store/kdump-taken" | sort)" \
	"$(printf '%s\t202612072201\n%s\t202612072206\n' "$id" "$big" | sort)"

case=rerun
archive
check "exit status" eq "$rc" 0
check "no new crash" eq "$(crashes)" 2
check "no new entry" eq "$(entries)" 2

case=renamed
mv "$tmp/crash/202612072201" "$tmp/crash/renamed"
archive
check "no new crash" eq "$(crashes)" 2
check "no new entry" eq "$(entries)" 2

# Retention, or pstorectl delete, removed the crash: the dump, which stays
# in /var/crash, is not taken again.
case=deleted
"$PSTORECTL" --store-dir="$tmp/store" delete "$id" >/dev/null 2>&1
archive
check "exit status" eq "$rc" 0
check "not taken again" eq "$(crashes)" 1
check "no new entry" eq "$(entries)" 2

# The record lost: the dump still in the store is found there; the deleted
# one is taken again, as a record in pstore would be.
case=record-lost
rm "$tmp/store/kdump-taken"
archive
check "exit status" eq "$rc" 0
check "one found in the store, the deleted one back" eq "$(crashes)" 2
check "an entry for the one back" eq "$(entries)" 3
check "recorded again" eq "$(wc -l <"$tmp/store/kdump-taken")" 2

case=completed
mv "$tmp/crash/202612072202/dump-incomplete" "$tmp/crash/202612072202/dump.202612072202"
archive
check "the dump once whole" eq "$(crashes)" 3
check "its entry" eq "$(entries)" 4

case=new-dump
dump 202612080900
archive
check "a new dump after" eq "$(crashes)" 4
check "its entry" eq "$(entries)" 5
check "nothing removed below KdumpDir=" eq "$(ls "$tmp/crash" | wc -l)" 8

# Killed (a power cut, as far as the process goes) before each step of taking
# a dump: the next run takes it exactly once, with one journal entry.
stamp=202612081000
for step in storing "the journal entry"; do
	case="killed before $step"
	stamp=$((stamp + 1))
	dump $stamp
	crashes_before=$(crashes) entries_before=$(entries)
	PSTORED_TEST_STEP_DELAY=30s "$PSTORED" archive --config="$tmp/pstored.conf" \
		--pstore-dir="$tmp/pstore" --store-dir="$tmp/store" >"$tmp/out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && ! grep -q "before $step" "$tmp/out"; do sleep 0.1; done
	kill -KILL "$pid"
	wait "$pid" || true
	check "not yet recorded as taken" eval "! grep -q '	$stamp	' '$tmp/store/kdump-taken'"
	archive
	check "exit status" eq "$rc" 0
	check "the dump once in the store" eq "$(crashes)" $((crashes_before + 1))
	check "its entry once" eq "$(entries)" $((entries_before + 1))
	check "recorded as taken" grep -q "	$stamp	" "$tmp/store/kdump-taken"
	archive
	check "rerun: nothing new" eq "$(crashes)/$(entries)" \
		"$((crashes_before + 1))/$((entries_before + 1))"
done

# The same panic in pstore (crash_kexec_post_notifiers) and in kdump: the
# kdump dmesg holds the lines of the pstore record, at the same times.
setup erst-multipart
case=same-panic
rm -rf "$tmp/crash"
mkdir -p "$tmp/crash/202612072301"
python3 - "$tmp/orig" >"$tmp/crash/202612072301/dmesg.202612072301" <<'EOF'
import os, sys
parts = sorted(os.listdir(sys.argv[1]), reverse=True)
for p in parts:
    for line in open(os.path.join(sys.argv[1], p), errors="replace").read().splitlines()[1:]:
        print(line[3:] if line.startswith("<") else line)
EOF
printf 'KDUMP   ' >"$tmp/crash/202612072301/dump.202612072301"
touch -r "$tmp/pstore/$(ls "$tmp/pstore" | head -n 1)" "$tmp/crash/202612072301/dmesg.202612072301"
before=$(tree_sum)
archive
check "exit status" eq "$rc" 0
check "one crash" eq "$(crashes)" 1
check "one journal entry" eq "$(entries)" 1
check "pstore erased" eq "$(ls "$tmp/pstore" | wc -l)" 0
check "nothing below KdumpDir= changed" eq "$(tree_sum)" "$before"
doc=$(echo "$tmp"/store/*/crash.json)
check "both sources" eq "$(jq -c '[.sources, .backend, .kdump.dmesg, [.records[].name | sub("-[0-9]+$"; "")]]' "$doc")" \
	'[["pstore","kdump"],"erst","dmesg.202612072301",["dmesg-erst","dmesg-erst","dmesg-erst"]]'
check "PSTORE_SOURCES of the entry" eq "$(field PSTORE_SOURCES)" "pstore kdump"
check "PSTORE_VMCORE of the entry" eq "$(field PSTORE_VMCORE)" "$tmp/crash/202612072301/dump.202612072301"
"$PSTORECTL" --store-dir="$tmp/store" export "$(jq -r .id "$doc")" >"$tmp/export.json"
check "the exported document is valid" "$top_srcdir/tests/lib/validate-document" \
	"$top_srcdir/lib/upload/crash-document.schema.json" "$tmp/export.json"
"$PSTORECTL" --store-dir="$tmp/store" show "$(jq -r .id "$doc")" 2>/dev/null |
	grep -E '^ +(Backend|Sources|Vmcore):' >"$tmp/show"
journald_sync
"$PSTORECTL" --journal show "$(jq -r .id "$doc")" 2>/dev/null |
	grep -E '^ +(Backend|Sources|Vmcore):' >"$tmp/show-journal"
check "pstorectl show: both sources, the vmcore" eq "$(cat "$tmp/show")" \
	"      Backend: erst
      Sources: pstore, kdump
       Vmcore: $tmp/crash/202612072301/dump.202612072301 (open with crash(8))"
check "pstorectl --journal show: the same" eq "$(cat "$tmp/show-journal")" "$(cat "$tmp/show")"
check "taken as that crash" eq "$(cut -f5 "$tmp/store/kdump-taken")" "$(jq -r .id "$doc")"
archive
check "rerun: still one crash" eq "$(crashes)" 1
check "rerun: still one entry" eq "$(entries)" 1

# The pstore crash archived by an earlier run (Kdump=no then): the dump
# joins the stored crash, and sends no entry of its own.
setup erst-multipart
case=same-panic-later
printf '[Archive]\nKdump=no\nKdumpDir=%s\n' "$tmp/crash" >"$tmp/off.conf"
"$PSTORED" archive --config="$tmp/off.conf" --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" >/dev/null 2>&1
check "Kdump=no: the dump is not taken" eq "$(jq -c .sources "$tmp"/store/*/crash.json)" null
archive
check "exit status" eq "$rc" 0
check "still one crash" eq "$(crashes)" 1
check "still one entry" eq "$(entries)" 1
check "both sources" eq "$(jq -c .sources "$tmp"/store/*/crash.json)" '["pstore","kdump"]'

# The dump directory that kdump-tools wrote in the guest of the boot test
# (tests/fixtures/kdump/README.md), its vmcore cut to its first 4096 bytes.
setup erst-multipart
case=fixture
rm -rf "$tmp/crash" "$tmp/pstore"/*
mkdir "$tmp/crash"
cp -a "$top_srcdir/tests/fixtures/kdump/202612072244" "$tmp/crash/"
before=$(tree_sum)
archive
check "exit status" eq "$rc" 0
check "one crash" eq "$(crashes)" 1
check "one entry" eq "$(entries)" 1
check "nothing below KdumpDir= changed" eq "$(tree_sum)" "$before"
doc=$(echo "$tmp"/store/*/crash.json)
check "crash.json" eq "$(jq -c '[.kind, .reason, .sources, .analysis.message, .analysis.function, .analysis.kernel_version, .analysis.comm, .kdump.vmcore_format, .records[0].size]' "$doc")" \
	'["kernel-crash","panic",["kdump"],"Kernel panic - not syncing: sysrq triggered crash","sysrq_handle_crash","6.1.0-50-amd64","pstored-system-","flattened",38048]'
check "MESSAGE" eq "$(field MESSAGE)" \
	"Kernel panic in a previous boot: Kernel panic - not syncing: sysrq triggered crash in sysrq_handle_crash, saved by kdump in $tmp/crash/202612072244; see 'pstorectl show $(jq -r .id "$doc" | cut -c1-8)'"
"$PSTORECTL" --store-dir="$tmp/store" show 2>/dev/null | grep -E '^ +Vmcore:' >"$tmp/show"
check "pstorectl show: how crash(8) opens the flattened vmcore" eq "$(cat "$tmp/show")" \
	"       Vmcore: $tmp/crash/202612072244/dump.202612072244 (flattened: 'makedumpfile -R VMCORE < FILE' makes what crash(8) opens)"

rm -rf "$tmp"
checks_done
