#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstorectl on a store written by the archiver itself: the bundled fixtures
# (tests/fixtures/sample, one real ERST crash from QEMU and a foreign CPER
# record as the bundled module shows it) go through
#   pstored archive --pstore-dir=COPY --store-dir=STORE --no-journal --config=TARGETS
# (one upload target, nothing sent) and every verb is checked against the
# files pstored wrote. The pager is
# checked on a real pseudo-terminal (script(1)). The store's modes, and the
# group access pstorectl(1) documents, are checked on what pstored made.
set -u

PSTORED=$top_builddir/daemon/pstored
PSTORECTL=$top_builddir/cli/pstorectl
FIXTURES=$top_srcdir/tests/fixtures
tmp=$(mktemp -d /tmp/test-archived.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
store=$tmp/store
. "$top_srcdir/tests/lib/checks.sh"
ctl() { "$PSTORECTL" --store-dir="$store" --no-pager "$@"; }
# The expression must print true: jq 1.6's -e exits 0 on empty input, as when pstorectl failed.
jqe() { [ "$(jq "$@")" = true ]; }

# The pstore directories to archive, each a copy: archiving erases.
mkdir -p "$tmp/p1" "$tmp/p2" "$tmp/p3"
cp -a "$FIXTURES"/sample/. "$tmp/p1/"
cp -a "$FIXTURES"/erst-qemu/pstore/. "$tmp/p2/"
cp -a "$FIXTURES"/erst-qemu/foreign/unknown-erst-* "$tmp/p3/"
# The console log of a clean boot: a previous-boot-log crash, which waits for no upload.
mkdir "$tmp/p4" && printf '[    0.000000] Linux version 6.1.0-27-amd64\n[   42.000000] reboot: Power down\n' \
	>"$tmp/p4/console-ramoops-0"
records=$(find "$tmp"/p1 "$tmp"/p2 "$tmp"/p3 "$tmp"/p4 -type f | wc -l)
printf '[Target.collector]\nType=http-json\nURL=http://127.0.0.1:9/{id}\n' >"$tmp/targets.conf"
# archive PSTORE STORE: pstored archive, under a umask that would take the group's bits.
archive() {
	(umask 0077 && "$PSTORED" archive --pstore-dir="$1" --store-dir="$2" --no-journal \
		--config="$tmp/targets.conf") >"$tmp/archive.log" 2>&1 ||
		{ cat "$tmp/archive.log"; fail "pstored archive $1"; }
}
for p in p1 p2 p3 p4; do
	archive "$tmp/$p" "$store"
done
mapfile -t ids < <(find "$store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | sort)
n=${#ids[@]}
check "the archiver stored crashes" test "$n" -ge 4

# pstored-store(5): the store directory 0700, below it directories 0750 and files 0640
# (but .archive-lock, 0600).
check "store directory: mode 0700" eq "$(stat -c %a "$store")" 700
check "below it: every directory 0750" eq "$(find "$store" -mindepth 1 -type d ! -perm 0750)" ""
check "below it: every file 0640" \
	eq "$(find "$store" -mindepth 1 -type f ! -name .archive-lock ! -perm 0640)" ""
check "but the lock of archive runs, root's alone" eq "$(stat -c %a "$store/.archive-lock")" 600
check "below it: the index and records directories" \
	test -f "$store/index" -a -d "$store/${ids[0]}/records"

# list
ctl list >"$tmp/list"
check "list exits 0" test $? -eq 0
check "list: a header, one line per crash, a footer" eq "$(wc -l <"$tmp/list")" $((n + 3))
check "list footer" grep -q "^$n crashes listed.$" "$tmp/list"
check "list --no-legend: only crashes" eq "$(ctl --no-legend list | wc -l)" "$n"
ctl --json=short list >"$tmp/list.json"
check "list --json: every stored crash, by id" \
	eq "$(jq -r '.[].id' "$tmp/list.json" | sort | tr '\n' ' ')" "$(printf '%s ' "${ids[@]}")"
check "list --json: oldest first" jqe '[.[].time] == ([.[].time] | sort)' "$tmp/list.json"
check "list --json: summary shape" jqe 'all(.[]; (.id | type) == "string" and
	(.time | type) == "number" and (.kind | type) == "string" and (.reason | type) == "string")' \
	"$tmp/list.json"
hw=$(jq '[.[] | select(.kind == "hardware-error")] | length' "$tmp/list.json")
check "list --kind=hardware-error" eq "$(ctl --json=short list --kind=hardware-error | jq length)" "$hw"
panics=$(jq '[.[] | select(.reason == "panic")] | length' "$tmp/list.json")
check "list --reason=panic" eq "$(ctl --json=short list --reason=panic | jq length)" "$panics"
check "list -n 2: the two newest" \
	eq "$(ctl --json=short list -n 2 | jq -c '[.[].id]')" "$(jq -c '[.[-2:][].id]' "$tmp/list.json")"
check "list --since after the last crash: none" eq "$(ctl --json=short list --since=+1d | jq length)" 0
check "list --group counts every crash" eq "$(ctl --json=short list --group | jq '[.[].count] | add')" "$n"

# show, dmesg, export: every crash
for id in "${ids[@]}"; do
	short=${id:0:8}
	crash=$store/$id/crash.json
	ctl show "$short" >"$tmp/show" 2>"$tmp/err"
	check "show $short" test $? -eq 0
	check "show $short names the crash" grep -q "ID: $id" "$tmp/show"
	for name in $(jq -r '.records[].name' "$crash"); do
		check "show $short lists record $name" grep -q "$name" "$tmp/show"
	done
	fn=$(jq -r '.analysis.function // empty' "$crash")
	if [ -n "$fn" ]; then
		check "show $short: the archiver's analysis (function)" grep -q "Function: $fn$" "$tmp/show"
		IFS='|' read -r frame offset size module < <(jq -r '.analysis.frames[0] |
			[.function, (.offset // ""), (.size // ""), (.module // "")] | join("|")' "$crash")
		[ -z "$offset" ] || frame+=$(printf '+0x%x/0x%x' "$offset" "$size")
		[ -z "$module" ] || frame+=" [$module]"
		check "show $short: the call trace, whole frames" \
			grep -qxF "   Call trace: $frame" "$tmp/show"
		check "list: $short with the analysed message" \
			grep -q "^.*$short .*$(jq -r '.analysis.message' "$crash" | cut -c1-30)" "$tmp/list"
	fi
	check "show --json $short is crash.json plus path" \
		jqe --slurpfile c "$crash" --arg p "$store/$id" '(del(.path) == $c[0]) and .path == $p' \
		<(ctl --json show --no-symbolize "$short")
	check "show --json $short: each frame symbolized or unresolved, with the reason" jqe \
		'[.analysis.frames // [] | .[] | (.line | type) == "number" or (.unresolved | type) == "string"] | all' \
		<(DEBUGINFOD_URLS= ctl --json show "$short")

	if [ -f "$store/$id/dmesg.txt" ]; then
		check "dmesg $short is dmesg.txt" cmp -s <(ctl dmesg "$short") "$store/$id/dmesg.txt"
	fi

	ctl export "$id" >"$tmp/export.json"
	check "export $short: version, id" jqe --arg id "$id" \
		'.export_version == 1 and .id == $id and (.records | length) > 0' "$tmp/export.json"
	check "export $short: valid by crash-document.schema.json" \
		"$top_srcdir/tests/lib/validate-document" \
		"$top_srcdir/lib/upload/crash-document.schema.json" "$tmp/export.json"
	for name in $(jq -r '.records[].name' "$crash"); do
		jq -r --arg n "$name" '.records[] | select(.name == $n) | .data' "$tmp/export.json" |
			base64 -d >"$tmp/raw"
		check "export $short: $name byte for byte" cmp -s "$tmp/raw" "$store/$id/records/$name"
	done
done

ctl export "${ids[0]}" --output="$tmp/out.json"
check "export --output: mode 0600" eq "$(stat -c %a "$tmp/out.json")" 600
check "export --output: same document" cmp -s "$tmp/out.json" <(ctl export "${ids[0]}")

# The pager, on a pseudo-terminal: $PAGER gets the output, --no-pager keeps it away
# (on a terminal that is not TERM=dumb, whatever the caller's).
id=$(jq -r '[.[] | select(.kind == "kernel-crash")][0].id' "$tmp/list.json")
export TERM=xterm
PAGER="cat >$tmp/paged" script -qec "$PSTORECTL --store-dir=$store dmesg $id" /dev/null >/dev/null
check "dmesg on a terminal goes through \$PAGER" cmp -s "$tmp/paged" "$store/$id/dmesg.txt"
rm -f "$tmp/paged"
PAGER="cat >$tmp/paged" script -qec "$PSTORECTL --store-dir=$store --no-pager dmesg $id" /dev/null >/dev/null
check "--no-pager: no pager" test ! -e "$tmp/paged"
PAGER="cat >$tmp/paged" "$PSTORECTL" --store-dir="$store" dmesg "$id" >/dev/null
check "not a terminal: no pager" test ! -e "$tmp/paged"

# status on a fresh copy of the sample pstore
mkdir "$tmp/waiting" && cp -a "$FIXTURES"/sample/. "$tmp/waiting/"
ctl --json=short status --pstore-dir="$tmp/waiting" >"$tmp/status.json"
check "status: records waiting" eq "$(jq .pstore.records.count "$tmp/status.json")" \
	"$(find "$tmp/waiting" -type f | wc -l)"
check "status: crashes in the store" eq "$(jq .store.crashes "$tmp/status.json")" "$n"
check "status: store size is stored_bytes" eq "$(jq .store.bytes "$tmp/status.json")" \
	"$(cat "$store"/*/crash.json | jq -s '[.[].stored_bytes] | add')"

# status: the crashes waiting for upload, as pstored upload counts them
waiting=$(jq '[.[] | select(.kind != "previous-boot-log")] | length' "$tmp/list.json")
check "the archiver queued crashes for upload" test "$waiting" -gt 0
check "a clean boot's log is among them" test "$waiting" -lt "$n"
ctl --json=short status --config="$tmp/targets.conf" >"$tmp/status.json"
check "status: every crash but clean-boot logs waits for upload" \
	eq "$(jq .store.upload.waiting "$tmp/status.json")" "$waiting"
check "status: none failed" eq "$(jq .store.upload.failed "$tmp/status.json")" 0
check "status: the configured target" eq "$(jq -c .store.upload.targets "$tmp/status.json")" '["collector"]'
check "status text: the upload line" grep -q "^ *Upload: $waiting crashes waiting, 0 failed (targets: collector)$" \
	<(ctl status --config="$tmp/targets.conf")
# A target added after the crashes were archived waits for them as well; a crash counts once.
printf '[Target.second]\nType=http-json\nURL=http://127.0.0.1:9/{id}\n' |
	cat "$tmp/targets.conf" - >"$tmp/two.conf"
ctl --json=short status --config="$tmp/two.conf" >"$tmp/status.json"
check "status: a new target waits for every crash, counted once" \
	eq "$(jq .store.upload.waiting "$tmp/status.json")" "$waiting"
check "status: both targets" eq "$(jq -c .store.upload.targets "$tmp/status.json")" '["collector","second"]'
check "status: no targets configured" \
	grep -q "^ *Upload: no targets configured" <(ctl status --config=/dev/null)

# status: the record of the last archive run, last-archive.json. The loop's
# last run took p4: one crash of one record.
last=$store/last-archive.json
ctl --json=short status >"$tmp/status.json"
check "last-archive.json: the last run's success, 1 crash archived, 1 record erased" \
	jqe '.store.last_archive | .result == "success" and .crashes_archived == 1 and
		.records_erased == 1 and (has("error") | not)' "$tmp/status.json"
check "last-archive.json: times in µs, started before finished, within a minute of now" \
	jqe --argjson now "$(date +%s%6N)" '.store.last_archive |
		.started_at <= .finished_at and .finished_at <= $now and $now - .started_at < 60000000' \
	"$tmp/status.json"
check "last-archive.json: the boot id" jqe --arg b "$(tr -d - </proc/sys/kernel/random/boot_id)" \
	'.store.last_archive.boot_id == $b' "$tmp/status.json"
check "last-archive.json: status --json shows the file as it is" \
	jqe --slurpfile l "$last" '.store.last_archive == $l[0]' "$tmp/status.json"
at=$(date -d "@$(($(jq .store.last_archive.finished_at "$tmp/status.json") / 1000000))" \
	'+%a %Y-%m-%d %H:%M:%S %Z')
check "status text: the last archive run" grep -qx \
	" *Last archive: $at, success, 1 crash archived, 1 record erased" <(ctl status)

# Records already archived, --no-unlink: nothing new, nothing erased, the records stay.
mkdir "$tmp/again" && cp -a "$FIXTURES"/sample/. "$tmp/again/"
"$PSTORED" archive --pstore-dir="$tmp/again" --store-dir="$store" --no-journal --no-unlink \
	--config=/dev/null >"$tmp/archive.log" 2>&1
check "--no-unlink on archived records: exit 0" test $? -eq 0
check "--no-unlink: last-archive.json says success, 0 crashes archived, 0 records erased" \
	jqe '.result == "success" and .crashes_archived == 0 and .records_erased == 0' "$last"
check "--no-unlink: the records stay" eq "$(find "$tmp/again" -type f | wc -l)" \
	"$(find "$FIXTURES"/sample -type f | wc -l)"

# A failed run: a record larger than MaxRecordSize stays in pstore; the record
# holds the last message, the one that says what failed and what to do.
mkdir "$tmp/big" && cp -a "$FIXTURES"/erst-qemu/pstore/. "$tmp/big/"
printf '[Archive]\nMaxRecordSize=4K\n' >"$tmp/small.conf"
"$PSTORED" archive --pstore-dir="$tmp/big" --store-dir="$store" --no-journal \
	--config="$tmp/small.conf" >"$tmp/archive.log" 2>&1
check "a failed run exits 1" test $? -eq 1
check "a failed run: its records stay" eq "$(find "$tmp/big" -type f | wc -l)" \
	"$(find "$FIXTURES"/erst-qemu/pstore -type f | wc -l)"
check "a failed run: last-archive.json says failure, with the run's last message" \
	jqe --arg e "$(tail -n 1 "$tmp/archive.log" | sed 's/^pstored: //')" \
	'.result == "failure" and .error == $e and .crashes_archived == 0 and
		.records_erased == 0' "$last"
check "a failed run: the message counts the crashes left and says what to do" \
	jqe '.error | test("^([0-9]+) of \\1 crashes could not be archived; their records stay in .*/big for the next run: a record is larger than MaxRecordSize=; raise it in pstored.conf")' "$last"
check "status text: the failure and its message" \
	grep -q "^ *Last archive: .*, failure, 0 crashes archived, 0 records erased: [0-9]* of [0-9]* crashes could not be archived" \
	<(ctl status)
# No pstore to read at all: a failure too, recorded in the existing store.
"$PSTORED" archive --pstore-dir="$tmp/no-such-dir" --store-dir="$store" --no-journal \
	--config=/dev/null >"$tmp/archive.log" 2>&1
check "no pstore directory: exit 1, recorded" \
	jqe --arg d "$tmp/no-such-dir" '.result == "failure" and
		.error == "Cannot open \($d): No such file or directory"' "$last"

# last-archive.json that cannot be replaced (a directory in its way): the run
# still succeeds, with a warning that says what failed, and the crashes are safe.
cp "$last" "$tmp/last.json"
rm "$last" && mkdir "$last"
"$PSTORED" archive --pstore-dir="$tmp/again" --store-dir="$store" --no-journal \
	--config=/dev/null >"$tmp/archive.log" 2>&1
check "unwritable last-archive.json: exit 0" test $? -eq 0
check "unwritable last-archive.json: a warning that names it" \
	grep -q "last-archive.json: cannot record this run: .*; no crash is affected" "$tmp/archive.log"
check "unwritable last-archive.json: the records were erased all the same" \
	eq "$(find "$tmp/again" -type f | wc -l)" 0
rmdir "$last" && mv "$tmp/last.json" "$last"
check "unwritable last-archive.json: no crash added or lost" eq "$(ctl --json=short list | jq length)" "$n"

# delete and vacuum
check "delete by short id" eval 'ctl delete "${ids[0]:0:8}" 2>/dev/null'
check "deleted: gone from list" eq "$(ctl --json=short list | jq length)" $((n - 1))
check "deleted: show fails" eval '! ctl show "${ids[0]}" 2>/dev/null'
printf '[Store]\nMaxCrashes=2\nKeepUnsent=no\n' >"$tmp/vacuum.conf"
check "vacuum to MaxCrashes=2" eq "$(ctl --json=short vacuum --config="$tmp/vacuum.conf" | jq '.removed | length')" $((n - 3))
check "vacuum: two left" eq "$(ctl --json=short list | jq length)" 2

# exit codes
check "bad id: exit 1" eval '! ctl show ffffffff 2>/dev/null'
check "bad option: exit 1" eval '! ctl list --bogus 2>/dev/null'
check "missing store: exit 1" eval '! "$PSTORECTL" --store-dir="$tmp/none" list 2>/dev/null'

# pstorectl(1), ACCESS FOR USERS OTHER THAN ROOT, on a store pstored built:
# chgrp -R and chmod 2750 let the group read every crash, also the ones
# archived afterwards, and nobody else.
if [ "$(id -u)" -eq 0 ]; then
	gstore=$tmp/group-store
	pstore_gid=4242
	# pstorectl as nobody, in the group or in none.
	member() {
		setpriv --reuid=65534 --regid=65534 --groups="$pstore_gid" \
			"$PSTORECTL" --store-dir="$gstore" --no-pager "$@"
	}
	stranger() {
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$PSTORECTL" --store-dir="$gstore" --no-pager "$@"
	}
	mkdir "$tmp/g1" "$tmp/g2"
	cp -a "$FIXTURES"/sample/. "$tmp/g1/"
	cp -a "$FIXTURES"/erst-qemu/pstore/. "$tmp/g2/"
	archive "$tmp/g1" "$gstore"
	# mktemp made $tmp 0700; /var/lib is open to all.
	chmod 0755 "$tmp"
	chgrp -R "$pstore_gid" "$gstore"
	chmod 2750 "$gstore"
	touch "$tmp/chmod-done"
	archive "$tmp/g2" "$gstore"
	mapfile -t gids < <(find "$gstore" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n')
	mapfile -t new < <(find "$gstore" -mindepth 1 -maxdepth 1 -type d -newer "$tmp/chmod-done")
	check "group store: crashes archived before and after the chmod" \
		test "${#new[@]}" -gt 0 -a "${#gids[@]}" -gt "${#new[@]}"
	check "group store: all of it in the group" eq "$(find "$gstore" ! -group "$pstore_gid")" ""
	check "group store: a new crash's directories have the set-group-ID bit" \
		eq "$(find "${new[@]}" -type d ! -perm 2750)" ""
	check "group store: its files are 0640" eq "$(find "${new[@]}" -type f ! -perm 0640)" ""
	check "group store: a member lists every crash" \
		eq "$(member --json=short list | jq length)" "${#gids[@]}"
	for id in "${gids[@]}"; do
		check "group store: a member shows ${id:0:8}" eval 'member show "$id" >/dev/null'
		check "group store: a member exports ${id:0:8}" \
			eval 'member export "$id" >"$tmp/export.json" &&
				jqe --arg id "$id" ".id == \$id" "$tmp/export.json"'
		if [ -f "$gstore/$id/dmesg.txt" ]; then
			check "group store: a member reads the dmesg of ${id:0:8}" \
				cmp -s <(member dmesg "$id") "$gstore/$id/dmesg.txt"
		fi
	done
	check "group store: a member may not delete" eval '! member delete "${gids[0]}" 2>/dev/null'
	check "group store: others get the hint" grep -q "group 'pstore'" <(stranger list 2>&1)
	chmod 0700 "$tmp"
else
	echo "skip: group access needs root to become another user"
fi

checks_done
