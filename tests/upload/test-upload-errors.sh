#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# How the uploader takes a collector's answers (real nginx on loopback):
# 5xx, timeouts and dropped connections retry with a persisted backoff;
# 429/503 Retry-After holds the whole target back; other 4xx fail the crash
# with the server's answer (shown by pstorectl show); 409 on PUT counts as
# delivered; daily limits (crashes and bytes) and the maximum document size hold.

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root
start_nginx
base="http://127.0.0.1:$NGINX_PORT"

target() { # target NAME LOCATION [KEY=VALUE...]
	name=$1 location=$2
	shift 2
	write_config "$T/pstored.conf" "[Target.$name]" "Type=http-json" \
		"URL=$base/$location/{id}" "$@"
}

now() { python3 -c 'import time; print(int(time.time() * 1e6))'; }

# 500: pending, backoff persisted, not retried by the timer before it is due.
id=$(make_crashes 1 0)
target c fail500
before=$(now)
! pstored_upload >"$T/out" 2>&1 || fail "a 500 counted as success"
[ "$(upload_state "$id" c)" = pending ] || fail "500: not pending"
[ "$(upload_field "$id" c attempts)" = 1 ] || fail "500: attempts not 1"
next=$(upload_field "$id" c next_attempt)
[ "$next" -ge $((before + 5 * 60 * 1000000)) ] || fail "500: no backoff ($next)"
upload_field "$id" c last_error | grep -q "HTTP 500: collector broken" ||
	fail "500: last_error lacks the answer"
pstored_upload >"$T/out" 2>&1 || :
[ "$(count_requests "^PUT /fail500/$id " 1)" = 1 ] || fail "500: retried before the backoff"
# pstorectl upload sends now, and the backoff doubles.
! pstorectl_upload "$id" >"$T/out" 2>&1 || fail "pstorectl upload: 500 counted as success"
grep -q "^deferred c .*HTTP 500" "$T/out" || { cat "$T/out"; fail "no progress line"; }
[ "$(upload_field "$id" c attempts)" = 2 ] || fail "500: attempts not 2"
[ "$(upload_field "$id" c next_attempt)" -ge $((before + 10 * 60 * 1000000)) ] ||
	fail "500: backoff did not double"

# 429 + Retry-After: 3600: nothing more goes to the target before then, not even by hand.
ids=$(make_crashes 2 1)
target t throttle
before=$(now)
pstored_upload >"$T/out" 2>&1 || :
[ "$(count_requests '^PUT /throttle/' 1)" = 1 ] || fail "429: the batch went on after it"
first=$(grep '^PUT /throttle/' "$T/nginx/access.log" | awk '{print $2}' | sed 's|/throttle/||')
[ "$(upload_field "$first" t throttled_until)" -ge $((before + 3600 * 1000000)) ] ||
	fail "429: Retry-After not honoured"
pstorectl_upload >"$T/out" 2>&1 || :
pstored_upload >"$T/out" 2>&1 || :
[ "$(count_requests '^PUT /throttle/')" = 1 ] || fail "429: sent again before Retry-After"
# 503 likewise.
target b busy
pstored_upload >"$T/out" 2>&1 || :
[ "$(count_requests '^PUT /busy/' 1)" = 1 ] || fail "503: the batch went on after it"

# Retry-After: 18446744073710 (seconds, µs past 2^64): held back a day, the most honoured.
target f flood
before=$(now)
pstored_upload >"$T/out" 2>&1 || :
after=$(now)
[ "$(count_requests '^PUT /flood/' 1)" = 1 ] || fail "huge Retry-After: the batch went on after it"
first=$(grep '^PUT /flood/' "$T/nginx/access.log" | awk '{print $2}' | sed 's|/flood/||')
until=$(upload_field "$first" f throttled_until)
day=$((24 * 3600 * 1000000))
[ "$until" -ge $((before + day)) ] && [ "$until" -le $((after + day)) ] ||
	fail "huge Retry-After: held back until $until, not a day after $before"

# 3xx: not followed, and no refusal of the crash: pending, tried again after the backoff.
target v moved
n=$(count_requests '^PUT /crashes/')
before=$(now)
! pstored_upload >"$T/out" 2>&1 || fail "a 301 counted as success"
[ "$(upload_state "$id" v)" = pending ] || fail "301: not pending"
[ "$(upload_field "$id" v next_attempt)" -ge $((before + 5 * 60 * 1000000)) ] ||
	fail "301: no backoff"
[ "$(count_requests "^PUT /moved/$id 301 " 1)" = 1 ] || fail "301: not sent once"
[ "$(count_requests '^PUT /crashes/')" = "$n" ] || fail "301: the redirect was followed"
want="$base/moved/$id: HTTP 301, a redirect to $base/crashes/$id, which is not followed:"
want="$want set URL= in [Target.v] to the collector's address; tried again later"
[ "$(upload_field "$id" v last_error)" = "$want" ] ||
	fail "301: last_error is '$(upload_field "$id" v last_error)'"
grep -qF "[Target.v] crash $id (" "$T/out" && grep -qF "): deferred: $want" "$T/out" ||
	{ cat "$T/out"; fail "301: not logged as deferred, with the URL to fix"; }

# 403: failed for good, with the server's answer, shown by pstorectl show.
target r reject
! pstored_upload >"$T/out" 2>&1 || fail "403 counted as success"
[ "$(upload_state "$id" r)" = failed ] || fail "403: not failed"
"$PSTORECTL" --store-dir="$STORE" show "$id" >"$T/show" 2>&1
grep -q "token lacks the crash:write scope" "$T/show" || { cat "$T/show"; fail "show: no answer"; }
grep -q "^ *r: failed, 1 attempt" "$T/show" || { cat "$T/show"; fail "show: no failed state"; }
grep -q "last error: .*HTTP 403" "$T/show" || { cat "$T/show"; fail "show: no last error"; }
# ... and counted apart by pstorectl status, with a warning.
"$PSTORECTL" --store-dir="$STORE" --no-pager status --config="$T/pstored.conf" >"$T/status" 2>&1
failed=$(cat "$STORE"/*/crash.json | jq -s '[.[] | select(.upload.r.state == "failed")] | length')
grep -q "^ *Upload: 0 crashes waiting, $failed failed (targets: r)$" "$T/status" ||
	{ cat "$T/status"; fail "status: not failed"; }
grep -q "$failed crashes failed to upload" "$T/status" || { cat "$T/status"; fail "status: no warning"; }
n=$(count_requests '^PUT /reject/')
pstorectl_upload >"$T/out" 2>&1 || :
[ "$(count_requests '^PUT /reject/')" = "$n" ] || fail "403: a failed crash was retried"
grep -q "failed permanently for this target configuration" "$T/out" ||
	{ cat "$T/out"; fail "403: pstorectl upload does not say why nothing was sent"; }
# The refusal was for the target's configuration: a new token, or another method, and the
# crash is tried again without --force; the same configuration again, and it is not.
echo "token-with-the-scope" >"$T/token"
target r reject "TokenFile=$T/token" AllowInsecureCredentials=yes
pstorectl_upload "$id" >"$T/out" 2>&1 || :
[ "$(count_requests '^PUT /reject/.*Bearer token-with-the-scope' 1)" = 1 ] ||
	{ cat "$T/out"; fail "403: not tried again with a new token"; }
pstorectl_upload "$id" >"$T/out" 2>&1 || :
[ "$(count_requests '^PUT /reject/')" = $((n + 1)) ] || fail "403: retried, the same token"
target r reject "TokenFile=$T/token" AllowInsecureCredentials=yes Method=POST
pstorectl_upload "$id" >"$T/out" 2>&1 || :
[ "$(count_requests '^POST /reject/' 1)" = 1 ] || fail "403: not tried again with POST"

# An answer with a C1 control (CSI) and a byte that is not UTF-8: escaped where it is stored
# and where it is printed, as C0 controls are.
target e c1
pstorectl_upload "$id" >"$T/out" 2>&1 || :
want="$base/c1/$id: HTTP 403: token\\u009b2J refused\\xff"
[ "$(upload_field "$id" e last_error)" = "$want" ] ||
	fail "C1: last_error is '$(upload_field "$id" e last_error)'"
grep -qF " $want" "$T/out" || { cat "$T/out"; fail "C1: pstorectl upload does not print it escaped"; }
! LC_ALL=C grep -aqP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xff' "$T/out" ||
	fail "C1: pstorectl upload printed a raw control character"

# 409 on PUT: the collector has it already.
target x conflict
pstored_upload >"$T/out" 2>&1 || fail "409 on PUT not taken as delivered"
[ "$(upload_state "$id" x)" = sent ] || fail "409: not sent"
# ... but on POST it is a refusal.
target y conflict Method=POST
! pstored_upload >"$T/out" 2>&1 || fail "409 on POST taken as delivered"
[ "$(upload_state "$id" y)" = failed ] || fail "409 on POST: not failed"

# A dropped connection and a server slower than Timeout=: retried later.
target d reset
! pstored_upload >"$T/out" 2>&1 || fail "a dropped connection counted as success"
[ "$(upload_state "$id" d)" = pending ] || fail "reset: not pending"
upload_field "$id" d last_error | grep -qE "Empty reply from server|Connection reset by peer" ||
	fail "reset: no error: $(upload_field "$id" d last_error)"
target s slow Timeout=1s
! pstored_upload >"$T/out" 2>&1 || fail "a timeout counted as success"
[ "$(upload_state "$id" s)" = pending ] || fail "slow: not pending"
upload_field "$id" s last_error | grep -qi "timed out" || fail "slow: no timeout error"

# Limits: MaxDocumentSize fails the crash; MaxPerDay holds the rest back.
target m crashes MaxDocumentSize=100
! pstored_upload >"$T/out" 2>&1 || fail "an oversized document counted as success"
[ "$(upload_state "$id" m)" = failed ] || fail "MaxDocumentSize: not failed"
upload_field "$id" m last_error | grep -q "over MaxDocumentSize=100" || fail "size: no reason"
target l crashes MaxPerDay=2
! pstored_upload >"$T/out" 2>&1 || fail "a held-back crash counted as success"
[ "$(find "$T/www/crashes" -type f | wc -l)" = 2 ] || fail "MaxPerDay=2 not honoured"
grep -q "daily limit reached" "$T/out" || fail "no daily limit message"
pstorectl_upload >"$T/out" 2>&1 || :
[ "$(find "$T/www/crashes" -type f | wc -l)" = 2 ] || fail "pstorectl upload broke MaxPerDay"
pstorectl_upload --force >"$T/out" 2>&1 || fail "--force did not lift the limit"
[ "$(find "$T/www/crashes" -type f | wc -l)" = 3 ] || fail "--force: not all sent"

# MaxBytesPerDay: room for the largest document, not for two; the rest wait, even for pstorectl.
limit=$(for c in $id $ids; do upload_field "$c" l bytes; done | sort -n | tail -n 1)
[ "$limit" -gt 0 ] || fail "no document size recorded"
limit=$((limit + 1))
n=$(count_requests '^PUT /crashes/')
target k crashes "MaxBytesPerDay=$limit"
! pstored_upload >"$T/out" 2>&1 || fail "a crash held back by MaxBytesPerDay counted as success"
grep -q "daily limit reached.*MaxBytesPerDay=$limit" "$T/out" || { cat "$T/out"; fail "no byte limit message"; }
pstorectl_upload >"$T/out" 2>&1 || :
[ "$(count_requests '^PUT /crashes/' $((n + 1)))" = $((n + 1)) ] || fail "MaxBytesPerDay=$limit not honoured"
sent=0
for c in $id $ids; do
	[ "$(upload_state "$c" k)" != sent ] || sent=$((sent + 1))
done
[ "$sent" = 1 ] || fail "MaxBytesPerDay: $sent crashes marked sent"

# Credentials in a URL never appear in messages or in crash.json.
write_config "$T/pstored.conf" "[Target.u]" "Type=http-json" \
	"URL=http://alice:pa55word@127.0.0.1:$NGINX_PORT/fail500/{id}" \
	"AllowInsecureCredentials=yes"
pstored_upload >"$T/out" 2>&1 || :
grep -q "alice:\*\*\*@127.0.0.1" "$T/out" || fail "URL not shown masked"
! grep -r "pa55word" "$T/out" "$STORE" || fail "a URL password leaked"

# A bearer token or a URL password crosses plain http:// only if the target
# says so: without AllowInsecureCredentials=yes the target is disabled, the
# run fails and says why and what to do, and nothing is sent.
echo "s3cr3t-t0ken" >"$T/token"
id=$(make_crashes 1 9)
n=$(count_requests .)
target tok crashes "TokenFile=$T/token"
! pstored_upload >"$T/out" 2>&1 || fail "a token over http:// did not fail the run"
grep -qF "pstored: $T/pstored.conf:1: [Target.tok] would send the bearer token of TokenFile= in clear text over http://: use an https:// URL, or set AllowInsecureCredentials=yes in it if the network is trusted; [Target.tok] disabled" "$T/out" ||
	{ cat "$T/out"; fail "token over http://: no message saying what to do"; }
[ "$(count_requests .)" = "$n" ] || fail "token over http://: a request was sent"
[ "$(upload_state "$id" tok)" = none ] || fail "token over http://: upload state changed"
write_config "$T/pstored.conf" "[Target.pw]" "Type=http-json" \
	"URL=http://alice:pa55word@127.0.0.1:$NGINX_PORT/crashes/{id}"
! pstored_upload >"$T/out" 2>&1 || fail "a password over http:// did not fail the run"
grep -qF "[Target.pw] would send the password in URL= in clear text over http://" "$T/out" ||
	fail "password over http://: no message"
[ "$(count_requests .)" = "$n" ] || fail "password over http://: a request was sent"
target tok crashes "TokenFile=$T/token" "AllowInsecureCredentials=yes"
pstored_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "AllowInsecureCredentials=yes: upload failed"; }
[ "$(upload_state "$id" tok)" = sent ] || fail "AllowInsecureCredentials=yes: not sent"
[ "$(count_requests "^PUT /crashes/$id 201 .* \"Bearer s3cr3t-t0ken\"" 1)" = 1 ] ||
	fail "AllowInsecureCredentials=yes: not sent with the token"
exit 0
