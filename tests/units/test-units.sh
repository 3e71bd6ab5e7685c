#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstored.service: systemd accepts it, its exposure is at most 2.0, it is
# ordered before systemd-pstore.service and after the loading of the bundled
# module, and "systemctl enable" works.
# The tmpfiles snippet makes a private store and keeps the group an
# administrator opened it to; no unit lets systemd chmod the store.
set -eu
unit=$top_builddir/units/pstored.service
tmp=$(mktemp -d /tmp/test-units.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/lib/checks.sh"

# verify wants the ExecStart= binary: point it at the one just built.
sed "s|^ExecStart=[^ ]*|ExecStart=$top_builddir/daemon/pstored|" "$unit" >"$tmp/pstored.service"
systemd-analyze verify --man=no "$tmp/pstored.service" >"$tmp/verify" 2>&1 ||
	fail "systemd-analyze verify: $(cat "$tmp/verify")"
grep -q . "$tmp/verify" && fail "systemd-analyze verify warns: $(cat "$tmp/verify")"

systemd-analyze security --offline=true --no-pager "$unit" >"$tmp/security" 2>&1 ||
	fail "systemd-analyze security failed: $(cat "$tmp/security")"
exposure=$(sed -n 's/.*Overall exposure level for pstored.service: \([0-9.]*\).*/\1/p' "$tmp/security")
echo "exposure: $exposure"
[ -n "$exposure" ] || fail "no exposure level in: $(cat "$tmp/security")"
awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || fail "exposure $exposure > 2.0"

grep -q '^Before=.*systemd-pstore.service' "$unit" || fail "not ordered before systemd-pstore.service"

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

checks_done
