#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-archive [OPTIONS...]: bench/bench-archive (pstored archive against
# systemd-pstore on the same fake ERST pstore) against one real journald of
# its own, in a private mount namespace (tests/lib/journald.sh), so that the
# host's journal gets none of the entries. OPTIONS go to bench-archive.
# Run by "make bench-archive" (as root).
set -eu
. "$top_srcdir/tests/lib/journald.sh"
journald_enter "$0" "$@"

SYSTEMD_PSTORE=${SYSTEMD_PSTORE:-/usr/lib/systemd/systemd-pstore}
[ -x "$SYSTEMD_PSTORE" ] || { echo "$0: $SYSTEMD_PSTORE not found (package systemd)" >&2; exit 1; }
# systemd-pstore with its built-in defaults (Storage=external, Unlink=yes),
# whatever the host's pstore.conf says.
for f in /etc/systemd/pstore.conf /etc/systemd/pstore.conf.d; do
	[ -e "$f" ] || continue
	if [ -d "$f" ]; then mount -t tmpfs tmpfs "$f"; else mount --bind /dev/null "$f"; fi
done

"$top_builddir/bench/bench-archive" --journald-pid="$JOURNALD_PID" "$@" \
	"$top_builddir/daemon/pstored" "$SYSTEMD_PSTORE"
