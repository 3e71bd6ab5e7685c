#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-fleet [MACHINES] [CRASHES]: a real systemd-journal-remote on
# loopback receives CRASHES (100) crashes from each of MACHINES (100)
# "pstored upload" runs that act as different machines (a machine id, host
# name and store each; 20 signatures, 3 kernels). Then, on the files it
# wrote, "pstorectl -D DIR list --group" next to
# "journalctl -D DIR MESSAGE_ID=... -o json | wc -l": the medians of the
# wall and CPU times of 5 runs each (the CPU time tells more on a busy
# machine). The same crashes go to Debian's clickhouse-server too, through
# the clickhouse target (its upload timed apart: the insert rate), and
# "pstorectl --clickhouse=URL list --group" is timed against -D, with the
# ratio (skipped without clickhouse-server). Run by "make bench-fleet" (as
# root, like the upload tests).

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root
machines=${1:-100}
per=${2:-100}
runs=5

# Nanoseconds from date(1): a Python would take longer to start than what it times.
now() { date +%s%N; }
seconds() { awk "BEGIN { printf \"%.3f\", ($2 - $1) / 1e9 }"; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# timed FILE COMMAND...: appends the command's wall and CPU (user + system) seconds to FILE.
timed() {
	out=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$T/time" "$@"
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$T/time" >>"$out"
}

start_journal_remote http
write_config "$T/pstored.conf" "[Target.fleet]" "Type=journal-remote" \
	"URL=http://127.0.0.1:$JR_PORT/upload" "MaxPerDay=infinity" "MaxBytesPerDay=infinity"
clickhouse=
if [ -x /usr/sbin/clickhouse-server ] && command -v clickhouse-client >/dev/null; then
	clickhouse=yes
	start_clickhouse
	clickhouse-client --host=127.0.0.1 --port="$CH_TCP_PORT" --multiquery \
		<"$top_srcdir/lib/upload/clickhouse/schema.sql" || fail "the schema does not apply"
	write_config "$T/clickhouse.conf" "[Target.ch]" "Type=clickhouse" \
		"URL=http://127.0.0.1:$CH_HTTP_PORT/" "MaxPerDay=infinity" "MaxBytesPerDay=infinity"
fi
ch_ns=0
start=$(now)
for m in $(seq "$machines"); do
	STORE="$T/store$m"
	UPLOAD_HOSTNAME="host$m"
	MAKE_CRASHES_HOSTNAME=$UPLOAD_HOSTNAME MAKE_CRASHES_MACHINE_ID=$(printf 'f1ee7%027x' "$m") \
		MAKE_CRASHES_KERNEL="6.1.0-$((17 + m % 3))-amd64" \
		MAKE_CRASHES_SIGNATURE="kernel-bench-$((m % 20))" make_crashes "$per" >/dev/null ||
		fail "make-crashes failed"
	pstored_upload >"$T/out" 2>&1 || { cat "$T/out"; fail "upload of machine $m failed"; }
	if [ -n "$clickhouse" ]; then
		ch_start=$(now)
		unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
			"$PSTORED" --config="$T/clickhouse.conf" --store-dir="$STORE" \
			--dmi-dir="$T/dmi" upload >"$T/out" 2>&1 ||
			{ cat "$T/out"; fail "upload of machine $m to ClickHouse failed"; }
		ch_ns=$((ch_ns + $(now) - ch_start))
	fi
	rm -rf "$STORE"
done
end=$(now)
stop_journal_remote
echo "fed: $((machines * per)) crashes from $machines machines in $(seconds "$start" "$((end - ch_ns))") s," \
	"$(du -sh "$T/remote" | cut -f1) of journal files"

for _ in $(seq "$runs"); do
	timed "$T/ctl" "$PSTORECTL" --no-pager -D "$T/remote" list --group >"$T/groups"
	timed "$T/jctl" sh -c 'journalctl -D "$1" MESSAGE_ID=c55ba87f78104684bc1951566a609be3 \
		-o json | wc -l' sh "$T/remote" >"$T/n"
done
# shellcheck disable=SC2046
report() { echo "$(median $(cut -d' ' -f1 "$1")) s wall, $(median $(cut -d' ' -f2 "$1")) s CPU"; }
echo "pstorectl -D DIR list --group:                   $(report "$T/ctl")" \
	"($(tail -n 1 "$T/groups"))"
echo "journalctl -D DIR MESSAGE_ID=... -o json | wc -l: $(report "$T/jctl") ($(cat "$T/n") entries)"
[ -n "$clickhouse" ] || { echo "no clickhouse-server: the ClickHouse case is skipped"; exit 0; }

echo "clickhouse target: $((machines * per)) crashes inserted in $(seconds 0 "$ch_ns") s" \
	"(pstored upload of each machine, its store included):" \
	"$(awk "BEGIN { printf \"%.0f\", $machines * $per / ($ch_ns / 1e9) }") crashes/s"
url="http://127.0.0.1:$CH_HTTP_PORT/"
for _ in $(seq "$runs"); do
	timed "$T/ch" "$PSTORECTL" --no-pager --clickhouse="$url" list --group >"$T/ch-groups"
done
diff -u "$T/groups" "$T/ch-groups" >/dev/null ||
	fail "pstorectl --clickhouse list --group differs from -D on the same crashes"
echo "pstorectl --clickhouse=URL list --group:         $(report "$T/ch")" \
	"($(tail -n 1 "$T/ch-groups"))"
# shellcheck disable=SC2046
echo "ClickHouse / journal files, wall: $(awk "BEGIN { printf \"%.2f\", \
	$(median $(cut -d' ' -f1 "$T/ch")) / $(median $(cut -d' ' -f1 "$T/ctl")) }")"
