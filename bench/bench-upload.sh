#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-upload [N]: "pstored upload" of N (1000) queued crashes to an
# http-json target on a real nginx on loopback (WebDAV PUT), against the
# same documents sent by one curl process each. Prints crashes/s for both
# and the ratio. Run by "make bench-upload" (as root, like the upload tests).

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root
command -v curl >/dev/null || fail "curl is needed (tools/install-deps installs it)"
n=${1:-1000}

seconds() { python3 -c 'import time; print(time.monotonic())'; }
rate() { python3 -c "import sys; print('%.1f' % ($1 / ($3 - $2)))"; }

start_nginx
write_config "$T/pstored.conf" "[Target.bench]" "Type=http-json" \
	"URL=http://127.0.0.1:$NGINX_PORT/crashes/{id}.json" \
	"MaxPerDay=infinity" "MaxBytesPerDay=infinity"
make_crashes "$n" >"$T/ids"

start=$(seconds)
pstored_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "pstored upload failed"; }
end=$(seconds)
[ "$(find "$T/www/crashes" -maxdepth 1 -type f | wc -l)" = "$n" ] || fail "not all crashes arrived"
pstored_rate=$(rate "$n" "$start" "$end")
grep -o 'over [0-9]* connections*' "$T/out" | tail -n 1

# The same documents, one curl process each, as a shell script would send them.
mkdir -p "$T/www/crashes/curl"
start=$(seconds)
while read -r id; do
	curl -sS -f -o /dev/null -X PUT -H "Content-Type: application/json" \
		-H "Idempotency-Key: $id" --data-binary "@$T/www/crashes/$id.json" \
		"http://127.0.0.1:$NGINX_PORT/crashes/curl/$id.json" || fail "curl failed for $id"
done <"$T/ids"
end=$(seconds)
curl_rate=$(rate "$n" "$start" "$end")

echo "pstored upload: $n crashes, $pstored_rate crashes/s"
echo "curl per crash: $n crashes, $curl_rate crashes/s"
python3 -c "print('speed-up: %.1fx' % ($pstored_rate / $curl_rate))"
