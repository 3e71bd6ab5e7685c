#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The EXAMPLES of pstorectl(1), as man shows them (rendered with groff, so
# that what roff does to quotes and dashes is what is run), run against the
# store of make sample: the id 3f2a stands for a crash of the sample, and
# "journalctl -k -b -1" for the oops's log. Each exits 0, or 1 with "No
# crashes found." where nothing in the sample matches, as pstorectl(1)
# documents. The EXAMPLE of pstored.conf(5) passes pstored verify-config.
set -u
. "$top_srcdir/tests/lib/checks.sh"

builddir=$(realpath "$top_builddir")
srcdir=$(realpath "$top_srcdir")
tmp=$(mktemp -d /tmp/test-man-examples.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C.UTF-8
unset PAGER PSTORECTL_PAGER COLUMNS

"$srcdir/tools/run-sample" "$builddir" "$srcdir" "$tmp/sample" >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; echo "FAIL: run-sample" >&2; exit 1; }
store=$tmp/sample/store
panic=$("$builddir/cli/pstorectl" --store-dir="$store" --json=short list --reason=panic |
	jq -r '.[0].id')
oops=$("$builddir/cli/pstorectl" --store-dir="$store" --json=short list --reason=oops |
	jq -r '.[0].id')

# example_commands MANPAGE: the commands of its EXAMPLES, one a line, as man shows them (wide,
# so that none is broken over two lines).
example_commands() {
	groff -man -Tascii -P-cbou -rLL=300n "$1" 2>/dev/null |
		sed -n '/^EXAMPLES$/,/^[A-Z]/p' | sed -n 's/^       \([^ ].*\)$/\1/p'
}

example_commands "$srcdir/man/pstorectl.1" >"$tmp/examples"
check "pstorectl(1) has examples" test "$(wc -l <"$tmp/examples")" -ge 5
# status reads the machine's sysfs and pstore: a fake pair instead, of a
# machine whose crashes are kept (efi registered, nothing waiting), so that
# what it warns about does not depend on where the test runs.
mkdir -p "$tmp/sys/module/pstore/parameters" "$tmp/sys/kernel" "$tmp/pstore"
echo efi >"$tmp/sys/module/pstore/parameters/backend"
echo 0 >"$tmp/sys/kernel/kexec_crash_size"
echo 0 >"$tmp/sys/kernel/kexec_crash_loaded"
cat >"$tmp/env.sh" <<-EOT
	pstorectl() {
		case " \$* " in
		*" status "*) set -- "\$@" --sysfs-dir="$tmp/sys" --pstore-dir="$tmp/pstore" ;;
		esac
		"$builddir/cli/pstorectl" --store-dir="$store" --no-pager "\$@"
	}
	journalctl() { cat "$store/$oops/dmesg.txt"; }
EOT
mkdir "$tmp/cwd"
while IFS= read -r example; do
	case=$example
	command=${example//3f2a/${panic:0:8}}
	(cd "$tmp/cwd" && . "$tmp/env.sh" && set -o pipefail && eval "$command") \
		>"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 1 ] && [ "$(cat "$tmp/err")" = "pstorectl: No crashes found." ]; then
		check "nothing in the sample matches, as documented" test ! -s "$tmp/out"
		continue
	fi
	check "exits 0" eq "$status" 0 || cat "$tmp/err" >&2
	check "says nothing on stderr" test ! -s "$tmp/err" || cat "$tmp/err" >&2
	case $example in
	*"decode -"*) check "finds the oops" grep -qw oops "$tmp/out" ;;
	*"-o crash.json"*) check "writes the crash" eq "$(jq -r .id "$tmp/cwd/crash.json")" "$panic" ;;
	esac
done <"$tmp/examples"
case=""

# pstored.conf(5): its EXAMPLE, the lines between .nf and .fi.
sed -n '/^\.SH EXAMPLE/,/^\.SH /p' "$srcdir/man/pstored.conf.5" | sed -n '/^\.nf$/,/^\.fi$/p' |
	sed '1d;$d' >"$tmp/example.conf"
check "pstored.conf(5) has an example" grep -q '^\[Target\.' "$tmp/example.conf"
check "pstored.conf(5)'s example is a valid configuration" \
	"$builddir/daemon/pstored" --config="$tmp/example.conf" verify-config
checks_done
