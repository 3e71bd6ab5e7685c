#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstorectl decode of kernel logs, data-driven: every directory under
# tests/cli/decode/ is one run of "pstorectl decode ARGS" in that directory:
#   input   the file decoded, often a link to a log of the analyser's corpus
#   args    the arguments, one per line (default: input)
#   stdin   what the run reads on its standard input, if the file exists
#   stdout  what it must print, whole
#   stderr  what it must log, whole (default: nothing)
#   status  its exit status (default: 0)
# Then what is too large to keep in the tree: a 10 MB line before an oops.
set -u
. "$top_srcdir/tests/lib/checks.sh"

PSTORECTL=$top_builddir/cli/pstorectl
tmp=$(mktemp -d /tmp/test-decode-log.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for dir in "$top_srcdir"/tests/cli/decode/*/; do
	case=$(basename "$dir")
	args=(input)
	[ -f "$dir/args" ] && mapfile -t args <"$dir/args"
	stdin=/dev/null
	[ -f "$dir/stdin" ] && stdin=$dir/stdin
	rc=0
	(cd "$dir" && exec "$PSTORECTL" decode "${args[@]}") <"$stdin" >"$tmp/out" 2>"$tmp/err" ||
		rc=$?
	check "exit status" eq "$rc" "$(cat "$dir/status" 2>/dev/null || echo 0)"
	check "stdout" diff -u "$dir/stdout" "$tmp/out"
	if [ -f "$dir/stderr" ]; then
		check "stderr" diff -u "$dir/stderr" "$tmp/err"
	else
		check "stderr" diff -u /dev/null "$tmp/err"
	fi
done

# A line of 10 MB (a log of binary junk someone pasted, a runaway printk) before a real oops:
# the same analysis as of the oops alone, in time linear in the size.
case=10mb-line
oops=$top_srcdir/tests/analyse/real-world/dev/x86_64-page-fault-2.6.38-zfs/dmesg.txt
{
	head -c $((10 * 1024 * 1024)) /dev/zero | tr '\0' 'x'
	echo
	cat "$oops"
} >"$tmp/big.log"
rc=0
"$PSTORECTL" decode --json=short "$tmp/big.log" >"$tmp/big.json" 2>"$tmp/err" || rc=$?
check "exit status" eq "$rc" 0
"$PSTORECTL" decode --json=short "$oops" >"$tmp/oops.json"
check "the analysis of the oops alone" eq "$(jq -c .analysis "$tmp/big.json")" \
	"$(jq -c .analysis "$tmp/oops.json")"

checks_done
