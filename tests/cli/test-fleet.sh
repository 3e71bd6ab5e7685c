#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstorectl at a collector: three fake machines (a machine id, host name and
# kernel each, in a store each) send their crashes with "pstored upload" to
# a real systemd-journal-remote and to a real nginx (WebDAV, the http-json
# target) on loopback. Then "pstorectl -D" over the journal files and
# "pstorectl --documents" over the documents list them with their hosts,
# group them by signature with the machines and kernels seen, filter them, and
# show, dmesg and export a remote crash as its machine exports it, in the
# fields that travel. Bad input (a corrupt journal file, a file that is no
# crash document, a directory nobody may read) is named, and the rest listed.

. "$top_srcdir/tests/upload/lib.sh"
. "$top_srcdir/tests/lib/checks.sh"
skip_unless_root
set +e

start_journal_remote http
start_nginx

# machine N HOST KERNEL: the machine id of machine N.
machine_id() { printf 'f1ee7%027x' "$1"; }

# send N HOST KERNEL SIGNATURE COUNT FIRST: COUNT crashes of machine N, uploaded.
send() {
	STORE="$T/store$1"
	UPLOAD_HOSTNAME=$2
	MAKE_CRASHES_HOSTNAME=$2 MAKE_CRASHES_MACHINE_ID=$(machine_id "$1") \
		MAKE_CRASHES_KERNEL=$3 MAKE_CRASHES_SIGNATURE=$4 make_crashes "$5" "$6" >>"$T/ids$1"
	pstored_upload >"$T/upload.log" 2>&1 || { cat "$T/upload.log"; fail "upload of machine $1"; }
}

write_config "$T/pstored.conf" \
	"[Target.fleet]" "Type=journal-remote" "URL=http://127.0.0.1:$JR_PORT/upload" \
	"[Target.docs]" "Type=http-json" \
	"URL=http://127.0.0.1:$NGINX_PORT/crashes/{machine_id}/{id}.json"
# Signature A hit three machines on two kernels, B two machines, C one.
send 1 alpha 6.1.0-17-amd64 kernel-a-11111111 2 0
send 1 alpha 6.1.0-17-amd64 kernel-c-33333333 1 10
send 2 bravo 6.1.0-18-amd64 kernel-a-11111111 1 0
send 2 bravo 6.1.0-18-amd64 kernel-b-22222222 2 10
send 3 charlie 6.1.0-18-amd64 kernel-a-11111111 1 0
send 3 charlie 6.1.0-18-amd64 kernel-b-22222222 1 10
stop_journal_remote
stop_nginx

ctl() { "$PSTORECTL" --no-pager "$@"; }
# The --group table, reduced to what both sources must agree on.
groups() {
	ctl "$@" --json=short list --group |
		jq -c 'map({signature, count, machines, first, last, kernels, ids: (.ids | sort)})'
}

case="journal"
ctl -D "$T/remote" list >"$T/list" 2>"$T/err"
check "list exits 0, quietly" eq "$?:$(cat "$T/err")" "0:"
check "list: a HOST column" grep -q '^TIME  *ID  *HOST  *KIND' "$T/list"
check "list: every crash" grep -q '^8 crashes listed.$' "$T/list"
for h in alpha:3 bravo:3 charlie:2; do
	check "list: host ${h%:*}" eq "$(grep -c " ${h%:*} " "$T/list")" "${h#*:}"
done
check "list: no UPLOAD column" eval '! grep -q UPLOAD "$T/list"'
check "list --host" eq "$(ctl -D "$T/remote" --json=short list --host=bravo | jq length)" 3
check "list --machine" \
	eq "$(ctl -D "$T/remote" --json=short list --machine="$(machine_id 3)" | jq -r '.[].hostname' | sort -u)" charlie
check "list --signature" eq "$(ctl -D "$T/remote" --json=short list --signature=kernel-b-22222222 | jq length)" 3
check "list --since, --until" eq "$(ctl -D "$T/remote" --json=short list --since=-1h --until=+1h | jq length):$(ctl -D "$T/remote" --json=short list --since=+1h | jq length)" 8:0
check "list --json: the store's keys, and where from" \
	eq "$(ctl -D "$T/remote" --json=short list | jq -c '.[0] | [has("id", "time", "kind", "reason", "kernel_version", "signature", "archived_at", "records", "machine_id", "hostname")] | all')" true
ctl -D "$T/remote" --json=short list --group >"$T/groups.json"
check "--group: three signatures" eq "$(jq length "$T/groups.json")" 3
check "--group: crashes, machines and kernels of each" \
	eq "$(jq -c 'map([.signature, .count, .machines, .kernels]) | sort' "$T/groups.json")" \
	'[["kernel-a-11111111",4,3,["6.1.0-17-amd64","6.1.0-18-amd64"]],["kernel-b-22222222",3,2,["6.1.0-18-amd64"]],["kernel-c-33333333",1,1,["6.1.0-17-amd64"]]]'
ctl -D "$T/remote" list --group >"$T/groups"
check "--group table: the machines and kernels" \
	grep -qE '^ *4 +3 .* 6\.1\.0-17-amd64, 6\.1\.0-18-amd64 +panic +kernel-a-11111111 ' "$T/groups"
check "--file=GLOB reads the same" eq "$(groups --file="$T/remote/*.journal")" "$(groups -D "$T/remote")"

case="remote crash"
id=$(head -n1 "$T/ids2")
STORE="$T/store2" UPLOAD_HOSTNAME=bravo
pstorectl_export --redacted --json=short --config="$T/pstored.conf" --target=fleet "$id" >"$T/origin.json"
ctl -D "$T/remote" export "${id:0:8}" >"$T/remote.json"
check "export exits 0" test $? -eq 0
# The fields that travel in a journal entry: all but the records' bytes and details.
travel='{id, kind, reason, pstore_reason, backend, time, boot_id, machine_id, dmesg, records: [.records[] | {name}],
	analysis: (.analysis | {kernel_version, signature, function, message})}'
check "export: the fields that travel, as the machine exports them" \
	eq "$(jq -cS "$travel" "$T/remote.json")" "$(jq -cS "$travel" "$T/origin.json")"
check "export: valid by the schema" "$top_srcdir/tests/lib/validate-document" \
	"$top_srcdir/lib/upload/crash-document.schema.json" "$T/remote.json"
check "export: the host" eq "$(jq -r .hostname "$T/remote.json")" bravo
check "dmesg: the log" eq "$(ctl -D "$T/remote" dmesg "$id")" "$(jq -j .dmesg "$T/origin.json")"
ctl -D "$T/remote" show "$id" >"$T/show"
check "show: host and machine" grep -qx "  *Host: bravo" "$T/show"
check "show: machine id" grep -qx "  *Machine ID: $(machine_id 2)" "$T/show"
check "show: the message" grep -qx '  *Message: Kernel panic - not syncing: sysrq triggered crash' "$T/show"

case="documents"
check "--documents: the same --group as the journal" \
	eq "$(groups --documents="$T/www/crashes")" "$(groups -D "$T/remote")"
check "every document valid by the schema" "$top_srcdir/tests/lib/validate-document" \
	"$top_srcdir/lib/upload/crash-document.schema.json" $(find "$T/www/crashes" -type f)
doc=$(find "$T/www/crashes" -name "$id.json")
check "export of a document: the document" \
	eq "$(ctl --documents="$T/www/crashes" --json=short export "$id")" "$(jq -cS . "$doc")"
check "documents: no HOST column for one machine" \
	eval '! ctl --documents="$T/www/crashes" list --machine="$(machine_id 1)" | grep -q HOST'

case="bad input"
cp -a "$T/remote" "$T/bad-remote"
head -c 4096 /dev/urandom >"$T/bad-remote/corrupt.journal"
ctl -D "$T/bad-remote" list >"$T/list" 2>"$T/err"
check "corrupt journal file: exits 0 (and, under the sanitizers, leaks nothing)" test $? -eq 0
check "corrupt journal file: the rest listed" grep -q '^8 crashes listed.$' "$T/list"
check "corrupt journal file: named" grep -q "corrupt.journal: not a journal file, or a corrupt one" "$T/err"
mkdir -p "$T/www/crashes/junk"
echo 'not json {' >"$T/www/crashes/junk/broken.json"
echo '{"hello": "world"}' >"$T/www/crashes/junk/foreign.json"
ctl --documents="$T/www/crashes" list >"$T/list" 2>"$T/err"
check "bad documents: the rest listed" grep -q '^8 crashes listed.$' "$T/list"
check "non-JSON document: named" grep -q "broken.json: not JSON" "$T/err"
check "foreign document: named" grep -q "foreign.json: not a crash document of pstored" "$T/err"
chmod 0700 "$T/bad-remote"
setpriv --reuid=65534 --regid=65534 --clear-groups "$PSTORECTL" -D "$T/bad-remote" list \
	>"$T/list" 2>"$T/err"
check "unreadable journal directory: fails" test $? -eq 1
check "unreadable journal directory: explained" \
	grep -q "Failed to read journal directory $T/bad-remote: Permission denied (run as root" "$T/err"
check "other verbs refuse another source" \
	eval '! ctl -D "$T/remote" delete "$id" 2>/dev/null && ! ctl --documents="$T/www" status 2>/dev/null'
check "the store has no hosts" eval '! ctl --store-dir="$T/store1" list --host=alpha 2>/dev/null'

checks_done
