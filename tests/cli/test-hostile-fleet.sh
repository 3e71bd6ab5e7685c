#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstorectl on what other machines sent (pstorectl(1), SOURCES OF CRASHES),
# whose every byte is up to anyone who may store a document or send a
# journal entry (tests/cli/make-hostile-fleet makes it):
#
#  - documents: every key pstorectl reads replaced in turn by null, true, 0,
#    -1, 1e300, 2^64, the int64 limits, "", control characters, \u0000, [],
#    {} and a 10,000-deep array; the same id twice; files at and past the
#    size limit, empty, a FIFO, links, a loop, unreadable, nested too deep;
#  - journal entries, made into a journal file by systemd-journal-remote:
#    each field pstorectl reads empty, with control characters, not UTF-8,
#    with a NUL, a number too large, repeated; no crash id, a bad one, two.
#
# Every reading verb (list, its filters, --group, --json, show, dmesg,
# export) must exit 0 or 1, never on a signal (or a sanitizer's report),
# print no raw control character, still list the good crashes, and name
# each bad input in a warning or show it without its bad fields.

. "$top_srcdir/tests/upload/lib.sh"
. "$top_srcdir/tests/lib/checks.sh"
skip_unless_root
set +e

MAKE_HOSTILE=$top_srcdir/tests/cli/make-hostile-fleet
GOOD_MACHINE=f1ee7000000000000000000000000001
ctl() { "$PSTORECTL" --no-pager "$@"; }
# No C0 control but newline and tab, no DEL, no C1 in UTF-8, no byte that is not UTF-8.
clean() {
	! LC_ALL=C grep -aqP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" &&
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}

# verb_holds NAME VERB...: runs pstorectl VERB... (a reading verb and its
# source), which must exit 0 or 1 with clean output and warnings; else NAME
# and what went wrong go to $T/broken. Its output is in $T/out and $T/err.
verb_holds() {
	local name=$1 rc
	shift
	timeout 60 "$PSTORECTL" --no-pager "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "$name: pstorectl $* exited $rc: $(head -c 600 "$T/err")" >>"$T/broken"
	elif ! clean "$T/out" || ! clean "$T/err"; then
		echo "$name: pstorectl $*: a raw control character" >>"$T/broken"
	fi
	return "$rc"
}

# every_verb_holds NAME ID SOURCE...: show, show --json, dmesg and export of ID.
every_verb_holds() {
	local name=$1 id=$2
	shift 2
	verb_holds "$name" "$@" --json=short show "$id"
	verb_holds "$name" "$@" dmesg "$id"
	verb_holds "$name" "$@" export "$id"
	verb_holds "$name" "$@" show "$id"
}

# The listing verbs on SOURCE...: each holds, and each lists the ids in $T/good.
listing_holds() {
	local v
	for v in "list" "list --group" "list --host=alpha" "list --machine=$GOOD_MACHINE" \
		"--json=short list" "--json=pretty list" "--json=short list --group"; do
		# shellcheck disable=SC2086
		verb_holds "$case" "$@" $v
	done
	ctl "$@" --json=short list 2>/dev/null | jq -r '.[].id' | sort >"$T/listed"
	check "the good crashes still listed" eval '[ -z "$(comm -23 "$T/good" "$T/listed")" ]'
}

# Three good crashes of machine alpha, exported as the http-json target sends them.
case="good documents"
MAKE_CRASHES_HOSTNAME=alpha MAKE_CRASHES_MACHINE_ID=$GOOD_MACHINE make_crashes 3 | sort >"$T/good"
mkdir -p "$T/docs" "$T/hostile"
while read -r id; do
	ctl --store-dir="$STORE" export "$id" >"$T/docs/$id.json"
done <"$T/good"
good_id=$(head -n1 "$T/good")
check "three documents" eq "$(ls "$T/docs" | wc -l)" 3

case="documents, key by key"
"$MAKE_HOSTILE" documents "$T/docs/$good_id.json" "$T/hostile" >"$T/cases"
cp "$T/hostile"/* "$T/docs/"
: >"$T/broken"
listing_holds --documents="$T/docs"
ctl --documents="$T/docs" --json=short list 2>"$T/warnings" | jq -r '.[].id' >"$T/listed"
unnamed=0 not_left_out=""
# show's labels of the string keys.
declare -A labels=([kind]=Kind [reason]=Reason [backend]=Backend [pstore_reason]="Pstore reason"
	[severity]=Severity [hostname]=Host [machine_id]="Machine ID" [crashed_boot_id]="Crashed boot"
	[analysis.message]=Message [analysis.function]=Function [analysis.signature]=Signature
	[analysis.kernel_version]=Kernel [analysis.module]=Module)
while read -r file key value id; do
	if grep -qxF "$id" "$T/listed"; then
		mkdir "$T/one"
		ln "$T/hostile/$file" "$T/one/"
		every_verb_holds "$file" "$id" --documents="$T/one"
		rm -r "$T/one"
		# A value that is no string, or empty, is left out of show's lines.
		label=${labels[$key]:-}
		if [ "$value" != ctrl ] && [ -n "$label" ] && grep -q "^ *$label: " "$T/out"; then
			not_left_out="$not_left_out $file"
		fi
	elif ! grep -qF "/$file: " "$T/warnings"; then
		unnamed=$((unnamed + 1))
		echo "not listed, not named: $file" >&2
	fi
done <"$T/cases"
check "$(wc -l <"$T/cases") documents: every verb exits 0 or 1, its output escaped" \
	eval '! grep . "$T/broken" >&2'
check "each document listed, or named in a warning" eq "$unnamed" 0
check "a field of the wrong type is left out of show" eq "$not_left_out" ""
check "a document that is not JSON: named with the reason" \
	grep -qF "6-id-u64.json: not JSON (too big integer near '18446744073709551616', line 1)" \
	"$T/warnings"
check "10,000 arrays deep: too many values for their size" \
	grep -qF "14-id-deep.json: holds too many values for its size" "$T/warnings"

case="ids alike in 8 characters"
mkdir -p "$T/twice"
cp "$T/docs/$good_id.json" "$T/twice/"
jq -c --arg id "${good_id:0:8}-ffff-5fff-8fff-ffffffffffff" '.id = $id' \
	"$T/docs/$good_id.json" >"$T/twice/near.json"
: >"$T/broken"
verb_holds "$case" --documents="$T/twice" show "${good_id:0:8}"
check "the prefix: refused" test $? -eq 1
check "the prefix: ambiguous" grep -qF "Crash id '${good_id:0:8}' is ambiguous" "$T/err"
verb_holds "$case" --documents="$T/twice" show "$good_id"
check "the whole id: shown" grep -q "^ *ID: $good_id$" "$T/out"
check "no verb crashed" eval '! grep . "$T/broken" >&2'
rm "$T/twice/near.json"

case="the same id twice"
jq -c '.machine_id = "f1ee7000000000000000000000000666" | .hostname = "evil" | .time = 1 |
	.analysis.message = "forged"' "$T/docs/$good_id.json" >"$T/twice/forged.json"
for verb in show dmesg export; do
	verb_holds "$case" --documents="$T/twice" "$verb" "$good_id"
	check "$verb: from two machines, refused" test $? -eq 1
	check "$verb: says it is ambiguous" grep -qF "Crash id '$good_id' is ambiguous" "$T/err"
	check "$verb: names both" eval 'grep -q "  evil  .*/forged.json$" "$T/err" &&
		grep -q "  $GOOD_MACHINE  .*/$good_id.json$" "$T/err"'
	check "$verb: shows neither" eval '! grep -q . "$T/out"'
done
rm "$T/twice/forged.json"
jq -c '.analysis.message = "forged"' "$T/docs/$good_id.json" >"$T/twice/again.json"
verb_holds "$case" --documents="$T/twice" show "$good_id"
check "in two documents of one machine: refused as ambiguous" \
	eval 'grep -qF "is ambiguous" "$T/err" && ! grep -q forged "$T/out"'
check "listed twice" eq "$(ctl --documents="$T/twice" --json=short list | jq length)" 2
check "no verb crashed" eval '! grep . "$T/broken" >&2'

case="files"
mkdir -p "$T/files"
cp "$T/good" "$T/good.all"
sed -n 2,3p "$T/good.all" >"$T/good"
for id in $(cat "$T/good"); do cp "$T/docs/$id.json" "$T/files/"; done
doc=$T/docs/$good_id.json
max=$((64 * 1024 * 1024))
# Documents of exactly the limit and a byte more, padded with spaces after the JSON.
jq -c '.id = "bad0f000-0000-5000-8000-00000000f000"' "$doc" >"$T/files/at-max.json"
truncate -s "$max" "$T/files/at-max.json"
sed -i 's/\x0/ /g' "$T/files/at-max.json"
jq -c '.id = "bad0f001-0000-5000-8000-00000000f001"' "$doc" >"$T/files/past-max.json"
truncate -s $((max + 1)) "$T/files/past-max.json"
sed -i 's/\x0/ /g' "$T/files/past-max.json"
: >"$T/files/empty.json"
mkfifo "$T/files/fifo.json"
ln -s "$doc" "$T/files/link.json"
ln -s loop.json "$T/files/loop.json"
deep=$T/files
for i in 1 2 3 4 5 6 7 8 9; do deep=$deep/d$i; done
mkdir -p "$deep"
jq -c '.id = "bad0f002-0000-5000-8000-00000000f002"' "$doc" >"$deep/deep.json"
jq -c '.id = "bad0f003-0000-5000-8000-00000000f003"' "$doc" >"$T/files/unreadable.json"
chmod -R go+rX "$T/files"
chmod 0600 "$T/files/unreadable.json"
chmod o+x "$T"
: >"$T/broken"
verb_holds "$case" --documents="$T/files" --json=short list
check "listed, no FIFO waited for" eq "$(jq -r '.[].id' "$T/out" | sort)" \
	"$(printf '%s\n' bad0f000-0000-5000-8000-00000000f000 bad0f003-0000-5000-8000-00000000f003 \
		$(cat "$T/good") | sort)"
check "past the size limit: named" grep -qF "past-max.json: File too large; skipped." "$T/err"
check "empty: named" grep -qF "empty.json: not JSON" "$T/err"
for f in fifo link loop; do
	check "$f: named" grep -qF "/files/$f.json: not a regular file: skipped." "$T/err"
done
check "nested too deep: named" grep -qF "/d9: more than 8 directories deep: skipped." "$T/err"
# A copy nobody may run: the build tree may be where nobody cannot go (a checkout in /root).
cp "$PSTORECTL" "$T/pstorectl"
setpriv --reuid=65534 --regid=65534 --clear-groups "$T/pstorectl" --documents="$T/files" \
	--json=short list >"$T/out" 2>"$T/err"
check "unreadable: named" \
	grep -qF "Failed to read $T/files/unreadable.json: Permission denied; skipped." "$T/err"
check "unreadable: the rest listed" eq "$(jq length "$T/out")" 3
check "no verb crashed" eval '! grep . "$T/broken" >&2'
cp "$T/good.all" "$T/good"

case="documents: memory"
# 16 MiB of [{},{},...], which jansson would hold in 80 times that, and 16 MiB of a log.
# pstorectl(1): a document is parsed in at most 16 times its size, plus 64 KiB, or 256 MiB.
mkdir -p "$T/big"
"$MAKE_HOSTILE" big "$doc" "$T/big" $((16 << 20)) >"$T/big-ids"
if ldd "$PSTORECTL" | grep -q 'libasan\|libclang_rt.asan'; then
	rss_max=$((1 << 20)) # kB: a sanitizer's shadow memory and quarantine on top
else
	rss_max=$((256 * 1024 + 32 * 1024)) # kB: the bound, and 32 MiB for the program
fi
for verb in "--json=short list" "dmesg $(sed -n 2p "$T/big-ids")"; do
	# shellcheck disable=SC2086
	/usr/bin/time -f %M -o "$T/rss" "$PSTORECTL" --no-pager --documents="$T/big" $verb \
		>"$T/out" 2>"$T/err"
	check "${verb%% *}: within the bound of pstorectl(1)" test "$(cat "$T/rss")" -le "$rss_max"
	check "${verb%% *}: many values named" grep -qxF "pstorectl: $T/big/many-values.json: holds \
too many values for its size: parsing it would take more memory than 16 times its size, or \
256 MiB; skipped." "$T/err"
done
check "a long log: shown whole" eq "$(tr -d x <"$T/out" | wc -c):$(wc -c <"$T/out")" \
	"0:$(jq -j .dmesg "$T/big/long-log.json" | wc -c)"
ctl --documents="$T/big" --json=short list 2>/dev/null | jq -r '.[].id' >"$T/listed"
check "a long log: listed" eq "$(cat "$T/listed")" "$(sed -n 2p "$T/big-ids")"

case="documents rewritten while read"
# Each time pstorectl has read it, the document is replaced: as a WebDAV server does (a new
# file renamed over), and in place. show is a whole document of the crash asked for, or fails
# saying why: never the other. The documents of more/, older, are read after it (on tmpfs):
# time for it to be replaced between list and show.
mkdir -p "$T/rewritten/more"
jq -c '.id = "bad0f0a0-0000-5000-8000-00000000f0a0"' "$doc" >"$T/a.json"
jq -c '.id = "bad0f0b0-0000-5000-8000-00000000f0b0"' "$doc" >"$T/b.json"
python3 - "$T/a.json" "$T/rewritten/more" <<-'EOF'
	import sys
	doc = open(sys.argv[1]).read()
	for i in range(300):
	    with open("%s/%d.json" % (sys.argv[2], i), "w") as f:
	        f.write(doc.replace("bad0f0a0", "bad0f%03x" % (0x100 + i)))
EOF
cp "$T/a.json" "$T/rewritten/doc.json"
ctl --documents="$T/rewritten" show bad0f0a0 >"$T/want"
"$MAKE_HOSTILE" rewrite "$T/rewritten/doc.json" "$T/a.json" "$T/b.json" 600 &
writer=$!
server_pids="$server_pids $writer"
: >"$T/broken"
wrong=0 shown=0
for i in $(seq 40); do
	if verb_holds "$case" --documents="$T/rewritten" show bad0f0a0; then
		cmp -s "$T/want" "$T/out" && shown=$((shown + 1)) || wrong=$((wrong + 1))
	elif [ -s "$T/out" ] || ! [ -s "$T/err" ]; then
		wrong=$((wrong + 1))
	fi
	verb_holds "$case" --documents="$T/rewritten" --json=short list
done
kill "$writer"
wait "$writer" 2>/dev/null
check "show: the crash asked for, whole, or a message saying why not" eq "$wrong" 0
check "no verb crashed" eval '! grep . "$T/broken" >&2'
echo "documents rewritten while read: crash shown $shown times in 40" >&2

case="journal, field by field"
mkdir -p "$T/export" "$T/journal"
"$MAKE_HOSTILE" journal "$T/export" >"$T/entries"
# The good crashes: from the documents, as a machine's pstored sends them.
for id in $(cat "$T/good"); do
	jq -r --arg now "$(date +%s%6N)" '"__REALTIME_TIMESTAMP=\($now)\n__MONOTONIC_TIMESTAMP=1",
		"_BOOT_ID=\(.boot_id)", "_MACHINE_ID=\(.machine_id)", "_HOSTNAME=alpha",
		"MESSAGE_ID=c55ba87f78104684bc1951566a609be3", "PSTORE_CRASH_ID=\(.id)",
		"PSTORE_KIND=\(.kind)", "PSTORE_CRASH_TIMESTAMP=\(.time)", ""' "$T/docs/$id.json"
done >"$T/export/good.export"
# A file each, so that show, dmesg and export of an entry read a few entries, not all.
for f in "$T/export"/*.export; do
	f=${f##*/}
	"$JOURNAL_REMOTE" --output="$T/journal/${f%.export}.journal" - <"$T/export/$f" 2>&1
done >"$T/journal-remote.log"
check "systemd-journal-remote took every entry" \
	eq "$(awk '/^Finishing after writing/ { n += $4 } END { print n }' "$T/journal-remote.log")" \
	"$(($(wc -l <"$T/entries") + 3))"
: >"$T/broken"
listing_holds -D "$T/journal"
ctl -D "$T/journal" --json=short list 2>"$T/warnings" | jq -r '.[].id' >"$T/listed"
unshown=""
while read -r id field value; do
	[ "$id" = - ] && continue
	check "$field $value: listed" grep -qxF "$id" "$T/listed"
	every_verb_holds "$field $value" "$id" --file="$T/journal/$field.journal" ||
		unshown="$unshown $field:$value"
done <"$T/entries"
check "every verb exits 0 or 1, its output escaped" eval '! grep . "$T/broken" >&2'
check "each crash listed is shown" eq "$unshown" ""
check "no more listed: not an id with a NUL, nor one of two" eq "$(sort "$T/listed")" \
	"$( (cat "$T/good"; grep -v '^- ' "$T/entries" | cut -d' ' -f1) | sort)"
check "each entry without one crash id named" eq "$(grep -c "A malformed journal entry with a \
MESSAGE_ID of pstored, from zulu at .*: no crash id in PSTORE_CRASH_ID" "$T/warnings")" \
	"$(grep -c '^- ' "$T/entries")"
# time_of VALUE: the time show --json gives the entry whose timestamp is the value VALUE.
time_of() {
	ctl --file="$T/journal/PSTORE_CRASH_TIMESTAMP.journal" --json=short show \
		"$(grep -m1 "PSTORE_CRASH_TIMESTAMP $1\$" "$T/entries" | cut -d' ' -f1)" | jq .time
}
check "a time past int64: unknown, not negative" eq "$(time_of u64max):$(time_of i64over)" 0:0

case="forged entries of a crash"
# show, dmesg and export read the entries list reads: a crash's id and machine in an entry
# without pstored's MESSAGE_ID, or beside a second id, are not that crash.
id=$(sed -n 2p "$T/good")
mkdir -p "$T/forged"
cp "$T/journal/good.journal" "$T/forged/"
verbs=("show" "--json=short show" "dmesg" "export")
for i in "${!verbs[@]}"; do
	# shellcheck disable=SC2086
	ctl -D "$T/forged" ${verbs[i]} "$id" >"$T/want.$i" 2>"$T/want-err.$i"
done
"$MAKE_HOSTILE" forged "$id" "$GOOD_MACHINE" |
	"$JOURNAL_REMOTE" --output="$T/forged/forged.journal" - >"$T/journal-remote.log" 2>&1
check "systemd-journal-remote took the forged entries" \
	grep -q "^Finishing after writing 2 entries" "$T/journal-remote.log"
: >"$T/broken"
for i in "${!verbs[@]}"; do
	# shellcheck disable=SC2086
	verb_holds "$case" -D "$T/forged" ${verbs[i]} "$id"
	check "${verbs[i]}: the crash as without the forged entries" diff -u "$T/want.$i" "$T/out"
	check "${verbs[i]}: the same messages but for the malformed entry" diff -u \
		"$T/want-err.$i" <(grep -v "A malformed journal entry" "$T/err")
done
verb_holds "$case" -D "$T/forged" show "$id"
check "the entry of two ids: named as malformed, once" eq "$(grep -c "A malformed journal entry \
with a MESSAGE_ID of pstored, from zulu at .*: no crash id in PSTORE_CRASH_ID, or more than \
one; skipped.$" "$T/err")" 1
check "no verb crashed" eval '! grep . "$T/broken" >&2'

case="a journal file still being written"
# systemd-journal-remote writes entries as they come while pstorectl -D lists and shows: the
# crashes there before are listed each time, and each verb exits 0 or 1.
mkdir -p "$T/live"
"$MAKE_HOSTILE" live "$T/export/good.export" 20 2>"$T/live-count" |
	"$JOURNAL_REMOTE" --output="$T/live/live.journal" - >"$T/journal-remote.log" 2>&1 &
live=$!
server_pids="$server_pids $live"
for i in $(seq 100); do
	[ "$(ctl -D "$T/live" --json=short list 2>/dev/null | jq length)" -ge 3 ] 2>/dev/null &&
		break
	sleep 0.1
done
: >"$T/broken"
missed=0 unshown=0
while kill -0 "$live" 2>/dev/null; do
	verb_holds "$case" -D "$T/live" --json=short list
	jq -r '.[].id' "$T/out" | sort >"$T/listed"
	[ -z "$(comm -23 "$T/good" "$T/listed")" ] || missed=$((missed + 1))
	verb_holds "$case" -D "$T/live" show "$(tail -n 1 "$T/listed")" || unshown=$((unshown + 1))
done
wait "$live"
check "the crashes there before: listed each time" eq "$missed" 0
check "the newest crash listed: shown each time" eq "$unshown" 0
check "no verb crashed" eval '! grep . "$T/broken" >&2'
check "at the end, every crash listed" \
	eq "$(ctl -D "$T/live" --json=short list | jq length)" "$(($(cat "$T/live-count") + 3))"

case="the same id from two machines"
id=$(head -n1 "$T/good")
jq -r '"__REALTIME_TIMESTAMP=1\n__MONOTONIC_TIMESTAMP=1", "_BOOT_ID=\(.boot_id)",
	"_MACHINE_ID=f1ee7000000000000000000000000666", "_HOSTNAME=evil",
	"MESSAGE_ID=c55ba87f78104684bc1951566a609be3", "PSTORE_CRASH_ID=\(.id)",
	"CRASH_MESSAGE=forged", ""' "$T/docs/$id.json" |
	"$JOURNAL_REMOTE" --output="$T/journal/evil.journal" - >"$T/journal-remote.log" 2>&1
: >"$T/broken"
verb_holds "$case" -D "$T/journal" show "$id"
check "show: refused" test $? -eq 1
check "show: says it is ambiguous" grep -qF "Crash id '$id' is ambiguous" "$T/err"
check "show: names both machines" \
	eval 'grep -q "  evil$" "$T/err" && grep -q "  alpha$" "$T/err"'
check "show: neither shown" eval '! grep -q . "$T/out"'
verb_holds "$case" --file="$T/journal/good.journal" show "$id"
check "show of one machine's file: shown" grep -q "^ *ID: $id$" "$T/out"
check "no verb crashed" eval '! grep . "$T/broken" >&2'

checks_done
