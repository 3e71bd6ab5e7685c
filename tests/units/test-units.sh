#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstored.service: systemd accepts it, its exposure is at most 1.0, it is
# ordered before systemd-pstore.service and after the loading of the bundled
# module, it has a start timeout and a memory limit, and "systemctl enable"
# works; it runs at a negative nice value and its program does not load
# libcrypto. pstored-upload.service: systemd accepts it and its exposure is at
# most 2.0.
# The tmpfiles snippet makes a private store and keeps the group an
# administrator opened it to; no unit lets systemd chmod the store. The
# pstore.conf drop-in makes systemd-pstore leave pstore alone.
set -eu
unit=$top_builddir/units/pstored.service
tmp=$(mktemp -d /tmp/test-units.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/lib/checks.sh"

# check_unit UNIT MAX: systemd accepts the unit, and its exposure is at most MAX.
check_unit() {
	local u=$1 max=$2 exposure
	# verify wants the ExecStart= binary: point it at the one just built.
	sed "s|^ExecStart=[^ ]*|ExecStart=$top_builddir/daemon/pstored|" \
		"$top_builddir/units/$u" >"$tmp/$u"
	systemd-analyze verify --man=no "$tmp/$u" >"$tmp/verify" 2>&1 ||
		fail "$u: systemd-analyze verify: $(cat "$tmp/verify")"
	grep -q . "$tmp/verify" && fail "$u: systemd-analyze verify warns: $(cat "$tmp/verify")"

	systemd-analyze security --offline=true --no-pager "$top_builddir/units/$u" \
		>"$tmp/security" 2>&1 ||
		fail "$u: systemd-analyze security failed: $(cat "$tmp/security")"
	exposure=$(sed -n "s/.*Overall exposure level for $u: \([0-9.]*\).*/\1/p" "$tmp/security")
	echo "$u: exposure $exposure"
	[ -n "$exposure" ] || fail "$u: no exposure level in: $(cat "$tmp/security")"
	awk -v e="$exposure" -v m="$max" 'BEGIN { exit !(e <= m) }' ||
		fail "$u: exposure $exposure > $max: $(grep '✗' "$tmp/security")"
}
check_unit pstored.service 1.0
check_unit pstored-upload.service 2.0

# A oneshot has neither by default: a stuck or swelling run would hold the boot.
timeout=$(sed -n 's/^TimeoutStartSec=//p' "$unit")
memory=$(sed -n 's/^MemoryMax=//p' "$unit")
case "$timeout" in
[1-9]*) ;;
*) fail "pstored.service: no finite TimeoutStartSec= (got '$timeout')" ;;
esac
case "$memory" in
[1-9]*[KMG]) ;;
*) fail "pstored.service: no finite MemoryMax= (got '$memory')" ;;
esac

grep -q '^Before=.*systemd-pstore.service' "$unit" || fail "not ordered before systemd-pstore.service"
# Ahead of its neighbours for the CPU at boot (the boot test times it).
check "pstored.service runs at a negative nice value" \
	eval 'grep -Eq "^Nice=-[1-9][0-9]?$" "$unit"'

# The unit's program loads no libcrypto: OpenSSL 3 set up its providers for
# the first SHA-256, two thirds of the instructions of archiving a crash at
# boot; lib/basic/sha256-util.c hashes instead.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }
check "daemon/pstored does not link libcrypto" \
	eval '! needed "$top_builddir/daemon/pstored" | grep -q "^libcrypto\."'

# systemctl enable into a fake root creates the WantedBy= link.
mkdir -p "$tmp/root/etc/systemd/system" "$tmp/root/usr/lib/systemd/system"
cp "$unit" "$tmp/root/usr/lib/systemd/system/"
systemctl --root="$tmp/root" enable pstored.service >"$tmp/enable" 2>&1 ||
	fail "systemctl enable: $(cat "$tmp/enable")"
[ -L "$tmp/root/etc/systemd/system/sysinit.target.wants/pstored.service" ] ||
	fail "systemctl enable made no sysinit.target.wants link"

# The tmpfiles snippet makes a private store.
systemd-tmpfiles --root="$tmp/root" --create "$top_builddir/units/pstored.conf" >"$tmp/tmpfiles" 2>&1 ||
	fail "systemd-tmpfiles: $(cat "$tmp/tmpfiles")"
store=$(sed -n 's/^d \([^ ]*\) .*/\1/p' "$top_builddir/units/pstored.conf")
[ "$(stat -c '%a %U %G' "$tmp/root$store" 2>/dev/null)" = "700 root root" ] ||
	fail "tmpfiles did not create $store 0700 root:root"

# pstorectl(1)'s chgrp and chmod 2750 survive the next boot's tmpfiles run.
chgrp 4242 "$tmp/root$store"
chmod 2750 "$tmp/root$store"
systemd-tmpfiles --root="$tmp/root" --create "$top_builddir/units/pstored.conf" >"$tmp/tmpfiles" 2>&1 ||
	fail "systemd-tmpfiles: $(cat "$tmp/tmpfiles")"
[ "$(stat -c '%a %U %g' "$tmp/root$store")" = "2750 root 4242" ] ||
	fail "tmpfiles reset the store to $(stat -c '%a %U %g' "$tmp/root$store")"

# StateDirectory= would make systemd chmod the store to StateDirectoryMode=
# at every start of the unit, undoing the same chmod 2750.
for u in pstored.service pstored-upload.service; do
	grep -q '^StateDirectory' "$top_builddir/units/$u" &&
		fail "$u sets StateDirectory=, which resets the store's mode at each start"
	grep -q "^ReadWritePaths=$(dirname "$store")/pstored\$" "$top_builddir/units/$u" ||
		fail "$u cannot write the store under ProtectSystem=strict"
	# pstored.conf(5) [Metrics]: Debian's textfile directory, optional.
	grep -qx 'ReadWritePaths=-/var/lib/prometheus/node-exporter' "$top_builddir/units/$u" ||
		fail "$u cannot write [Metrics] Directory=/var/lib/prometheus/node-exporter"
done

# The bundled module's loading at boot: a drop-in of systemd's own
# modprobe@.service that systemd accepts, wanted by pstored.service, which
# runs after it.
template=/lib/systemd/system/modprobe@.service
[ -f "$template" ] || template=/usr/lib/systemd/system/modprobe@.service
mkdir -p "$tmp/modprobe/modprobe@pstore_erst.service.d"
cp "$template" "$tmp/modprobe/"
cp "$top_srcdir/units/kernel-erst-off.conf" "$tmp/modprobe/modprobe@pstore_erst.service.d/"
(cd "$tmp/modprobe" && systemd-analyze verify --man=no ./modprobe@pstore_erst.service) \
	>"$tmp/verify" 2>&1 || fail "systemd-analyze verify of the drop-in: $(cat "$tmp/verify")"
grep -q . "$tmp/verify" && fail "systemd-analyze verify warns on the drop-in: $(cat "$tmp/verify")"
grep -q '^Wants=.*modprobe@pstore_erst.service' "$unit" ||
	fail "pstored.service does not want modprobe@pstore_erst.service"
grep -q '^After=.*modprobe@pstore_erst.service' "$unit" ||
	fail "pstored.service is not ordered after modprobe@pstore_erst.service"

# The pstore.conf drop-in keeps the installed systemd-pstore off the records
# that pstored leaves in pstore: with it a record stays, without it
# (systemd's Storage=external) the record is moved out. systemd-pstore reads
# no configuration path from its arguments: each run sees a private
# /etc/systemd holding the drop-in or nothing.
# pstore_run CONFDIR: systemd-pstore on $tmp/pstore, archiving to $tmp/archive.
pstore_run() {
	rm -rf "$tmp/pstore" "$tmp/archive"
	mkdir -p "$tmp/pstore" "$tmp/archive"
	printf 'Panic#1 Part1\n<0>Kernel panic - not syncing: test\n' >"$tmp/pstore/dmesg-erst-1"
	unshare --mount --propagation private sh -c \
		'mount --bind "$1" /etc/systemd && exec "$2" "$3" "$4"' - \
		"$1" "$systemd_pstore" "$tmp/pstore" "$tmp/archive" >"$tmp/pstore.log" 2>&1 ||
		fail "systemd-pstore failed: $(cat "$tmp/pstore.log")"
}
systemd_pstore=/lib/systemd/systemd-pstore
[ -x "$systemd_pstore" ] || systemd_pstore=/usr/lib/systemd/systemd-pstore
dropin=$top_srcdir/units/pstore.conf.d/pstored.conf
grep -qx 'Storage=none' "$dropin" || fail "$dropin does not set Storage=none"
if [ "$(id -u)" -eq 0 ] && [ -x "$systemd_pstore" ]; then
	mkdir -p "$tmp/etc-none/pstore.conf.d" "$tmp/etc-default"
	cp "$dropin" "$tmp/etc-none/pstore.conf.d/"
	pstore_run "$tmp/etc-none"
	[ -f "$tmp/pstore/dmesg-erst-1" ] ||
		fail "systemd-pstore with the drop-in moved the record: $(ls -R "$tmp/archive")"
	[ -z "$(ls -A "$tmp/archive")" ] ||
		fail "systemd-pstore with the drop-in archived: $(ls -R "$tmp/archive")"
	pstore_run "$tmp/etc-default"
	[ -n "$(ls -A "$tmp/archive")" ] ||
		fail "systemd-pstore without the drop-in archived nothing: the check proves nothing"
else
	echo "not root or no systemd-pstore: systemd-pstore not run on the drop-in"
fi

checks_done
