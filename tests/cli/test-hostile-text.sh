#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Text from records on a terminal (issue 24, finding 4): a record whose name
# and log hold terminal escapes (ESC, BEL), a newline that would start a
# forged line, C1 CSI (U+009B) and bytes that are not UTF-8 goes through
# pstored archive; pstorectl list, show, dmesg and decode print it escaped
# (utf8_escape()), dmesg keeping the log's own newlines and tabs, while
# --json and dmesg --raw (to a pipe only) keep it as stored.
set -u

PSTORED=$top_builddir/daemon/pstored
PSTORECTL=$top_builddir/cli/pstorectl
tmp=$(mktemp -d /tmp/test-hostile-text.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/lib/checks.sh"
store=$tmp/store
ctl() { "$PSTORECTL" --store-dir="$store" --no-pager "$@"; }
# No C0 control but newline and tab, no DEL, no C1 in UTF-8, no byte that is not UTF-8.
clean() {
	! LC_ALL=C grep -aqP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" &&
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}

name=$'dmesg-evil\e]0;owned\a\npstored: forged line\xc2\x9b?25l-1'
shown='dmesg-evil\x1b]0;owned\a\npstored: forged line\u009b?25l-1'
mkdir "$tmp/pstore"
printf '%s' 'Panic#1 Part1'$'\n' \
	$'<6>[    0.000000] Linux version 6.1.0-27-amd64 (debian-kernel@lists.debian.org) #1 SMP\n' \
	$'<6>[   10.000000] title \e]0;owned\a, CSI \xc2\x9b2J, a lone \x9b, \xc0\xaf\tand a tab\n' \
	$'<0>[  100.000002] Kernel panic - not syncing: evil \e[2J\xc2\x9b?25l here\n' \
	$'<4>[  100.000003] CPU: 0 PID: 321 Comm: bash Not tainted 6.1.0-27-amd64 #1\n' \
	$'<4>[  100.000005] Call Trace:\n' \
	$'<4>[  100.000007]  dump_stack_lvl+0x44/0x5c\n' \
	$'<4>[  100.000008]  panic+0x118/0x2ed\n' \
	$'<4>[  100.000009]  sysrq_handle_crash+0x16/0x20\n' >"$tmp/pstore/$name"
cp "$tmp/pstore/$name" "$tmp/record"

"$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$store" --no-journal \
	--config=/dev/null >"$tmp/archive.log" 2>&1
check "pstored archives the record" eq "$(find "$tmp/pstore" -type f | wc -l)" 0
check "pstored: its messages escaped" clean "$tmp/archive.log"
check "pstored: the record named on one line, escaped" \
	eq "$(grep -cF "1 record from $shown)." "$tmp/archive.log")" 1
check "pstored: no forged line" eval '! grep -q "^pstored: forged" "$tmp/archive.log"'
id=$(basename "$(find "$store" -mindepth 1 -maxdepth 1 -type d ! -name '.*')")

ctl list >"$tmp/list"
check "list exits 0" test $? -eq 0
check "list: escaped" clean "$tmp/list"
# The analysis drops a terminal's escape sequences (ESC [ ..., as dmesg --color=always
# writes them); what is left of the C1 CSI is a '?' each.
check "list: the message, each control character a '?' (the analysis)" \
	grep -qF 'Kernel panic - not syncing: evil ??25l here' "$tmp/list"
check "list: one crash, one line" eq "$(wc -l <"$tmp/list")" 4

ctl show "$id" >"$tmp/show"
check "show exits 0" test $? -eq 0
check "show: escaped" clean "$tmp/show"
check "show: the backend escaped" grep -qxF \
	'      Backend: evil\x1b]0;owned\a\npstored: forged line\u009b?25l' "$tmp/show"
check "show: the record name escaped" grep -qF "      Records: $shown, " "$tmp/show"
check "show: no forged line" eval '! grep -q "^pstored: forged" "$tmp/show"'
check "show --json: the name as stored" \
	eq "$(ctl --json show "$id" | jq -r '.records[0].name')" "$name"

# The store is trusted no more than pstore: a crash.json written by another
# hand, its index gone, is listed and shown escaped.
jq --arg m $'planted \e[2J\xc2\x9b?25l message' '.analysis.message = $m' \
	"$store/$id/crash.json" >"$tmp/crash.json"
cp "$tmp/crash.json" "$store/$id/crash.json"
rm "$store/index"
ctl list >"$tmp/list"
check "list of a planted message: escaped" clean "$tmp/list"
check "list of a planted message: in full" \
	grep -qF 'planted \x1b[2J\u009b?25l message' "$tmp/list"
ctl show "$id" >"$tmp/show"
check "show of a planted message: escaped" clean "$tmp/show"
check "show of a planted message: in full" \
	grep -qxF '      Message: planted \x1b[2J\u009b?25l message' "$tmp/show"

ctl dmesg "$id" >"$tmp/dmesg"
check "dmesg exits 0" test $? -eq 0
printf '%s\n' \
	'<6>[    0.000000] Linux version 6.1.0-27-amd64 (debian-kernel@lists.debian.org) #1 SMP' \
	$'<6>[   10.000000] title \\x1b]0;owned\\a, CSI \\u009b2J, a lone \\x9b, \\xc0\\xaf\tand a tab' \
	'<0>[  100.000002] Kernel panic - not syncing: evil \x1b[2J\u009b?25l here' \
	'<4>[  100.000003] CPU: 0 PID: 321 Comm: bash Not tainted 6.1.0-27-amd64 #1' \
	'<4>[  100.000005] Call Trace:' \
	'<4>[  100.000007]  dump_stack_lvl+0x44/0x5c' \
	'<4>[  100.000008]  panic+0x118/0x2ed' \
	'<4>[  100.000009]  sysrq_handle_crash+0x16/0x20' >"$tmp/dmesg.expected"
check "dmesg: the log escaped, its newlines and tab kept" \
	diff -u "$tmp/dmesg.expected" "$tmp/dmesg"
check "dmesg --raw to a pipe: dmesg.txt byte for byte" \
	cmp -s <(ctl dmesg --raw "$id") "$store/$id/dmesg.txt"
check "dmesg --json: the log, valid UTF-8 for JSON" \
	eq "$(ctl --json dmesg "$id" | jq -r .dmesg | grep -c 'Kernel panic - not syncing: evil')" 1

# On a terminal --raw is refused, before anything is written; without it the
# log comes escaped (through the pager, here cat).
script -qec "$PSTORECTL --store-dir=$store dmesg --raw $id" /dev/null >"$tmp/tty" 2>&1
check "dmesg --raw on a terminal: exit 1" test $? -ne 0
check "dmesg --raw on a terminal: says why and what to do" \
	grep -q -- '--raw writes the log as stored, escape sequences included: redirect it' "$tmp/tty"
check "dmesg --raw on a terminal: no log" eval '! grep -q "Kernel panic" "$tmp/tty"'
PAGER=cat script -qec "$PSTORECTL --store-dir=$store dmesg $id" /dev/null >"$tmp/tty" 2>&1
check "dmesg on a terminal: escaped" eq "$(tr -d '\r' <"$tmp/tty" | md5sum)" \
	"$(md5sum <"$tmp/dmesg.expected")"

ctl decode "$store/$id/records/$name" >"$tmp/decode"
check "decode exits 0" test $? -eq 0
check "decode: escaped" clean "$tmp/decode"
check "decode: the file name escaped" grep -qF "/records/$shown: pstore dmesg record" "$tmp/decode"
check "decode: the log escaped" grep -qxF \
	'<0>[  100.000002] Kernel panic - not syncing: evil \x1b[2J\u009b?25l here' "$tmp/decode"

# status: last-archive.json is in the store, its text as untrusted as a crash's.
jq --arg e $'cannot read \e[2J\nforged\xc2\x9b' '.error = $e' "$store/last-archive.json" >"$tmp/last.json"
mv "$tmp/last.json" "$store/last-archive.json"
ctl status --pstore-dir="$tmp/pstore" >"$tmp/status" 2>&1
check "status: escaped" clean "$tmp/status"
check "status: the last run's error escaped" \
	grep -q '^ *Last archive: .*: cannot read \\x1b\[2J\\nforged\\u009b$' "$tmp/status"

checks_done
