#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Golden screens: what pstorectl shows on a real terminal, whole. The bundled
# sample (tests/fixtures/sample), its records dated 2025-12-01 10:00 UTC, is
# archived into a store; then every directory under tests/cli/screens/ is one
# run of "pstorectl ARGS" on a pseudo-terminal (script(1)) of its width:
#   args      the arguments after --store-dir=STORE, one per line, run in the
#             sample's directory (for decode) and without a pager
#   columns   the terminal's width (its height is 50 lines)
#   screen    what the terminal receives, whole: colours included, with the
#             store's path as STORE and the archiving run's time and boot
#             as ARCHIVED
#   env       NAME=VALUE lines added to the environment, if the file exists
# With PSTORED_UPDATE_SCREENS=1 the screens are written instead of compared
# (then read the diff before committing it).
# Then what the screens hold across ways of running: NO_COLOR, SYSTEMD_COLORS,
# a pipe, the pager, and less quitting at once when the list fits.
set -u
. "$top_srcdir/tests/lib/checks.sh"

PSTORED=$(realpath "$top_builddir/daemon/pstored")
PSTORECTL=$(realpath "$top_builddir/cli/pstorectl")
screens=$(realpath "$top_srcdir/tests/cli/screens")
sample=$(realpath "$top_srcdir/tests/fixtures/sample")
tmp=$(mktemp -d /tmp/test-screens.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
store=$tmp/store
export TZ=UTC LC_ALL=C.UTF-8
unset COLUMNS LINES NO_COLOR SYSTEMD_COLORS PAGER PSTORECTL_PAGER LESS
export TERM=xterm

cp -a "$sample" "$tmp/pstore"
touch -d @1764583200 "$tmp"/pstore/*
"$PSTORED" archive --pstore-dir="$tmp/pstore" --store-dir="$store" --config=/dev/null \
	--no-journal >"$tmp/archive.log" 2>&1 || { cat "$tmp/archive.log"; fail "pstored archive"; }

# screen COLUMNS CMD...: what a terminal COLUMNS wide receives from CMD, newlines as they are.
screen() {
	local columns=$1
	shift
	printf -v cmd '%q ' "$@"
	script -qec "stty cols $columns rows 50 -onlcr; $cmd" /dev/null </dev/null
}

# normalize: the store's path, and the archiving time and boot, made fixed words.
normalize() {
	sed -E -e "s|$store|STORE|g" -e 's/^( +Archived: ).*/\1ARCHIVED/'
}

for dir in "$screens"/*/; do
	case=$(basename "$dir")
	columns=$(cat "$dir/columns")
	mapfile -t args <"$dir/args"
	envs=()
	[ -f "$dir/env" ] && mapfile -t envs <"$dir/env"
	# In the sample's directory, for decode; no pager, as with --no-pager.
	(cd "$sample" &&
		screen "$columns" env PSTORECTL_PAGER=cat "${envs[@]}" \
			"$PSTORECTL" --store-dir="$store" "${args[@]}") | normalize >"$tmp/screen"
	if [ "${PSTORED_UPDATE_SCREENS-}" = 1 ]; then
		cp "$tmp/screen" "$dir/screen"
		continue
	fi
	check "screen" diff -u "$dir/screen" "$tmp/screen"
done
unset case

# What the screens promise (issue 36): no line wider than the terminal, and
# at 80 columns every crash's message, 30 columns of it at least.
strip_colors() { sed -E 's/\x1b\[[0-9;]*m//g' "$1"; }
for dir in "$screens"/list-*/ "$screens"/group-*/; do
	check "$(basename "$dir"): fits $(cat "$dir/columns") columns" test \
		"$(strip_colors "$dir/screen" | wc -L)" -le "$(cat "$dir/columns")"
done
check "list-80: every message, 30 columns of it at least" eq "$(strip_colors \
	"$screens/list-80/screen" | python3 -c 'import sys
lines = sys.stdin.read().splitlines()
at = lines[0].index("MESSAGE")
print(sum(len(l) - at >= 30 for l in lines[1:] if l[:3].isalpha()))')" 3

# The colours are all that NO_COLOR and SYSTEMD_COLORS=0 take away.
for off in NO_COLOR=1 SYSTEMD_COLORS=0; do
	screen 80 env "$off" "$PSTORECTL" --store-dir="$store" --no-pager list >"$tmp/plain"
	check "$off: no colours" diff -u <(strip_colors "$screens/list-80/screen") "$tmp/plain"
done
check "the golden screen has colours" grep -q $'\x1b\\[0;1;31m' "$screens/list-80/screen"

# Through a pager (a pipe), the same width and colours as on the terminal.
screen 80 env PSTORECTL_PAGER='cat -' "$PSTORECTL" --store-dir="$store" list >"$tmp/paged"
check "through the pager: the terminal's width" diff -u "$screens/list-80/screen" "$tmp/paged"
screen 200 env COLUMNS=80 PSTORECTL_PAGER='cat -' "$PSTORECTL" --store-dir="$store" list \
	>"$tmp/paged"
check "through the pager: COLUMNS" diff -u "$screens/list-80/screen" "$tmp/paged"

# To a pipe: every column and every character, no colour, as systemctl writes.
COLUMNS=80 "$PSTORECTL" --store-dir="$store" --no-pager list >"$tmp/piped"
check "to a pipe: the whole message" grep -q \
	'  Uncorrected machine check on CPU 0, bank 4: memory controller, memory read error, processor context corrupt, address 0x0000000012345000$' \
	"$tmp/piped"
check "to a pipe: every column" grep -q '^TIME  *ID  *KIND  *REASON  *KERNEL  *UPLOAD  *MESSAGE$' \
	"$tmp/piped"
check "to a pipe: no colour" eq "$(grep -c $'\x1b' "$tmp/piped")" 0

# Not UTF-8: "..." for the ellipsis, as systemd's ellipsize_mem() has it.
screen 80 env LC_ALL=C NO_COLOR=1 "$PSTORECTL" --store-dir="$store" --no-pager list >"$tmp/ascii"
check "C locale: ... for …" diff -u <(strip_colors "$screens/list-80/screen" |
	sed -E 's/..…$/.../') "$tmp/ascii"

# less with pstorectl's LESS: a list that fits one screen leaves no (END) to wait at.
# --foreground: less stays in the terminal's foreground process group, or slow input
# sends it to tcsetattr() from the background and SIGTTOU stops it.
rc=0
screen 80 env PSTORECTL_PAGER=less timeout --foreground 60 \
	"$PSTORECTL" --store-dir="$store" list >"$tmp/less" || rc=$?
check "less quits when the list fits one screen" grep -q '^3 crashes listed\.' \
	<(sed -E 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1b[=>]//g; s/\r//g' "$tmp/less")
check "less: exits by itself, not after the timeout" eq "$rc" 0
screen 80 env PSTORECTL_PAGER='echo "LESS=$LESS" >&2; cat >/dev/null' \
	"$PSTORECTL" --store-dir="$store" list >"$tmp/less-env"
check "LESS defaults to FRXMK" grep -q '^LESS=FRXMK$' "$tmp/less-env"
screen 80 env LESS=X PSTORECTL_PAGER='echo "LESS=$LESS" >&2; cat >/dev/null' \
	"$PSTORECTL" --store-dir="$store" list >"$tmp/less-env"
check "the user's LESS wins" grep -q '^LESS=X$' "$tmp/less-env"

checks_done
