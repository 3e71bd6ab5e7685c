#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstored verify-config on every case of tests/config/cases/ that is one
# pstored.conf: the warnings of the case's "warnings" file as pstored logs
# them, a count, and exit status 1; for a case without, no output and 0.
set -eu
. "$top_srcdir/tests/lib/checks.sh"

PSTORED=$top_builddir/daemon/pstored
tmp=$(mktemp -d /tmp/test-verify-config.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for dir in "$top_srcdir"/tests/config/cases/*; do
	[ -f "$dir/pstored.conf" ] || continue
	case=$(basename "$dir")
	rc=0
	"$PSTORED" verify-config --config="$dir/pstored.conf" >"$tmp/out" 2>&1 || rc=$?
	if [ -f "$dir/warnings" ]; then
		n=$(grep -c '' "$dir/warnings")
		{
			# As pstored logs them: utf8_escape() shows these C0 controls as \xHH, C1 as \u00HH.
			sed "s|@CASE@|$dir|g; s|^|pstored: |" "$dir/warnings" |
				perl -pe 's/([\x00-\x06\x0e-\x1f\x7f])/sprintf("\\x%02x", ord $1)/ge;
					s/\xc2([\x80-\x9f])/sprintf("\\u%04x", ord $1)/ge'
			if [ "$n" = 1 ]; then
				echo "pstored: 1 problem in the configuration: fix it (see pstored.conf(5))."
			else
				echo "pstored: $n problems in the configuration: fix them (see pstored.conf(5))."
			fi
		} >"$tmp/want"
		check "exit status" eq "$rc" 1
	else
		: >"$tmp/want"
		check "exit status" eq "$rc" 0
	fi
	check "output" diff -u "$tmp/want" "$tmp/out"
done

# The file asked for is the one thing that must be there.
case=missing
rc=0
"$PSTORED" verify-config --config="$tmp/nonexistent.conf" >"$tmp/out" 2>&1 || rc=$?
check "exit status" eq "$rc" 1
echo "pstored: Failed to load the configuration: $tmp/nonexistent.conf: No such file or directory (see pstored.conf(5))" >"$tmp/want"
check "output" diff -u "$tmp/want" "$tmp/out"

checks_done
