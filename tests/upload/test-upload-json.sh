#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# http-json target against a real nginx (WebDAV PUT) on loopback: each
# crash arrives once as the export document, byte for byte what
# "pstorectl export --redacted" shows, over one connection, with the
# Idempotency-Key and the bearer token; the token never shows up anywhere
# else. Then POST, plain HTTP/2 over TLS with a client certificate.

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root

make_ca server
make_cert server nginx
make_ca client
make_cert client client
start_nginx

echo "s3cr3t-t0ken" >"$T/token"
chmod 0600 "$T/token"
# Plain http:// to see the token in nginx's log: loopback is a trusted network.
write_config "$T/pstored.conf" \
	"[Target.docs]" "Type=http-json" \
	"URL=http://127.0.0.1:$NGINX_PORT/crashes/{machine_id}/{id}.json" \
	"TokenFile=$T/token" "AllowInsecureCredentials=yes"

ids=$(make_crashes 3)
pstorectl_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "pstorectl upload failed"; }

for id in $ids; do
	doc="$T/www/crashes/fedcba9876543210fedcba9876543210/$id.json"
	[ -f "$doc" ] || fail "crash $id did not arrive at $doc"
	[ "$(upload_state "$id" docs)" = sent ] || fail "crash $id not marked sent"
	[ "$(upload_field "$id" docs status)" = 201 ] || fail "crash $id: status not 201"
	grep -qE "^sent +docs +$id +[0-9.]+[KM]? " "$T/out" || fail "crash $id: no progress line"

	# Byte for byte what the documented command shows.
	pstorectl_export --redacted --json=short --config="$T/pstored.conf" --target=docs "$id" >"$T/expected.json"
	cmp "$doc" "$T/expected.json" || fail "crash $id: stored document differs from export"

	# Redacted: addresses, MAC, hostname, DMI serial are gone; the panic is there.
	python3 - "$doc" 10.0. fe80::5054 52:54:00 "$UPLOAD_HOSTNAME" PF2ABC9Z <<-'EOF' ||
		import base64, json, sys
		d = json.load(open(sys.argv[1]))
		texts = [json.dumps(d)] + [base64.b64decode(r["data"]).decode()
		                           for r in d["records"] if "data" in r]
		leaked = [s for s in sys.argv[2:] if any(s in t for t in texts)]
		sys.exit("sent unredacted: %s" % leaked if leaked else 0)
	EOF
		fail "crash $id: not redacted"
	grep -q 'sysrq triggered crash' "$doc" || fail "crash $id: the log is missing"
	grep -q '\[IPv4\]' "$doc" || fail "crash $id: no [IPv4] tag"

	[ "$(count_requests "^PUT /crashes/.*/$id.json 201 .* $id application/json \"Bearer s3cr3t-t0ken\"" 1)" = 1 ] ||
		fail "crash $id: not exactly one PUT with key, type and token"
done

# One connection for the batch.
[ "$(awk '{print $4}' "$T/nginx/access.log" | sort -u | wc -l)" = 1 ] ||
	fail "the batch used more than one connection"
grep -q '^3 sent, 0 deferred, 0 failed.$' "$T/out" || fail "wrong summary"

# The token is in no message and in no state file.
! grep -r "s3cr3t" "$T/out" "$STORE" || fail "the token leaked"

# A second run has nothing to do.
pstorectl_upload >"$T/out" 2>&1 || fail "second run failed"
[ "$(count_requests '^PUT' 3)" = 3 ] || fail "a second run sent again"

# --force sends again; PUT replaces, so the collector still has one document each.
pstorectl_upload --force >"$T/out" 2>&1 || fail "pstorectl upload --force failed"
grep -q '3 sent' "$T/out" || fail "--force did not resend"
[ "$(find "$T/www/crashes" -type f | wc -l)" = 3 ] || fail "duplicates at the collector"

# POST, HTTPS with HTTP/2 and a client certificate, Redact=no: the document as stored.
write_config "$T/pstored.conf" \
	"[Target.hook]" "Type=http-json" "Method=POST" \
	"URL=https://127.0.0.1:$NGINX_TLS_PORT/post/{id}" \
	"CAFile=$T/tls/server-ca.pem" \
	"ClientCertificate=$T/tls/client.pem" "ClientKey=$T/tls/client.key" "Redact=no"
pstorectl_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "upload over HTTPS failed"; }
for id in $ids; do
	[ "$(count_requests "^POST /post/$id 201 .* HTTP/2.0 $id application/json .* SUCCESS$" 1)" = 1 ] ||
		fail "crash $id: no HTTP/2 POST with a verified client certificate"
	[ "$(upload_state "$id" hook)" = sent ] || fail "crash $id not sent to hook"
done
exit 0
