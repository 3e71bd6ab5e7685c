#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstored archive against a real systemd-journald: every fixture of
# tests/pstore/make-pstore goes into a fresh store; the journal entries are
# read back with journalctl and checked field by field.
set -eu
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

PSTORED=$top_builddir/daemon/pstored
MAKE_PSTORE=$top_srcdir/tests/pstore/make-pstore
KERNEL_CRASH=c55ba87f78104684bc1951566a609be3
HARDWARE_ERROR=ca7a7c717ad840c59aed31ea301d3f63
PREVIOUS_BOOT_LOG=ecb218b009524843b5f7e5aa27d20e51
tmp=$(mktemp -d /tmp/test-archive.XXXXXX)
. "$top_srcdir/tests/lib/checks.sh"

. "$top_srcdir/tests/lib/pstore-case.sh"
archive() { # archive [OPTIONS...]: runs pstored, output in $tmp/out, status in $rc
	rc=0
	"$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" "$@" \
		>"$tmp/out" 2>&1 || rc=$?
}
crashes() { find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | wc -l; }
left() { find "$tmp/pstore" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
entries() { journald_count SYSLOG_IDENTIFIER=pstored "$@"; }
field() { journald_field "$1" SYSLOG_IDENTIFIER=pstored "${@:2}"; }
records_identical() { # every record in the store is byte for byte the original
	local f
	for f in "$tmp"/store/*/records/*; do
		cmp -s "$f" "$tmp/orig/$(basename "$f")" || { echo "  $f differs" >&2; return 1; }
	done
}

setup erst-multipart
archive --config=/dev/null
check "exit status" eq "$rc" 0
check "one crash stored" eq "$(crashes)" 1
check "pstore erased" eq "$(left)" 0
check "one journal entry" eq "$(entries)" 1
check "kernel crash MESSAGE_ID" eq "$(entries MESSAGE_ID=$KERNEL_CRASH)" 1
id=$(basename "$(find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*')")
check "PSTORE_CRASH_ID is the store directory" eq "$(field PSTORE_CRASH_ID)" "$id"
check "PSTORE_BACKEND" eq "$(field PSTORE_BACKEND)" erst
check "PSTORE_DUMP_REASON" eq "$(field PSTORE_DUMP_REASON)" Panic
check "PRIORITY of a panic" eq "$(field PRIORITY)" 2
check "PSTORE_RECORDS lists all parts" eq "$(field PSTORE_RECORDS | wc -w)" 3
field PSTORE_DMESG >"$tmp/dmesg"
check "PSTORE_DMESG holds the whole log" grep -q 'erst line 300$' "$tmp/dmesg"
check "PSTORE_DMESG without part headers" eval '! grep -q "^Panic#1 Part" "$tmp/dmesg"'
check "PSTORE_DMESG equals dmesg.txt" cmp -s "$tmp/dmesg" <(cat "$tmp/store/$id/dmesg.txt"; echo)
check "records byte for byte" records_identical
check "crash.json kind" eq "$(jq -r .kind "$tmp/store/$id/crash.json")" kernel-crash
check "crash.json lists 3 records with sha256" \
	eq "$(jq -r '[.records[].sha256 | length] | join(",")' "$tmp/store/$id/crash.json")" 64,64,64
check "store is private, open below" eq "$(stat -c %a "$tmp/store" "$tmp/store/$id" "$tmp/store/$id/crash.json" | xargs)" "700 750 640"
check "MESSAGE readable" grep -q "Kernel panic in a previous boot" <(field MESSAGE)
check "analysis reason" eq "$(jq -r .reason "$tmp/store/$id/crash.json")" panic
check "pstore_reason kept" eq "$(jq -r .pstore_reason "$tmp/store/$id/crash.json")" Panic
check "analysis function" eq "$(jq -r .analysis.function "$tmp/store/$id/crash.json")" sysrq_handle_crash
check "analysis signature" eq "$(jq -r '.analysis.signature | length' "$tmp/store/$id/crash.json")" 32
check "analysis kernel_version" eq "$(jq -r .analysis.kernel_version "$tmp/store/$id/crash.json")" 6.1.0-27-amd64
check "analysis comm/pid" eq "$(jq -r '"\(.analysis.comm)/\(.analysis.pid)"' "$tmp/store/$id/crash.json")" bash/321
check "KERNEL_VERSION" eq "$(field KERNEL_VERSION)" 6.1.0-27-amd64
check "CRASH_SIGNATURE equals crash.json" eq "$(field CRASH_SIGNATURE)" "$(jq -r .analysis.signature "$tmp/store/$id/crash.json")"
check "CRASH_FUNCTION" eq "$(field CRASH_FUNCTION)" sysrq_handle_crash
check "MESSAGE names the function" grep -q "sysrq_handle_crash" <(field MESSAGE)

# The same records again (as with Unlink=no, or a rerun): nothing new anywhere.
cp -a "$tmp/orig/." "$tmp/pstore/"
archive --config=/dev/null --no-unlink
check "rerun: exit status" eq "$rc" 0
check "rerun: still one crash" eq "$(crashes)" 1
check "rerun: still one journal entry" eq "$(entries)" 1
check "--no-unlink keeps records" eq "$(left)" 3
archive --config=/dev/null
check "rerun with unlink: one entry" eq "$(entries)" 1
check "rerun with unlink: erased" eq "$(left)" 0

setup efi-multipart
archive --config=/dev/null
check "exit status" eq "$rc" 0
check "one crash" eq "$(crashes)" 1
check "PSTORE_BACKEND" eq "$(field PSTORE_BACKEND)" efi
check "PSTORE_DUMP_REASON" eq "$(field PSTORE_DUMP_REASON)" Oops
check "PRIORITY of an oops" eq "$(field PRIORITY)" 3
check "an oops dump stays an oops" eq "$(jq -r .reason "$tmp"/store/*/crash.json)" oops

setup two-boots
archive --config=/dev/null
check "two crashes" eq "$(crashes)" 2
check "two entries" eq "$(entries)" 2
check "boot1 and boot2 apart" eq "$(field PSTORE_DMESG | grep -c 'boot[12] line 1$')" 2
for d in "$tmp"/store/*/; do
	check "one boot per crash" eq "$(grep -o 'boot[12] line' "$d/dmesg.txt" | sort -u | wc -l)" 1
done
check "same bug, same signature on both boots" \
	eq "$(jq -r .analysis.signature "$tmp"/store/*/crash.json | sort -u | grep -c '^[0-9a-f]\{32\}$')" 1
check "same signature in both journal entries" \
	eq "$(field CRASH_SIGNATURE | sort -u | grep -c '^[0-9a-f]\{32\}$')" 1

setup missing-parts
archive --config=/dev/null
check "PSTORE_PARTS_MISSING" eq "$(field PSTORE_PARTS_MISSING)" 2
check "marker in dmesg.txt" grep -q '^<missing part 2>$' "$tmp"/store/*/dmesg.txt
check "complete=false" eq "$(jq -r .complete "$tmp"/store/*/crash.json)" false

setup compressed
archive --config=/dev/null
check "exit status" eq "$rc" 0
check "inflated into dmesg.txt" grep -q 'zip line 200$' "$tmp"/store/*/dmesg.txt
check ".enc.z kept raw" records_identical
check "compressed flag" eq "$(jq -r '[.records[] | select(.compressed)] | length' "$tmp"/store/*/crash.json)" 1

setup ramoops-logs
archive --config=/dev/null
check "logs go with the crash" eq "$(crashes)" 1
check "one entry" eq "$(entries)" 1
check "console and pmsg listed" eq "$(jq -r '.logs | join(" ")' "$tmp"/store/*/crash.json)" "console-ramoops-0 pmsg-ramoops-0"
check "PSTORE_RECORDS" eq "$(field PSTORE_RECORDS)" "dmesg-ramoops-0 console-ramoops-0 pmsg-ramoops-0"
check "records byte for byte" records_identical

setup logs-alone
archive --config=/dev/null
check "logs on their own" eq "$(crashes)" 2
check "previous-boot-log MESSAGE_ID" eq "$(entries MESSAGE_ID=$PREVIOUS_BOOT_LOG)" 2
check "PRIORITY info" eq "$(field PRIORITY | sort -u)" 6

setup logs-alone
printf '[Archive]\nKeepConsole=no\n' >"$tmp/keep.conf"
archive --config="$tmp/keep.conf"
check "KeepConsole=no: exit status" eq "$rc" 0
check "KeepConsole=no: nothing stored" eq "$(crashes)" 0
check "KeepConsole=no: nothing journaled" eq "$(entries)" 0
check "KeepConsole=no: dropped from pstore" eq "$(left)" 0

setup mce
archive --config=/dev/null
check "exit status" eq "$rc" 0
check "hardware error MESSAGE_ID" eq "$(entries MESSAGE_ID=$HARDWARE_ERROR)" 1
check "PSTORE_SEVERITY" eq "$(field PSTORE_SEVERITY)" fatal
check "PRIORITY of a fatal error" eq "$(field PRIORITY)" 2
check "decoded text" grep -q 'Machine Check' <(field PSTORE_DMESG)
check "crash.json hardware_error" eq "$(jq -r .hardware_error.mce.bank "$tmp"/store/*/crash.json)" 4
check "one-line summary in crash.json" grep -q '^Uncorrected machine check on CPU 0, bank 4: ' \
	<(jq -r .analysis.message "$tmp"/store/*/crash.json)
check "summary in MESSAGE" grep -q 'of a previous boot: Uncorrected machine check' <(field MESSAGE)

setup shutdown-then-panic
archive --config=/dev/null
check "two crashes" eq "$(crashes)" 2
check "Oops#1 and Panic#2: one kernel crash" eq "$(entries MESSAGE_ID=$KERNEL_CRASH)" 1
check "a shutdown log" eq "$(entries MESSAGE_ID=$PREVIOUS_BOOT_LOG)" 1

# Two deaths that the kernel dumped twice each (Oops#1, then Panic#2 a second
# later), then an oops survived and a panic ten minutes after it.
setup oops-then-panic
archive --config=/dev/null
check "exit status" eq "$rc" 0
check "a crash per death, not per dump" eq "$(crashes)" 4
check "one journal entry per crash" eq "$(entries)" 4
check "pstore erased" eq "$(left)" 0
check "reasons, oldest first" eq "$(field PSTORE_REASON | xargs)" "oops bug oops panic"
check "dump reason of the first dump" eq "$(field PSTORE_DUMP_REASON | xargs)" "Oops Oops Oops Panic"
check "faulting functions" eq "$(field CRASH_FUNCTION | xargs)" \
	"crashtest_null_deref crashtest_bug crashtest_null_deref sysrq_handle_crash"
check "PRIORITY by reason" eq "$(field PRIORITY | xargs)" "3 3 3 2"
check "records byte for byte" records_identical
joined=0
for d in "$tmp"/store/*/; do
	[ "$(jq '.records | length' "$d/crash.json")" -eq 4 ] || continue
	joined=$((joined + 1))
	check "both dumps stored" eq "$(ls "$d/records" | wc -l)" 4
	check "pstore_reason and dump_count of the oops" \
		eq "$(jq -r '"\(.pstore_reason)#\(.dump_count)"' "$d/crash.json")" "Oops#1"
	check "the report once in dmesg.txt" eq "$(grep -c 'Oops: 0002\|kernel BUG at' "$d/dmesg.txt")" 1
	check "the panic in dmesg.txt" eq "$(grep -c 'Kernel panic - not syncing: Fatal exception$' "$d/dmesg.txt")" 1
	check "no line twice in dmesg.txt" eq "$(sort "$d/dmesg.txt" | uniq -d | wc -l)" 0
done
check "two crashes of two dumps" eq "$joined" 2
# Again, as with Unlink=no: nothing new.
cp -a "$tmp/orig/." "$tmp/pstore/"
archive --config=/dev/null --no-unlink
check "rerun: still four crashes" eq "$(crashes)" 4
check "rerun: still four entries" eq "$(entries)" 4
# A run cut short while erasing the first crash left its key, the Panic dump's
# Part1 (the third record of the first boot), and nothing else: it is the same crash.
rm -f "$tmp"/pstore/*
cp -a "$tmp/orig/$(ls "$tmp/orig" | sed -n 3p)" "$tmp/pstore/"
check "the key is the Panic dump's Part1" eq "$(head -n 1 "$tmp"/pstore/*)" "Panic#2 Part1"
archive --config=/dev/null
check "cut short: exit status" eq "$rc" 0
check "cut short: still four crashes" eq "$(crashes)" 4
check "cut short: still four entries" eq "$(entries)" 4
check "cut short: key erased" eq "$(left)" 0

# ERST ran full after the Oops dump: the whole Oops dump makes the log.
setup oops-then-cut-panic
archive --config=/dev/null
check "one crash" eq "$(crashes)" 1
check "one entry" eq "$(entries)" 1
check "reason" eq "$(field PSTORE_REASON)" oops
check "the whole oops dump in dmesg.txt" grep -q 'cut line 1$' "$tmp"/store/*/dmesg.txt
check "three records" eq "$(jq '.records | length' "$tmp"/store/*/crash.json)" 3

setup bad-input
archive --config=/dev/null
check "bad input: non-zero exit" eq "$rc" 1
check "bad input: good and corrupt records archived" eq "$(crashes)" 6
check "bad input: huge, symlink, fifo, dir, name not UTF-8 left" eq "$(left)" 5
check "huge record message" grep -q 'more than MaxRecordSize=1048576; left in pstore (raise MaxRecordSize=' "$tmp/out"
check "corrupt .enc.z stored as it is" cmp -s "$tmp"/store/*/records/dmesg-erst-7578827135071027254.enc.z \
	"$tmp/orig/dmesg-erst-7578827135071027254.enc.z"
check "corrupt .enc.z said in crash.json" grep -qx \
	'dmesg-erst-7578827135071027254.enc.z does not inflate: it is stored as it is, not in the log' \
	<(jq -r '.truncated[]' "$tmp"/store/*/crash.json)
check "bad input: every crash has a dmesg.txt, the empty records an empty one" \
	eq "$(find "$tmp"/store/*/dmesg.txt | wc -l)/$(find "$tmp"/store/*/dmesg.txt -empty | wc -l)" 6/4
check "name not UTF-8 message" grep -q 'dmesg-erst-\\xff7578827135071027262: name not valid UTF-8, not a pstore record; skipped' "$tmp/out"
check "symlink message" grep -q '7578827135071027260: symbolic link, not a pstore record; skipped' "$tmp/out"
check "symlink target untouched" test -e /etc/passwd
check "stray file archived as it is" grep -q 'README: not a pstore record name; archiving it as it is' "$tmp/out"
check "records byte for byte" records_identical
printf '[Archive]\nMaxRecordSize=4M\n' >"$tmp/big.conf"
archive --config="$tmp/big.conf"
check "MaxRecordSize=4M takes the huge record" eq "$(crashes)" 7

# A console log larger than MaxRecordSize= stays in pstore on its own; the
# crash it would go with is archived and erased all the same.
setup ramoops-log-huge
archive --config=/dev/null
check "huge console log: non-zero exit" eq "$rc" 1
check "huge console log: the crash archived" eq "$(crashes)" 1
check "huge console log: only the log left" eq "$(ls "$tmp/pstore")" console-ramoops-0
check "huge console log: message" grep -q 'console-ramoops-0: record is 2097152 bytes, more than MaxRecordSize=1048576' "$tmp/out"

# A pstore entry named like a file of the store is archived below records/,
# like any other.
setup erst-multipart
printf 'not a crash.json\n' >"$tmp/pstore/crash.json"
cp -a "$tmp/pstore/crash.json" "$tmp/orig/"
archive --config=/dev/null
check "crash.json in pstore: exit status" eq "$rc" 0
check "crash.json in pstore: archived" eq "$(crashes)" 2
check "crash.json in pstore: stored as it is" cmp -s "$tmp"/store/*/records/crash.json "$tmp/orig/crash.json"
check "crash.json in pstore: erased" eq "$(left)" 0

# A hard link (pstore has none) to a file from elsewhere is skipped, not
# copied into the store.
setup erst-multipart
rm "$tmp"/pstore/*
printf 'secret\n' >"$tmp/secret"
ln "$tmp/secret" "$tmp/pstore/dmesg-erst-7000000000000000001"
archive --config=/dev/null
check "hard link: message" grep -q "dmesg-erst-7000000000000000001: hard link, not a pstore record; skipped" "$tmp/out"
check "hard link: left alone" eq "$(find "$tmp/pstore" -mindepth 1 -printf '%f %n\n')" "dmesg-erst-7000000000000000001 2"
check "hard link: not in the store" eval '! grep -rqx secret "$tmp/store"'

# FIFOs where the store's files go (at index, and where an earlier version put
# the temporary file of last-archive.json): the run neither blocks nor fails.
setup erst-multipart
mkdir -m 0700 "$tmp/store"
mkfifo "$tmp/store/last-archive.json.tmp" "$tmp/store/index"
rc=0
timeout 60 "$PSTORED" archive --config=/dev/null --pstore-dir="$tmp/pstore" \
	--store-dir="$tmp/store" >"$tmp/out" 2>&1 || rc=$?
check "FIFOs in the store: exit status" eq "$rc" 0
check "FIFOs in the store: archived" eq "$(crashes)" 1
check "FIFOs in the store: the index replaced, the other left alone" \
	eq "$(find "$tmp/store" -maxdepth 1 -type p -printf '%f\n')" last-archive.json.tmp
check "FIFOs in the store: run recorded" jq -e '.result == "success"' "$tmp/store/last-archive.json"

# A store that others could write to (and plant crashes in) is refused.
setup erst-multipart
mkdir -m 0777 "$tmp/store"
archive --config=/dev/null
check "unsafe store: exit status" eq "$rc" 1
check "unsafe store: message" grep -qF "$tmp/store: refusing an unsafe crash store: it must be owned by root (or by the user running pstored) and not be writable by group or others; the records stay in $tmp/pstore: fix it with 'chown root: $tmp/store' and 'chmod go-w $tmp/store', see pstored-store(5)." "$tmp/out"
check "unsafe store: records stay" eq "$(left)" 3
check "unsafe store: nothing stored" eq "$(find "$tmp/store" -mindepth 1 | wc -l)" 0
chmod 0700 "$tmp/store"
chown 65534 "$tmp/store"
archive --config=/dev/null
check "store of another user: exit status" eq "$rc" 1
check "store of another user: records stay" eq "$(left)" 3

setup erst-multipart
printf '[Archive]\nStorage=journal\n' >"$tmp/journal.conf"
archive --config="$tmp/journal.conf"
check "Storage=journal: exit status" eq "$rc" 0
check "Storage=journal: no store" test ! -e "$tmp/store"
check "Storage=journal: one entry" eq "$(entries)" 1
cp -a "$tmp/orig/." "$tmp/pstore/"
archive --config="$tmp/journal.conf"
check "Storage=journal: rerun finds the entry" eq "$(entries)" 1

# Records that grow and shrink between the listing and the reading (as a
# test can make them; the kernel's never change): what is stored is what was
# read, and crash.json says its size and sha256.
setup erst-multipart
rc=0
PSTORED_TEST_STEP_DELAY=1s "$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$tmp/store" \
	--config=/dev/null >"$tmp/out" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null && ! grep -q 'before storing' "$tmp/out"; do sleep 0.1; done
parts=($(ls "$tmp/pstore" | sort))
printf '<4>[  100.000018] grown while read\n' >>"$tmp/pstore/${parts[2]}"
truncate -s 40 "$tmp/pstore/${parts[1]}"
cp "$tmp/pstore/${parts[1]}" "$tmp/pstore/${parts[2]}" "$tmp/"
wait "$pid" || rc=$?
id=$(basename "$(find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*')")
check "records changed while read: exit status" eq "$rc" 0
check "records changed while read: erased" eq "$(left)" 0
stored_as_read() {
	cmp -s "$tmp/${parts[1]}" "$tmp/store/$id/records/${parts[1]}" &&
		cmp -s "$tmp/${parts[2]}" "$tmp/store/$id/records/${parts[2]}"
}
check "records changed while read: stored as read" stored_as_read
check "records changed while read: crash.json says their size and sha256" \
	eq "$(jq -r '.records[] | "\(.name) \(.size) \(.sha256)"' "$tmp/store/$id/crash.json" | sort)" \
	"$(cd "$tmp/store/$id/records" && for f in *; do echo "$f $(stat -c %s "$f") $(sha256sum <"$f" | cut -d' ' -f1)"; done | sort)"

# A stored crash whose dmesg.txt went missing before it was journaled: its
# records stay, rather than go with an entry that has no log.
setup erst-multipart
archive --config=/dev/null --no-journal --no-unlink
id=$(basename "$(find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*')")
rm "$tmp/store/$id/dmesg.txt"
archive --config=/dev/null
check "stored crash without dmesg.txt: exit status" eq "$rc" 1
check "stored crash without dmesg.txt: records stay" eq "$(left)" 3
check "stored crash without dmesg.txt: no entry" eq "$(entries)" 0
check "stored crash without dmesg.txt: says what to do" grep -qF \
	"pstored: $tmp/store/$id/dmesg.txt: missing, the crash was damaged or removed meanwhile; its records stay in pstore: delete the crash with 'pstorectl delete $id' and run 'pstored archive' again to archive it anew" "$tmp/out"

setup erst-multipart
printf '[Archive]\nStorage=store\n' >"$tmp/store.conf"
archive --config="$tmp/store.conf"
check "Storage=store: stored" eq "$(crashes)" 1
check "Storage=store: no entry" eq "$(entries)" 0

setup erst-multipart
archive --config=/dev/null --no-journal --no-unlink
check "--no-journal: stored" eq "$(crashes)" 1
check "--no-journal: no entry" eq "$(entries)" 0
check "--no-unlink: kept" eq "$(left)" 3

# A mistake in the configuration is a warning: the boot's crashes are archived all the same.
setup erst-multipart
printf '[Archive]\nUnlnk=no\nMaxRecordSize=lots\n[Target.t]\nType=http-json\n' >"$tmp/bad.conf"
archive --config="$tmp/bad.conf"
check "bad config: exit status" eq "$rc" 0
check "bad config: archived all the same" eq "$(crashes)" 1
check "bad config: one journal entry" eq "$(entries)" 1
check "bad config: pstore erased" eq "$(left)" 0
check "bad config: unknown key named with file and line" grep -qxF \
	"pstored: $tmp/bad.conf:2: unknown key 'Unlnk' in section [Archive]; line ignored" "$tmp/out"
check "bad config: bad value named with file, line and the default" grep -qxF \
	"pstored: $tmp/bad.conf:3: invalid value 'lots' for key 'MaxRecordSize' in section [Archive]: expected a size in bytes greater than 0, like 512K or 1M (K, M, G, T are powers of 1024); line ignored, MaxRecordSize= keeps its previous value (default 1M)" \
	"$tmp/out"
check "bad config: incomplete target disabled" grep -qxF \
	"pstored: $tmp/bad.conf:4: [Target.t] has no URL=; [Target.t] disabled" "$tmp/out"

# Only a file named on the command line that cannot be read stops the run.
setup erst-multipart
archive --config="$tmp/nonexistent.conf"
check "missing --config: exit status" eq "$rc" 1
check "missing --config: names the file" grep -qF \
	"Failed to load the configuration: $tmp/nonexistent.conf: No such file or directory (see pstored.conf(5))" \
	"$tmp/out"
check "missing --config: records stay" eq "$(left)" 3

# A record whose name and log hold ESC, BEL, a newline and C1 CSI (issue 24,
# finding 4). pstored's messages go to stderr, which systemd makes a journal
# stream, one entry per line (systemd-cat does the same here): the record name
# must neither forge an entry nor bring control characters. The crash's own
# entry quotes the backend (part of the name) and the panic message in MESSAGE.
setup erst-multipart
rm -f "$tmp"/pstore/* "$tmp"/orig/*
name=$'dmesg-evil\e]0;owned\a\npstored: forged line\xc2\x9b?25l-1'
printf '%s\n' 'Panic#1 Part1' \
	'<6>[    0.000000] Linux version 6.1.0-27-amd64 (debian-kernel@lists.debian.org) #1 SMP' \
	$'<0>[  100.000002] Kernel panic - not syncing: evil \e[2J\xc2\x9b?25l here' \
	'<4>[  100.000005] Call Trace:' \
	'<4>[  100.000008]  panic+0x118/0x2ed' \
	'<4>[  100.000009]  sysrq_handle_crash+0x16/0x20' >"$tmp/orig/$name"
cp -a "$tmp/orig/." "$tmp/pstore/"
rc=0
systemd-cat -t pstored-stderr "$PSTORED" archive --pstore-dir="$tmp/pstore" \
	--store-dir="$tmp/store" --config=/dev/null || rc=$?
check "control characters: exit status" eq "$rc" 0
check "control characters: archived" eq "$(crashes)" 1
id=$(basename "$(find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*')")
# messages MATCH...: the MESSAGE of each matching entry as JSON, a string if
# journalctl finds it printable (else an array of bytes).
messages() {
	journald_sync
	journalctl --no-pager -q --all -o json --output-fields=MESSAGE "$@" | jq -c .MESSAGE
}
messages SYSLOG_IDENTIFIER=pstored-stderr >"$tmp/stderr.json"
messages SYSLOG_IDENTIFIER=pstored >"$tmp/message.json"
printable='type == "string" and (test("[\u0000-\u001f\u007f-\u009f]") | not)'
check "pstored's stderr reached the journal" test -s "$tmp/stderr.json"
check "pstored's messages: printable, no control character" \
	eq "$(jq "select(($printable) | not)" "$tmp/stderr.json")" ""
check "pstored's messages: no forged entry" \
	eq "$(jq -r 'select(type == "string" and test("^(pstored: )?forged"))' "$tmp/stderr.json")" ""
check "pstored's messages: the record named in one entry, escaped" \
	eq "$(jq -r 'select(type == "string")' "$tmp/stderr.json" |
		grep -cF '(1 record from dmesg-evil\x1b]0;owned\a\npstored: forged line\u009b?25l-1).')" 1
check "crash MESSAGE: printable, no control character" \
	eq "$(jq "select(($printable) | not)" "$tmp/message.json")" ""
check "crash MESSAGE: the panic message and backend escaped" eq "$(jq -r . "$tmp/message.json")" \
	'Kernel panic in a previous boot: Kernel panic - not syncing: evil ??25l here in sysrq_handle_crash, saved from evil\x1b]0;owned\a\npstored: forged line\u009b?25l pstore (1 record); see '"'pstorectl show ${id:0:8}'"
check "control characters: PSTORE_BACKEND as in the name" eq "$(field PSTORE_BACKEND)" \
	$'evil\e]0;owned\a\npstored: forged line\xc2\x9b?25l'

# The build ids of the running kernel and of the modules in the trace, from a sysfs of the
# test's own: vmlinux's notes after a Xen note, as /sys/kernel/notes has them, and one module's.
# note NAME TYPE HEX: one ELF note in this machine's byte order.
note() {
	python3 -c 'import struct, sys
name = sys.argv[1].encode() + b"\0"; desc = bytes.fromhex(sys.argv[3]); pad = lambda b: b + bytes(-len(b) % 4)
sys.stdout.buffer.write(struct.pack("=III", len(name), len(desc), int(sys.argv[2])) + pad(name) + pad(desc))' "$@"
}
VMLINUX_ID=0123456789abcdef0123456789abcdef01234567
MODULE_ID=fedcba9876543210fedcba9876543210fedcba98
setup running-kernel-oops
mkdir -p "$tmp/sys/kernel" "$tmp/sys/module/pstored_crashtest/notes" "$tmp/sys/module/erst_pstore/notes"
{ note Xen 6 0102030405060708; note GNU 3 "$VMLINUX_ID"; } >"$tmp/sys/kernel/notes"
note GNU 3 "$MODULE_ID" >"$tmp/sys/module/pstored_crashtest/notes/.note.gnu.build-id"
note GNU 3 "$VMLINUX_ID" >"$tmp/sys/module/erst_pstore/notes/.note.gnu.build-id"
archive --config=/dev/null --sysfs-dir="$tmp/sys"
check "build ids: exit status" eq "$rc" 0
check "build ids: vmlinux's and the module's in the trace, not the others" \
	eq "$(jq -cS .build_ids "$tmp"/store/*/crash.json)" \
	'{"modules":{"pstored_crashtest":"'$MODULE_ID'"},"vmlinux":"'$VMLINUX_ID'"}'
check "build ids: KERNEL_BUILD_ID" eq "$(field KERNEL_BUILD_ID)" "$VMLINUX_ID"
check "build ids: KERNEL_MODULE_BUILD_IDS" eq "$(field KERNEL_MODULE_BUILD_IDS)" \
	"pstored_crashtest=$MODULE_ID"
check "build ids: KERNEL_PACKAGE" eq "$(field KERNEL_PACKAGE)" "Debian 6.1.115-1"
"$top_builddir/cli/pstorectl" --store-dir="$tmp/store" export "$(basename "$tmp"/store/*-*)" \
	>"$tmp/export.json"
check "build ids: the exported document is valid" "$top_srcdir/tests/lib/validate-document" \
	"$top_srcdir/lib/upload/crash-document.schema.json" "$tmp/export.json"

# Hostile notes: cut, a wrong name size, a huge descriptor size, a planted symlink, a file
# past the bound: no build id from any, and the crash archived all the same.
setup running-kernel-oops
note GNU 3 "$VMLINUX_ID" | head -c 30 >"$tmp/sys/kernel/notes"
note GNU 3 "$MODULE_ID" | python3 -c 'import sys; b = bytearray(sys.stdin.buffer.read()); b[0] = 200; sys.stdout.buffer.write(b)' \
	>"$tmp/sys/module/pstored_crashtest/notes/.note.gnu.build-id"
archive --config=/dev/null --sysfs-dir="$tmp/sys"
check "hostile notes (cut, wrong namesz): archived" eq "$rc:$(crashes)" 0:1
check "hostile notes (cut, wrong namesz): no build ids" eq "$(jq -c .build_ids "$tmp"/store/*/crash.json)" null
setup running-kernel-oops
note GNU 3 "$VMLINUX_ID" | python3 -c 'import sys; b = bytearray(sys.stdin.buffer.read()); b[4:8] = b"\xff\xff\xff\xff"; sys.stdout.buffer.write(b)' \
	>"$tmp/sys/kernel/notes"
ln -sf /sys/kernel/notes "$tmp/sys/module/pstored_crashtest/notes/.note.gnu.build-id"
archive --config=/dev/null --sysfs-dir="$tmp/sys"
check "hostile notes (huge descsz, symlink): no build ids" eq "$rc:$(jq -c .build_ids "$tmp"/store/*/crash.json)" 0:null
setup running-kernel-oops
{ note GNU 1 "$(head -c 20000 /dev/zero | od -An -v -tx1 | tr -d ' \n')"; note GNU 3 "$VMLINUX_ID"; } >"$tmp/sys/kernel/notes"
rm -f "$tmp/sys/module/pstored_crashtest/notes/.note.gnu.build-id"
archive --config=/dev/null --sysfs-dir="$tmp/sys"
check "notes past 16 KiB: not read" eq "$rc:$(jq -c .build_ids "$tmp"/store/*/crash.json)" 0:null
# The real /sys: this kernel's own build id, when the machine shows it.
if [ -r /sys/kernel/notes ]; then
	setup running-kernel-oops
	archive --config=/dev/null
	check "build ids: the running kernel's from /sys" \
		grep -qx '"[0-9a-f]\{40\}"' <(jq .build_ids.vmlinux "$tmp"/store/*/crash.json)
fi

rm -rf "$tmp"
checks_done
