#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-archive [OPTIONS...]: bench/bench-archive (pstored archive against
# systemd-pstore on the same fake ERST pstore) against one real journald of
# its own, in a private mount namespace (tests/lib/journald.sh), so that the
# host's journal gets none of the entries. OPTIONS go to bench-archive.
# Run by "make bench-archive" (as root).
#
# The stores go on a file system of their own: a fresh ext4 as mke2fs makes
# it by default (with a journal, as Debian installs /var), on a loop device
# that writes straight to its image (direct I/O, so that the host's page
# cache does not write it back a second time). A file system that other
# programs use meanwhile, or one without a journal (ext4 then scans for
# recently deleted inodes at every create), makes the figures vary from run
# to run. --dir=DIR among OPTIONS measures on DIR's file system instead (and
# --keep keeps the stores only there).
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

# The fake pstores on a tmpfs, as /sys/fs/pstore is RAM (see bench-archive.c).
PSTORE_BASE=$(mktemp -d /tmp/bench-archive-pstore.XXXXXX)
mount -t tmpfs -o mode=0700 tmpfs "$PSTORE_BASE"
DISK=$(mktemp -d "${TMPDIR:-/var/tmp}/bench-archive-disk.XXXXXX")
cleanup() {
	! mountpoint -q "$DISK/mnt" || umount "$DISK/mnt"
	[ -z "${LOOP:-}" ] || losetup -d "$LOOP"
	rm -rf "$DISK"
	umount "$PSTORE_BASE" && rmdir "$PSTORE_BASE"
	journald_stop
}
trap cleanup EXIT
dir_opt=
for arg; do
	case "$arg" in --dir=*) dir_opt=$arg ;; esac
done
if [ -z "$dir_opt" ]; then
	truncate -s 2G "$DISK/image"
	mke2fs -q -t ext4 "$DISK/image"
	LOOP=$(losetup --direct-io=on --find --show "$DISK/image")
	mkdir "$DISK/mnt"
	mount "$LOOP" "$DISK/mnt"
	echo "stores on a fresh ext4 on $LOOP (direct I/O to $DISK/image)"
	dir_opt=--dir="$DISK/mnt"
fi
"$top_builddir/bench/bench-archive" --journald-pid="$JOURNALD_PID" --pstore-base="$PSTORE_BASE" \
	"$dir_opt" "$@" "$top_builddir/daemon/pstored" "$SYSTEMD_PSTORE"
