#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make sample (tools/run-sample), the README's first command: what it prints
# is tests/cli/sample/expected, whole (the paths made words): the sample's
# crashes at their records' own times, 2025-12-01 10:00 UTC, not the
# checkout's, then the commands to try, each of which must run as printed.
# The sample's records agree with themselves: each crash's reason is what
# its log shows (a panic's message is the panic's, an oops's the oops's).
set -u
. "$top_srcdir/tests/lib/checks.sh"

builddir=$(realpath "$top_builddir")
srcdir=$(realpath "$top_srcdir")
tmp=$(mktemp -d /tmp/test-sample.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C.UTF-8
unset PAGER PSTORECTL_PAGER COLUMNS

# normalize: the paths of this run made words.
normalize() {
	sed -e "s|$tmp/sample|SAMPLE|g" -e "s|$builddir|BUILDDIR|g" -e "s|$srcdir|SRCDIR|g"
}

"$srcdir/tools/run-sample" "$builddir" "$srcdir" "$tmp/sample" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; echo "FAIL: run-sample" >&2; exit 1; }
normalize <"$tmp/out" >"$tmp/normalized"
check "run-sample prints the list and the commands to try" \
	diff -u "$srcdir/tests/cli/sample/expected" "$tmp/normalized"
check "the store stays in the directory it names" test -f "$tmp/sample/store/index"

# Each command it suggests runs as printed, and says something.
grep '^  /' "$tmp/out" >"$tmp/commands"
check "it suggests commands" test -s "$tmp/commands"
while read -r -a cmd; do
	case=$(echo "${cmd[*]}" | normalize)
	"${cmd[@]}" --no-pager >"$tmp/cmd-out" 2>"$tmp/cmd-err"
	check "exits 0" test $? -eq 0
	check "prints something" test -s "$tmp/cmd-out"
done <"$tmp/commands"
case=""

# The reason of each sample crash, and the message its log gives.
"$builddir/cli/pstorectl" --store-dir="$tmp/sample/store" --json=short list |
	jq -r '.[] | select(.kind == "kernel-crash") | "\(.reason)\t\(.message)"' >"$tmp/reasons"
check "the panic's message is a panic's" grep -qx $'panic\tKernel panic - not syncing: .*' \
	"$tmp/reasons"
check "the oops's message is an oops's" grep -qx $'oops\tBUG: .*' "$tmp/reasons"
check "no oops shows a panic's message" eq "$(grep -c $'^oops\tKernel panic' "$tmp/reasons")" 0
checks_done
