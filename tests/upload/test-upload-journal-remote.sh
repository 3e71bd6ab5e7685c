#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# journal-remote target against a real systemd-journal-remote on loopback,
# over HTTP and over HTTPS with a CA and server certificate made here: the
# collector's journal (read with journalctl --directory) shows each crash
# with the fields of the local entry and the whole, redacted log. A
# collector whose certificate the CA did not sign is refused with a clear
# error, and the crash stays queued. The URLs are pstored.conf(5)'s example,
# without a path, as systemd-journal-upload takes them; a crash refused for a
# wrong path is sent without --force once the URL is fixed.

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root

make_ca good
make_ca other
make_cert good jr

check_received() { # check_received ID...
	for id in "$@"; do
		journalctl --directory="$T/remote" -o export PSTORE_CRASH_ID="$id" >"$T/entry"
		[ "$(grep -ac '^PSTORE_CRASH_ID=' "$T/entry")" = 1 ] ||
			fail "crash $id: not exactly one entry at the collector"
		for field in "MESSAGE_ID=c55ba87f78104684bc1951566a609be3" "PRIORITY=2" \
			"PSTORE_KIND=kernel-crash" "PSTORE_REASON=panic" "PSTORE_BACKEND=erst" \
			"SYSLOG_IDENTIFIER=pstored" "CRASH_FUNCTION=sysrq_handle_crash" \
			"KERNEL_VERSION=6.1.0-17-amd64" "_HOSTNAME=$UPLOAD_HOSTNAME" \
			"CRASH_MESSAGE=Kernel panic - not syncing: sysrq triggered crash" \
			"_MACHINE_ID=fedcba9876543210fedcba9876543210" \
			"_BOOT_ID=0123456789abcdef0123456789abcdef"; do
			grep -aqx "$field" "$T/entry" || fail "crash $id: no $field at the collector"
		done
		grep -aq '^MESSAGE=Kernel panic' "$T/entry" || fail "crash $id: no MESSAGE"
		# The log is a multi-line field: sent binary-safe, it arrives whole.
		journalctl --directory="$T/remote" PSTORE_CRASH_ID="$id" -o json |
			python3 -c '
import json, sys
e = json.loads(sys.stdin.readline())
log = e["PSTORE_DMESG"]
log = bytes(log).decode() if isinstance(log, list) else log
assert "Kernel panic - not syncing: sysrq triggered crash" in log, log
assert log.count("\n") == 13, log
for secret in ("10.0.", "52:54:00", "fe80::5054", "PF2ABC9Z"):
    assert secret not in log, secret
assert "[IPv4]" in log and "[MAC]" in log and "[SERIAL]" in log, log
' || fail "crash $id: the log at the collector is wrong"
	done
}

# man_example_target NAME URL [LINE...]: the [Target.journal] section of
# pstored.conf(5)'s example as [Target.NAME], its URL's scheme, host and
# port replaced by URL's, and the LINEs added.
man_example_target() {
	name=$1 url=$2
	shift 2
	sed -n '/^\[Target.journal\]/,/^\.fi/p' "$top_srcdir/man/pstored.conf.5" |
		sed -e '/^\.fi/d' -e "s|^\[Target.journal\]\$|[Target.$name]|" \
			-e "s|^URL=https://logs.example.com:19532\$|URL=$url|" >"$T/pstored.conf"
	grep -qx "URL=$url" "$T/pstored.conf" || fail "no such URL= in pstored.conf(5)'s example"
	printf '%s\n' "$@" >>"$T/pstored.conf"
}

# Over HTTP.
start_journal_remote http
man_example_target fleet "http://127.0.0.1:$JR_PORT"
ids=$(make_crashes 2)
pstored_upload >"$T/out" 2>&1 || { cat "$T/out" "$T/journal-remote.log"; fail "upload failed"; }
grep -q "2 sent, 0 deferred, 0 failed.*over 1 connection" "$T/out" || fail "wrong summary"
stop_journal_remote
check_received $ids
for id in $ids; do
	[ "$(upload_state "$id" fleet)" = sent ] || fail "crash $id not marked sent"
done

# Over HTTPS, first with the wrong CA: refused, explained, still queued.
rm -rf "$T/remote"
start_journal_remote https
id=$(make_crashes 1 2)
man_example_target secure "https://127.0.0.1:$JR_PORT" "CAFile=$T/tls/other-ca.pem"
! pstored_upload >"$T/out" 2>&1 || fail "a certificate of another CA was accepted"
grep -q "certificate.*set CAFile= to the CA that signed it" "$T/out" ||
	{ cat "$T/out"; fail "the TLS error is not explained"; }
# The oldest crash was tried, and stays pending with the reason; the others wait.
set -- $ids
[ "$(upload_state "$1" secure)" = pending ] || fail "refused crash not kept pending"
upload_field "$1" secure last_error | grep -q "certificate" || fail "no TLS last_error"
for other in $ids $id; do
	[ "$(upload_state "$other" secure)" != sent ] || fail "crash $other sent anyway"
done

# The right CA: everything queued for this target arrives, once.
man_example_target secure "https://127.0.0.1:$JR_PORT" "CAFile=$T/tls/good-ca.pem"
pstorectl_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "upload over HTTPS failed"; }
grep -q "3 sent, 0 deferred, 0 failed" "$T/out" || { cat "$T/out"; fail "wrong summary"; }
stop_journal_remote
check_received $ids $id

# A wrong path: journal-remote answers 404, and the crash fails for good, for
# this configuration. Another run does not send it again, and says why.
rm -rf "$T/remote" "$STORE"
start_journal_remote http
id=$(make_crashes 1)
write_config "$T/pstored.conf" "[Target.typo]" "Type=journal-remote" \
	"URL=http://127.0.0.1:$JR_PORT/uplaod"
! pstorectl_upload "$id" >"$T/out" 2>&1 || fail "a 404 was taken for a success"
grep -q "0 sent, 0 deferred, 1 failed\." "$T/out" || { cat "$T/out"; fail "404: wrong summary"; }
[ "$(upload_state "$id" typo)" = failed ] || fail "a crash refused with 404 is not failed"
[ "$(upload_field "$id" typo status)" = 404 ] || fail "no status 404 in the upload state"
! pstorectl_upload "$id" >"$T/out" 2>&1 || fail "a crash failed for good was not reported"
echo "0 sent, 0 deferred, 0 failed, 1 failed permanently for this target configuration" \
	"(the collector refused them: fix the target's URL=, Method= or credentials, or use" \
	"--force)." >"$T/expected"
diff -u "$T/expected" "$T/out" || fail "pstorectl upload does not say why nothing was sent"

# The URL fixed: the crash goes without --force, once.
write_config "$T/pstored.conf" "[Target.typo]" "Type=journal-remote" \
	"URL=http://127.0.0.1:$JR_PORT"
pstored_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "upload after the URL was fixed failed"; }
grep -q "1 sent, 0 deferred, 0 failed, 0 not due yet, 0 failed before" "$T/out" ||
	{ cat "$T/out"; fail "the crash refused before was not sent with the fixed URL"; }
[ "$(upload_state "$id" typo)" = sent ] || fail "crash $id not marked sent after the fix"
pstorectl_upload "$id" >"$T/out" 2>&1 || { cat "$T/out"; fail "a sent crash was reported"; }
grep -qx "0 sent, 0 deferred, 0 failed\." "$T/out" || { cat "$T/out"; fail "sent twice"; }
stop_journal_remote
[ "$(journalctl --directory="$T/remote" -o export PSTORE_CRASH_ID="$id" |
	grep -ac '^PSTORE_CRASH_ID=')" = 1 ] || fail "crash $id: not exactly one entry at the collector"
exit 0
