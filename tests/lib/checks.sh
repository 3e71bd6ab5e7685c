# SPDX-License-Identifier: GPL-2.0-or-later
#
# Counting checks for the shell tests: source it, run checks, end with
# checks_done. A failure is reported and counted, and the test goes on, so
# that one run shows every check that fails. $case, when set, names the
# part of the test that is running.

failures=0
tests=0

# fail MESSAGE: report and count a failure.
fail() {
	echo "FAIL: ${case:+$case: }$*" >&2
	failures=$((failures + 1))
}

# check DESCRIPTION COMMAND...: the command must succeed.
check() {
	local what=$1
	shift
	tests=$((tests + 1))
	if "$@"; then echo "ok: ${case:+$case: }$what"; else fail "$what"; fi
}

# eq ACTUAL EXPECTED: for check; says what differs.
eq() { [ "$1" = "$2" ] || { echo "  expected '$2', got '$1'" >&2; return 1; }; }

# checks_done: the tally, and the test's exit status.
checks_done() {
	echo "$tests checks, $failures failed"
	[ "$failures" -eq 0 ]
}
