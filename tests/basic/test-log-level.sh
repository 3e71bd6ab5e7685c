#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --log-level= and $PSTORED_LOG_LEVEL of pstored and pstorectl: debug
# messages appear only when asked for, a higher level hides notices (in
# pstorectl's upload helper too), and an unknown level is refused by the
# option and ignored with a warning in the environment.

set -eu
: "${top_builddir:?run from make check}"

PSTORED="$top_builddir/daemon/pstored"
PSTORECTL="$top_builddir/cli/pstorectl"
T=$(mktemp -d "${TMPDIR:-/dev/shm}/pstored-log-level.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/pstore" "$T/store"
# No kdump directory: what debug prints must not depend on this machine's /var/crash.
printf '[Archive]\nKdump=no\n' >"$T/pstored.conf"
unset PSTORED_LOG_LEVEL
failures=0

# check NAME EXPECTED_RC EXPECTED_OUTPUT COMMAND...: the whole output (stdout and stderr).
check() {
	name=$1 expected_rc=$2 expected=$3
	shift 3
	rc=0
	"$@" >"$T/out" 2>&1 || rc=$?
	printf '%s' "$expected" | sed "s|@PSTORE@|$T/pstore|" >"$T/expected"
	if [ "$rc" -ne "$expected_rc" ] || ! diff -u "$T/expected" "$T/out"; then
		echo "FAIL: $name (exit status $rc, expected $expected_rc)" >&2
		failures=$((failures + 1))
	fi
}

archive() {
	"$PSTORED" "$@" archive --config="$T/pstored.conf" --pstore-dir="$T/pstore" \
		--store-dir="$T/store" --no-journal
}
no_records='pstored: @PSTORE@: no records.
'
hint='emerg, alert, crit, err, warning, notice, info, debug or 0 to 7.'

check "pstored: info by default" 0 '' archive
check "pstored --log-level=debug" 0 "$no_records" archive --log-level=debug
check "pstored --log-level=7" 0 "$no_records" archive --log-level=7
check "pstored --log-level=bogus" 1 "pstored: Unknown log level 'bogus': use $hint
" archive --log-level=bogus
check "PSTORED_LOG_LEVEL=debug pstored" 0 "$no_records" env PSTORED_LOG_LEVEL=debug \
	"$PSTORED" archive --config="$T/pstored.conf" --pstore-dir="$T/pstore" \
	--store-dir="$T/store" --no-journal
check "PSTORED_LOG_LEVEL=debug pstored --log-level=info: the option wins" 0 '' \
	env PSTORED_LOG_LEVEL=debug "$PSTORED" --log-level=info archive \
	--config="$T/pstored.conf" --pstore-dir="$T/pstore" --store-dir="$T/store" --no-journal
check "PSTORED_LOG_LEVEL=bogus pstored" 0 "pstored: Ignoring \$PSTORED_LOG_LEVEL='bogus': use $hint
" env PSTORED_LOG_LEVEL=bogus "$PSTORED" archive --config="$T/pstored.conf" \
	--pstore-dir="$T/pstore" --store-dir="$T/store" --no-journal

upload() {
	"$PSTORECTL" "$@" upload --config="$T/pstored.conf" --store-dir="$T/store"
}
nothing='pstorectl: No upload target configured ([Target.NAME] in pstored.conf): nothing to do.
0 sent, 0 deferred, 0 failed.
'
check "pstorectl upload" 0 "$nothing" upload
check "pstorectl --log-level=warning upload" 0 '0 sent, 0 deferred, 0 failed.
' upload --log-level=warning
check "PSTORED_LOG_LEVEL=err pstorectl upload" 0 '0 sent, 0 deferred, 0 failed.
' env PSTORED_LOG_LEVEL=err "$PSTORECTL" upload --config="$T/pstored.conf" --store-dir="$T/store"
check "pstorectl --log-level=bogus" 1 "pstorectl: Unknown log level 'bogus': use $hint
" upload --log-level=bogus

[ "$failures" -eq 0 ]
