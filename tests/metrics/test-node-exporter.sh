#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# [Metrics] Directory=: the real prometheus-node-exporter on loopback reads
# what pstored archive and pstored upload write there with its textfile
# collector (the upload to a real nginx), and its /metrics
# shows our series with the values of the run, and
# node_textfile_scrape_error 0 (it parsed our files).
. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root
NODE_EXPORTER=/usr/bin/prometheus-node-exporter
[ -x "$NODE_EXPORTER" ] || { echo "SKIP: needs prometheus-node-exporter" >&2; exit 77; }

MAKE_PSTORE=$top_srcdir/tests/pstore/make-pstore
mkdir -p "$T/metrics"

NE_PORT=$(free_port)
"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NE_PORT" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$T/metrics" >"$T/node-exporter.log" 2>&1 &
server_pids="$server_pids $!"
wait_listening "$NE_PORT"

# scrape: the pstored series and the textfile collector's error flag, as node_exporter serves them.
scrape() {
	curl -sS --fail "http://127.0.0.1:$NE_PORT/metrics" >"$T/scraped" || fail "cannot scrape"
	grep -E '^(pstored_|node_textfile_scrape_error)' "$T/scraped" >"$T/series" || :
}
# expect LINE...: each line is in the scrape, exactly.
expect() {
	for line in "$@"; do
		grep -qxF -- "$line" "$T/series" ||
			fail "no '$line' in the scrape:$(printf '\n'; cat "$T/series")"
	done
}
archive() { # archive [OPTIONS...]: status in $rc, output in $T/out
	rc=0
	"$PSTORED" archive --config="$T/pstored.conf" --pstore-dir="$T/pstore" --store-dir="$STORE" \
		"$@" >"$T/out" 2>&1 || rc=$?
}

write_config "$T/pstored.conf" "[Archive]" "Storage=store" "[Metrics]" "Directory=$T/metrics"

# A run that archives a kernel crash and drops nothing; the store after it.
"$MAKE_PSTORE" "$T/pstore" erst-multipart
archive
[ "$rc" -eq 0 ] || fail "archive failed: $(cat "$T/out")"
bytes=$(jq -s 'map(.stored_bytes) | add' "$STORE"/*/crash.json)
scrape
expect 'node_textfile_scrape_error 0' \
	'pstored_archive_last_run_success 1' \
	'pstored_archive_last_run_crashes{result="archived"} 1' \
	'pstored_archive_last_run_crashes{result="already"} 0' \
	'pstored_archive_last_run_crashes{result="dropped"} 0' \
	'pstored_archive_last_run_crashes{result="failed"} 0' \
	'pstored_archive_last_run_archived{kind="kernel-crash",reason="panic"} 1' \
	'pstored_store_crashes{kind="kernel-crash",reason="panic"} 1' \
	"pstored_store_bytes $bytes" \
	'pstored_pstore_records 0'
cat "$T/series"
ts=$(sed -n 's/^pstored_archive_last_run_timestamp_seconds //p' "$T/series")
now=$(date +%s)
python3 -c "import sys; sys.exit(not $now - 60 <= float('$ts') <= $now + 1)" ||
	fail "last run at $ts, now is $now"

# A second crash, a hardware error, next to the first in the store.
rm -rf "$T/pstore"
"$MAKE_PSTORE" "$T/pstore" mce
archive
[ "$rc" -eq 0 ] || fail "archive failed: $(cat "$T/out")"
scrape
expect 'pstored_archive_last_run_crashes{result="archived"} 1' \
	'pstored_archive_last_run_archived{kind="hardware-error",reason="mce"} 1' \
	'pstored_store_crashes{kind="kernel-crash",reason="panic"} 1' \
	'pstored_store_crashes{kind="hardware-error",reason="mce"} 1'
grep -q 'pstored_archive_last_run_archived{kind="kernel-crash"' "$T/series" &&
	fail "the crash of the first run counted as archived by the second"

# A failed run writes success 0: the store is unsafe, the records stay.
rm -rf "$T/pstore"
"$MAKE_PSTORE" "$T/pstore" erst-multipart
chmod 0777 "$STORE"
archive
chmod 0700 "$STORE"
[ "$rc" -ne 0 ] || fail "archive into an unsafe store succeeded"
scrape
expect 'node_textfile_scrape_error 0' \
	'pstored_archive_last_run_success 0' \
	'pstored_archive_last_run_crashes{result="archived"} 0' \
	"pstored_pstore_records $(find "$T/pstore" -mindepth 1 -maxdepth 1 | wc -l)"

# A hostile reason in the store (a label value with a quote, a newline and a
# backslash) is escaped: node_exporter still parses the file.
id=$(basename "$(grep -l '"mce"' "$STORE"/*/crash.json | xargs dirname)")
jq '.reason = "a\"b\nc\\d"' "$STORE/$id/crash.json" >"$T/crash.json"
cp "$T/crash.json" "$STORE/$id/crash.json"
rm "$STORE/index"
rm -rf "$T/pstore"
mkdir "$T/pstore"
archive
[ "$rc" -eq 0 ] || fail "archive failed: $(cat "$T/out")"
scrape
expect 'node_textfile_scrape_error 0' \
	'pstored_store_crashes{kind="hardware-error",reason="a\"b\nc\\d"} 1'

# A directory that cannot be written: a warning that says what to do, the
# run's result unchanged.
write_config "$T/pstored.conf" "[Archive]" "Storage=store" "[Metrics]" "Directory=$T/missing"
archive
[ "$rc" -eq 0 ] || fail "a metrics directory that is missing failed the run: $(cat "$T/out")"
grep -q "$T/missing/pstored.prom: cannot write the metrics of this run: No such file or directory; .*\[Metrics\] Directory=" "$T/out" ||
	fail "no warning about the metrics directory: $(cat "$T/out")"

# pstored upload: to nginx, and to a port where nothing listens (the first
# crash is deferred, and the target is left for this run: 1 failure, 3 queued).
STORE=$T/upload-store
start_nginx
write_config "$T/pstored.conf" \
	"[Target.docs]" "Type=http-json" "URL=http://127.0.0.1:$NGINX_PORT/crashes/{id}.json" \
	"[Target.down]" "Type=http-json" "URL=http://127.0.0.1:$(free_port)/crashes/{id}.json" \
	"[Metrics]" "Directory=$T/metrics"
make_crashes 3 >/dev/null
rc=0
pstored_upload >"$T/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "upload to a dead target succeeded: $(cat "$T/out")"
scrape
expect 'node_textfile_scrape_error 0' \
	'pstored_upload_last_run_success 0' \
	'pstored_upload_queue_crashes{target="docs"} 0' \
	'pstored_upload_queue_crashes{target="down"} 3' \
	'pstored_upload_last_run_failures{target="docs"} 0' \
	'pstored_upload_last_run_failures{target="down"} 1'
grep -E '^pstored_upload' "$T/series"
ts=$(sed -n 's/^pstored_upload_last_run_timestamp_seconds //p' "$T/series")
now=$(date +%s)
python3 -c "import sys; sys.exit(not $now - 60 <= float('$ts') <= $now + 1)" ||
	fail "last upload at $ts, now is $now"
# The archive's file is still there, next to it.
expect 'pstored_archive_last_run_success 1'

# Without the dead target, the run succeeds.
write_config "$T/pstored.conf" \
	"[Target.docs]" "Type=http-json" "URL=http://127.0.0.1:$NGINX_PORT/crashes/{id}.json" \
	"[Metrics]" "Directory=$T/metrics"
pstored_upload >"$T/out" 2>&1 || fail "upload failed: $(cat "$T/out")"
scrape
expect 'pstored_upload_last_run_success 1' \
	'pstored_upload_queue_crashes{target="docs"} 0' \
	'pstored_upload_last_run_failures{target="docs"} 0'
grep -q 'target="down"' "$T/series" && fail "a target no longer configured is still reported"

# Without [Metrics] Directory= nothing is written.
rm -f "$T/metrics/pstored.prom" "$T/metrics/pstored-upload.prom"
write_config "$T/pstored.conf" "[Archive]" "Storage=store"
archive
pstored_upload >"$T/out" 2>&1 || fail "upload failed: $(cat "$T/out")"
[ ! -e "$T/metrics/pstored.prom" ] || fail "pstored.prom written without Directory="
[ ! -e "$T/metrics/pstored-upload.prom" ] || fail "pstored-upload.prom written without Directory="
exit 0
