#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# "pstored upload" and "pstorectl upload" run from the build tree without
# $PSTORED_UPLOAD_HELPER or $PSTORECTL_UPLOAD_HELPER: each finds the helper
# built beside it, not the installed one (lib/basic/build-path.c).

. "$top_srcdir/tests/upload/lib.sh"

unset PSTORED_UPLOAD_HELPER PSTORECTL_UPLOAD_HELPER
mkdir "$STORE"
: >"$T/pstored.conf"

"$PSTORED" upload --config="$T/pstored.conf" --store-dir="$STORE" >"$T/out" 2>&1 ||
	fail "pstored upload: $(cat "$T/out")"
cat >"$T/expected" <<-'EOF2'
	pstored: No upload target configured ([Target.NAME] in pstored.conf): nothing to do.
	pstored: Upload: 0 sent, 0 deferred, 0 failed, 0 not due yet, 0 failed before for this configuration, over 0 connections.
EOF2
diff -u "$T/expected" "$T/out" || fail "pstored upload from the build tree"

"$PSTORECTL" upload --config="$T/pstored.conf" --store-dir="$STORE" >"$T/out" 2>&1 ||
	fail "pstorectl upload: $(cat "$T/out")"
cat >"$T/expected" <<-'EOF2'
	pstorectl: No upload target configured ([Target.NAME] in pstored.conf): nothing to do.
	0 sent, 0 deferred, 0 failed.
EOF2
diff -u "$T/expected" "$T/out" || fail "pstorectl upload from the build tree"
