#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Faults, with a real nginx on loopback: the collector down then up; the
# uploader killed between the collector's answer and the state write; the
# connection reset in the middle of a large document; a collector that goes
# away and comes back every second while 100 crashes wait. Every crash
# arrives, each exactly once.

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root
command -v strace >/dev/null || fail "strace is needed (tools/install-deps installs it)"

NGINX_PORT=$(free_port)
write_config "$T/pstored.conf" "[Target.docs]" "Type=http-json" \
	"URL=http://127.0.0.1:$NGINX_PORT/crashes/{id}.json" "MaxPerDay=1000"

# arrived_once IDS: each crash stored under /$loc/ (crashes unless set), and
# PUT with success exactly once.
arrived_once() {
	: "${loc:=crashes}"
	for id in "$@"; do
		[ -f "$T/www/$loc/$id.json" ] || fail "crash $id never arrived"
		n=$(count_requests "^PUT /$loc/$id.json 20[14] " 1)
		[ "$n" = 1 ] || fail "crash $id arrived $n times"
		[ "$(upload_state "$id" docs)" = sent ] || fail "crash $id not marked sent"
	done
}

# 1. Collector down: everything stays queued; up again: everything arrives once.
ids=$(make_crashes 5)
! pstored_upload >"$T/out" 2>&1 || fail "upload to a dead collector counted as success"
grep -q "Couldn't connect to server\|Connection refused" "$T/out" || fail "no connect error"
for id in $ids; do
	[ "$(upload_state "$id" docs)" != sent ] || fail "crash $id sent to nobody"
done
start_nginx
pstorectl_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "upload after the collector came back"; }
arrived_once $ids

# 2. Killed after the answer, before the state is written (the rename of the
#    new crash.json): at most that crash is sent again, none is lost.
ids=$(make_crashes 5 5)
set -- $ids
victim=$3
strace -o /dev/null -e trace=rename,renameat,renameat2 \
	-e inject=rename,renameat,renameat2:signal=SIGKILL:when=3 \
	unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
	"$PSTORED" --config="$T/pstored.conf" --store-dir="$STORE" upload >"$T/out" 2>&1 &&
	fail "the uploader was not killed"
[ "$(count_requests "^PUT /crashes/$victim.json 201 " 1)" = 1 ] || fail "the victim never arrived"
[ "$(upload_state "$victim" docs)" = none ] || fail "the victim's state was written"
pstored_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "the rerun failed"; }
for id in $ids; do
	[ -f "$T/www/crashes/$id.json" ] || fail "crash $id lost"
	want=1
	[ "$id" != "$victim" ] || want=2 # sent again: its state was never written
	n=$(count_requests "^PUT /crashes/$id.json 20[14] " $want)
	[ "$n" = $want ] || fail "crash $id was sent $n times, not $want"
	[ "$(upload_state "$id" docs)" = sent ] || fail "crash $id not marked sent"
done

# 3. Reset in the middle of a request: nginx drops the connection of /reset/
#    unanswered while a 2.5 MB document is still being sent. The crash stays
#    queued with the error; once the collector takes it, it arrives once.
id=$(MAKE_CRASHES_PAD=1048576 make_crashes 1 20)
cp "$T/pstored.conf" "$T/pstored.conf.good"
sed -i "s|/crashes/{id}|/reset/{id}|" "$T/pstored.conf"
! pstorectl_upload "$id" >"$T/out" 2>&1 || fail "a reset upload counted as success"
[ "$(upload_state "$id" docs)" = pending ] || fail "reset: state $(upload_state "$id" docs)"
error=$(upload_field "$id" docs last_error)
echo "reset mid-request: $error"
echo "$error" | grep -qE "reset by peer|Send failure|Empty reply" || fail "reset: no error: $error"
grep -q "$id" "$T/out" || fail "reset: the crash is not named: $(cat "$T/out")"
mv "$T/pstored.conf.good" "$T/pstored.conf"
pstorectl_upload "$id" >"$T/out" 2>&1 || { cat "$T/out"; fail "upload after the reset"; }
arrived_once "$id"
[ "$(stat -c %s "$T/www/crashes/$id.json")" -gt 2000000 ] || fail "the large document is short"

# 4. 100 crashes while the collector flaps every second: "pstorectl upload"
#    (no backoff wait) until everything is sent; each arrives exactly once.
#    The collector takes 20 a second, so that every run meets a flap.
ids=$(make_crashes 100 10)
sed -i "s|/crashes/{id}|/paced/{id}|" "$T/pstored.conf"
stop_nginx
(
	while [ ! -e "$T/stop-flapping" ]; do
		nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" -e "$T/nginx/error.log" &
		pid=$!
		sleep 1
		kill -QUIT "$pid"
		wait "$pid" || :
		sleep 1
	done
) &
flapper=$!
server_pids="$flapper $server_pids"
runs=0
while :; do
	runs=$((runs + 1))
	[ "$runs" -le 1000 ] || fail "100 crashes not delivered in 1000 runs"
	! pstorectl_upload >"$T/out" 2>&1 || break
done
touch "$T/stop-flapping"
wait "$flapper"
echo "flapping collector: delivered after $runs runs"
[ "$runs" -ge 3 ] || fail "the collector never went away during the uploads"
loc=paced arrived_once $ids
exit 0
