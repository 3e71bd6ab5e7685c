#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Symbolization with real parts: the system test's crash module (tests/system/crashtest/),
# built with -g against the installed linux-headers, makes the trace; eu-addr2line on the same
# addresses gives the lines the frames must get, the inlined call included, and two nested
# inlined calls of tests/cli/symbolize-nested/. The index of each module's symbols kept in
# $XDG_CACHE_HOME is used, and when corrupt or hostile ignored and rebuilt. The module is
# then served by build id from a real debuginfod, in a network namespace of the test's own
# (debuginfod listens on every address). And the programs that must not link libdw or
# libdebuginfod do not. Skipped (77) without linux-headers or elfutils.
set -eu

PSTORECTL=$top_builddir/cli/pstorectl
PSTORED=$top_builddir/daemon/pstored
tmp=$(mktemp -d /tmp/test-symbolize.XXXXXX)
debuginfod_pid=
cleanup() {
	[ -z "$debuginfod_pid" ] || kill "$debuginfod_pid" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$top_srcdir/tests/lib/checks.sh"
unset DEBUGINFOD_URLS
export XDG_CACHE_HOME=$tmp/cache

# Neither pstored nor pstorectl links libdw or libdebuginfod: pstorectl-symbolize alone does.
links() { readelf -d "$1" | grep -E 'NEEDED.*(libdw|libdebuginfod)' || :; }
check "pstored links neither libdw nor libdebuginfod" eq "$(links "$PSTORED")" ""
check "pstorectl links neither libdw nor libdebuginfod" eq "$(links "$PSTORECTL")" ""
check "pstorectl-symbolize links libdw, not libdebuginfod (loaded when needed)" eq \
	"$(links "$top_builddir/cli/pstorectl-symbolize" | grep -o 'lib[a-z]*\.so[.0-9]*')" "libdw.so.1"

# Without the helper (its own package, pstored-symbolize): the frames as the log has them, as
# with --no-symbolize, and one notice. The log: a soft lockup in the boot test's guest.
log=$top_srcdir/bench/symbolize-trace.txt
PSTORECTL_SYMBOLIZE_HELPER=$tmp/none "$PSTORECTL" decode "$log" >"$tmp/bare.out" 2>"$tmp/bare.err"
check "no helper: decode succeeds, its output that of --no-symbolize" \
	diff -u <("$PSTORECTL" decode --no-symbolize "$log") "$tmp/bare.out"
check "no helper: one notice, which says what to install" eq "$(cat "$tmp/bare.err")" \
	"pstorectl: $tmp/none is not installed: the frames are shown without source lines (on Debian, install pstored-symbolize; --no-symbolize skips this)."

headers=$(ls -d /usr/src/linux-headers-*/ 2>/dev/null | while read -r d; do
	[ -f "$d/Module.symvers" ] && echo "$d"; done | head -n 1)
if [ -z "$headers" ] || ! command -v eu-addr2line >/dev/null; then
	echo "SKIP: no linux-headers with Module.symvers, or no eu-addr2line (tools/install-deps --vm)"
	checks_done
	exit 77
fi
release=$(basename "$headers" | sed 's/^linux-headers-//')
mkdir "$tmp/mod"
cp "$top_srcdir"/tests/system/crashtest/pstored_crashtest.c \
	"$top_srcdir"/tests/cli/symbolize-nested/symbolize_nested.c "$tmp/mod/"
echo 'obj-m := pstored_crashtest.o symbolize_nested.o' >"$tmp/mod/Kbuild"
make -s -C "$headers" M="$tmp/mod" ccflags-y=-g modules >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log" >&2; exit 1; }
ko=$tmp/mod/pstored_crashtest.ko
nested_ko=$tmp/mod/symbolize_nested.ko

# size FUNCTION: its st_size in hex, as the kernel prints it for a function padded to none
size() { printf '0x%x' "0x$(nm -S "$ko" | awk -v f="$1" '$4 == f { print $2 }')"; }
# The first offset of crashtest_spin whose line is in an inlined function.
spin_size=$(size crashtest_spin)
for ((off = 1; off < spin_size; off++)); do
	eu-addr2line -e "$ko" -i -f "crashtest_spin+$off" | grep -q ' inlined at ' && break
done
check "crashtest_spin has an inlined call" test "$off" -lt "$((spin_size))"
spin_off=$(printf '0x%x' "$off")
init_size=$(size crashtest_init)
init_off=$(printf '0x%x' $((init_size / 2)))

# oops KERNEL SPIN_SIZE: a log of the module's oops, the frames of its trace at those offsets
oops() {
	cat <<-EOF
	<1>[   50.000001] BUG: kernel NULL pointer dereference, address: 0000000000000000
	<4>[   50.000002] Oops: 0002 [#1] PREEMPT SMP NOPTI
	<4>[   50.000003] CPU: 0 PID: 412 Comm: insmod Tainted: G           OE      $1 #1  Debian 6.1.192-3
	<4>[   50.000004] RIP: 0010:crashtest_spin+$spin_off/$2 [pstored_crashtest]
	<4>[   50.000005] Call Trace:
	<4>[   50.000006]  <TASK>
	<4>[   50.000007]  crashtest_spin+$spin_off/$2 [pstored_crashtest]
	<4>[   50.000008]  crashtest_init+$init_off/$init_size [pstored_crashtest]
	<4>[   50.000009]  do_one_initcall+0x41/0x200
	<4>[   50.000010]  </TASK>
	EOF
}
oops "$release" "$spin_size" >"$tmp/oops.txt"

# addr2line FUNC+OFF [KO]: "function file:line" of each eu-addr2line -i line pair, innermost
# first, file relative to the module's directory as pstorectl gives it.
addr2line() {
	eu-addr2line -e "${2:-$ko}" -i -f "$1" | paste - - |
		sed -E "s| inlined at [^\t]*||; s|\t| |; s|:[0-9]+$||; s|$tmp/mod/||"
}
# frames: "function file:line" of each frame and inlined call, as pstorectl --json gives them
frames() {
	jq -r '.analysis.frames[] | select(.module) | (.inlined[] | "\(.function) \(.file):\(.line)"),
		"\(.function) \(.file):\(.line)"' "$1" | sed "s|$tmp/mod/||"
}
{
	addr2line "crashtest_spin+$spin_off" # the first frame: its own address
	addr2line "crashtest_init+$(printf '0x%x' $((init_off - 1)))" # a return address, less one
} >"$tmp/expected"

"$PSTORECTL" decode --json=short --debug-dir="$tmp/mod" "$tmp/oops.txt" >"$tmp/decode.json"
check "decode: module frames at eu-addr2line's file:line, inlined call first" \
	diff -u "$tmp/expected" <(frames "$tmp/decode.json")
check "decode: vmlinux frame unresolved, with the reason" eq \
	"$(jq -r '.analysis.frames[2].unresolved' "$tmp/decode.json")" \
	"no debug file for vmlinux $release (install its debug symbols, set DEBUGINFOD_URLS or give --debug-dir=)"
"$PSTORECTL" decode --debug-dir="$tmp/mod" "$tmp/oops.txt" | sed "s|$tmp/mod/||" >"$tmp/decode.txt"
inlined=$(head -n 1 "$tmp/expected")
check "decode: the frame with its line, the inlined call under it" grep -qxF \
	"   Call trace: crashtest_spin+$spin_off/$spin_size [pstored_crashtest] ($(sed -n 2p "$tmp/expected" | cut -d' ' -f2))" \
	"$tmp/decode.txt"
check "decode: the inlined call" grep -qxF \
	"                 inlined ${inlined% *} (${inlined##* })" "$tmp/decode.txt"
check "decode --no-symbolize: the frames as the log has them" grep -qxF \
	"   Call trace: crashtest_spin+$spin_off/$spin_size [pstored_crashtest]" \
	<("$PSTORECTL" decode --no-symbolize --debug-dir="$tmp/mod" "$tmp/oops.txt")

# Two inlined calls, one in the other: both, innermost first, then the frame's own line.
outer_size=$(printf '0x%x' "0x$(nm -S "$nested_ko" | awk '$4 == "nested_outer" { print $2 }')")
for ((off = 1; off < outer_size; off++)); do
	[ "$(eu-addr2line -e "$nested_ko" -i -f "nested_outer+$off" | wc -l)" -eq 6 ] && break
done
outer_off=$(printf '0x%x' "$off")
sed "s|crashtest_spin+$spin_off/$spin_size \[pstored_crashtest\]|nested_outer+$outer_off/$outer_size [symbolize_nested]|" \
	"$tmp/oops.txt" >"$tmp/nested.txt"
"$PSTORECTL" decode --json=short --debug-dir="$tmp/mod" "$tmp/nested.txt" >"$tmp/nested.json"
check "two nested inlined calls: both, as eu-addr2line gives them" diff -u \
	<(addr2line "nested_outer+$outer_off" "$nested_ko") \
	<(frames "$tmp/nested.json" | head -n 3)

# The index of the module's symbols, kept by build id: used, and never trusted.
index=$XDG_CACHE_HOME/pstored/symbolize/$(eu-readelf -n "$ko" | sed -n 's/^ *Build ID: //p')
check "the symbol index is kept by build id, for the user alone" eq \
	"$(stat -c '%a' "$(dirname "$index")") $(stat -c '%a %F' "$index")" "700 600 regular file"
cp "$index" "$tmp/index.good"
"$PSTORECTL" decode --json=short --debug-dir="$tmp/mod" "$tmp/oops.txt" >"$tmp/decode-warm.json"
check "with the index kept, the same frames" diff -u "$tmp/decode.json" "$tmp/decode-warm.json"
# hostile NAME PYTHON [kept]: the index changed by PYTHON (on bytearray b, entries in e), then
# used: the frames as before, and the index rebuilt as it was, unless kept (entries that still
# give the right symbols where they are searched need no rebuilding).
hostile() {
	python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read())
e = [b[i:i + 8] for i in range(96, len(b), 8)]; $2
open(sys.argv[1], 'wb').write(b)" "$index"
	"$PSTORECTL" decode --json=short --debug-dir="$tmp/mod" "$tmp/oops.txt" >"$tmp/decode-$1.json"
	check "index $1: the same frames" diff -u "$tmp/decode.json" "$tmp/decode-$1.json"
	[ "${3:-}" = kept ] || check "index $1: rebuilt" cmp "$tmp/index.good" "$index"
	cp "$tmp/index.good" "$index"
}
n_entries=$(python3 -c "import sys; print(int.from_bytes(open(sys.argv[1], 'rb').read()[12:16], 'little'))" "$index")
hostile truncated "b = b[:50]"
hostile empty "b = b''"
hostile longer "b += b'\0' * 8"
hostile version "b[8] = 2"
hostile "build id" "b[32] ^= 1"
hostile "file size" "b[16] ^= 1"
hostile "entry count" "b[12:16] = (2**31).to_bytes(4, 'little')"
hostile "symbol out of range" "b[96:100] = (2**32 - 2).to_bytes(4, 'little')"
hostile "null symbol" "b[96:100] = bytes(4)"
# Entries in reverse: out of order, every lookup misses.
hostile reversed "b = b[:96] + b''.join(reversed(e))"
# Each entry's next symbol its own: a span of 0.
hostile "next symbol" "b = b[:96] + b''.join(x[:4] + x[:4] for x in e)"
# Each entry with the symbol of the one after it, its next symbol another's.
hostile "symbols shifted" "b = b[:96] + b''.join(e[i - 1][:4] + e[i][4:] for i in range(len(e)))" kept
check "the module's index has entries to change" test "$n_entries" -gt 2
# A link planted where the index goes is replaced, not followed.
rm "$index"
ln -s "$tmp/planted" "$index"
echo planted >"$tmp/planted"
"$PSTORECTL" decode --json=short --debug-dir="$tmp/mod" "$tmp/oops.txt" >"$tmp/decode-link.json"
check "index a symlink: the same frames" diff -u "$tmp/decode.json" "$tmp/decode-link.json"
check "index a symlink: replaced by the index, its target untouched" eq \
	"$(cat "$tmp/planted"; test -L "$index" || cmp "$tmp/index.good" "$index" && echo ok)" \
	"planted
ok"

# An x86 trace: the RIP line apart, the call trace from the caller on, so that its first frame is
# a return address too, looked up one byte back (at an offset where that is another line). That
# frame is in crashtest_init, the last function of .init.text, whose size the kernel counts to the
# end of the module's text, page-aligned: not another build.
for ((ret = 1; ret < init_size; ret++)); do
	[ "$(eu-addr2line -e "$ko" "crashtest_init+$(printf '0x%x' "$ret")")" = \
		"$(eu-addr2line -e "$ko" "crashtest_init+$(printf '0x%x' $((ret - 1)))")" ] || break
done
check "crashtest_init has two lines" test "$ret" -lt "$((init_size))"
cat >"$tmp/x86.txt" <<EOF
<1>[   50.000001] BUG: kernel NULL pointer dereference, address: 0000000000000000
<4>[   50.000002] Oops: 0002 [#1] PREEMPT SMP NOPTI
<4>[   50.000003] CPU: 0 PID: 412 Comm: insmod Tainted: G           OE      $release #1  Debian 6.1.192-3
<4>[   50.000004] RIP: 0010:crashtest_null_deref+0x1/$(size crashtest_null_deref) [pstored_crashtest]
<4>[   50.000005] Call Trace:
<4>[   50.000006]  <TASK>
<4>[   50.000007]  crashtest_init+$(printf '0x%x' "$ret")/0x1000 [pstored_crashtest]
<4>[   50.000008]  do_one_initcall+0x41/0x200
<4>[   50.000009]  </TASK>
EOF
check "x86 trace: its first frame, a return address of a function at the end of its section" \
	diff -u <(addr2line "crashtest_init+$(printf '0x%x' $((ret - 1)))") \
	<("$PSTORECTL" decode --json=short --debug-dir="$tmp/mod" "$tmp/x86.txt" | frames /dev/stdin)

# A function of another size than the log's (smaller: the kernel counts no less than st_size):
# another build, refused for every frame of it.
wrong_size=$(printf '0x%x' $((spin_size - 1)))
oops "$release" "$wrong_size" >"$tmp/wrong.txt"
"$PSTORECTL" decode --json=short --debug-dir="$tmp/mod" "$tmp/wrong.txt" >"$tmp/wrong.json"
check "a mismatching module is refused" eq \
	"$(jq -r '[.analysis.frames[] | select(.module) | .unresolved] | unique[]' "$tmp/wrong.json")" \
	"$ko does not match the crashed kernel: crashtest_spin is $spin_size bytes there, $wrong_size in the log"

# An offset past the function's end would be another function's line.
sed "s|crashtest_init+$init_off/|crashtest_init+$(printf '0x%x' $((init_size + 1)))/|" \
	"$tmp/oops.txt" >"$tmp/past.txt"
check "an offset past the function's end is not resolved" eq "$("$PSTORECTL" decode --json=short \
	--debug-dir="$tmp/mod" "$tmp/past.txt" | jq -r '.analysis.frames[1].unresolved')" \
	"the offset is past the function's end"

# A module name from the log that would name a path: never looked up.
sed 's/\[pstored_crashtest\]/[..\/..\/mod]/' "$tmp/oops.txt" >"$tmp/path.txt"
check "a module name that is a path is refused" eq "$("$PSTORECTL" decode --json=short \
	--debug-dir="$tmp/mod" "$tmp/path.txt" | jq -r '[.analysis.frames[0,1].unresolved] | unique[]')" \
	"not a module name"

# At a collector: the crash archived with the module's build id, symbolized through debuginfod,
# from the store and from the journal file that systemd-journal-remote wrote of its upload.
JOURNAL_REMOTE=/usr/lib/systemd/systemd-journal-remote
if ! unshare -n true 2>/dev/null || ! command -v debuginfod >/dev/null || [ ! -x "$JOURNAL_REMOTE" ]; then
	echo "SKIP: debuginfod part (no network namespace, debuginfod or systemd-journal-remote)"
	checks_done
	exit
fi
module_id=$(eu-readelf -n "$ko" | sed -n 's/^ *Build ID: //p')
mkdir -p "$tmp/pstore" "$tmp/sys/module/pstored_crashtest/notes" "$tmp/sys/kernel" "$tmp/served"
objcopy -O binary --only-section=.note.gnu.build-id "$ko" \
	"$tmp/sys/module/pstored_crashtest/notes/.note.gnu.build-id"
{ echo "Oops#1 Part1"; oops "$(uname -r)" "$spin_size"; } >"$tmp/pstore/dmesg-erst-7581047046029410305"
"$PSTORED" archive --no-journal --config=/dev/null --pstore-dir="$tmp/pstore" \
	--store-dir="$tmp/store" --sysfs-dir="$tmp/sys"
id=$(basename "$(find "$tmp/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*')")
check "archived with the module's build id" eq \
	"$(jq -r .build_ids.modules.pstored_crashtest "$tmp/store/$id/crash.json")" "$module_id"
# The crash's build id is not the file's: another build, refused.
cp -a "$tmp/store" "$tmp/other-store"
jq '.build_ids.modules.pstored_crashtest = "0123456789abcdef0123456789abcdef01234567"' \
	"$tmp/store/$id/crash.json" >"$tmp/other-store/$id/crash.json"
check "a module of another build id is refused" eq "$("$PSTORECTL" --store-dir="$tmp/other-store" \
	--json=short show --debug-dir="$tmp/mod" "$id" | jq -r '.analysis.frames[0].unresolved')" \
	"$ko is another build (build id $module_id, the crashed pstored_crashtest's is 0123456789abcdef0123456789abcdef01234567)"
cp "$ko" "$tmp/served/"
# In the namespace: debuginfod on the served directory, and pstorectl show through it.
unshare -n bash -c '
	set -eu
	ip link set lo up
	debuginfod -F "$1/served" -p 8002 -d "$1/debuginfod.sqlite" >"$1/debuginfod.log" 2>&1 &
	trap "kill $! 2>/dev/null; wait" EXIT
	for ((i = 0; i < 600; i++)); do
		curl -sf -o /dev/null "http://127.0.0.1:8002/buildid/$2/debuginfo" && break
		sleep 0.1
	done
	export DEBUGINFOD_URLS=http://127.0.0.1:8002
	DEBUGINFOD_CACHE_PATH="$1/cache" "$3" --store-dir="$1/store" --json=short show "$4" \
		>"$1/show.json"
	# on a terminal, with a cold cache: the download says so
	DEBUGINFOD_CACHE_PATH="$1/cache2" script -qec \
		"$3 --store-dir=$1/store --no-pager show $4" /dev/null >"$1/show.tty"
	# The crash uploaded by pstored to systemd-journal-remote, shown from its journal file.
	mkdir "$1/remote"
	"$6" --listen-http=127.0.0.1:19532 --output="$1/remote/remote.journal" --split-mode=none \
		>"$1/journal-remote.log" 2>&1 &
	jr=$!
	for ((i = 0; i < 600; i++)); do
		(echo >/dev/tcp/127.0.0.1/19532) 2>/dev/null && break
		sleep 0.1
	done
	printf "[Target.collector]\nType=journal-remote\nURL=http://127.0.0.1:19532/upload\n" \
		>"$1/upload.conf"
	"$5" --config="$1/upload.conf" --store-dir="$1/store" upload >"$1/upload.log" 2>&1
	kill "$jr"
	wait "$jr" || :
	DEBUGINFOD_CACHE_PATH="$1/cache3" "$3" -D "$1/remote" --json=short show "$4" \
		>"$1/show-journal.json"
' - "$tmp" "$module_id" "$PSTORECTL" "$id" "$PSTORED" "$JOURNAL_REMOTE"
check "show through debuginfod: the lines of eu-addr2line, by build id" \
	diff -u <(sed "s|$tmp/mod/||" "$tmp/expected") <(frames "$tmp/show.json")
check "show on a terminal: the download's progress" \
	grep -q "Fetching the debug file of pstored_crashtest from debuginfod: [0-9]" \
	"$tmp/show.tty"
check "show on a terminal: the frame with its line" grep -q \
	"crashtest_spin+$spin_off/$spin_size \[pstored_crashtest\] (.*pstored_crashtest.c:[0-9]*)" \
	"$tmp/show.tty"
check "journal entry at a collector: the module's build id" eq \
	"$(jq -r .build_ids.modules.pstored_crashtest "$tmp/show-journal.json")" "$module_id"
check "journal entry at a collector: the lines of eu-addr2line, by build id" \
	diff -u <(sed "s|$tmp/mod/||" "$tmp/expected") <(frames "$tmp/show-journal.json")
check "debuginfod served the module by its build id" \
	grep -q "GET /buildid/$module_id/debuginfo 200" "$tmp/debuginfod.log"

checks_done
