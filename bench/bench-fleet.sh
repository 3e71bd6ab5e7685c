#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-fleet [MACHINES] [CRASHES] [PER_UPLOAD]: CRASHES (100) crashes of
# each of MACHINES (10,000) machines (short logs, 20 signatures, 3 kernels)
# go through the upload targets of "pstored upload" runs: to a real
# systemd-journal-remote on loopback (journal-remote target), and to
# Debian's clickhouse-server (clickhouse target, the schema we ship). Each
# run sends one store that holds the crashes of PER_UPLOAD (100) machines
# (crash.json carries the machine id), so that the bench measures the
# target and not 10,000 process start-ups; the crashes are made by
# make-crashes, whose time is printed apart.
#
# Then, on the same crashes: "pstorectl --clickhouse=URL list --group" next
# to "pstorectl -D DIR list --group" over the journal files, timed A B A B A B
# (medians of the wall and CPU times: the CPU time tells more on a busy
# machine), the two listings checked equal, and once
# "journalctl -D DIR MESSAGE_ID=... -o json | wc -l" for scale. The insert rate is
# the wall time of the clickhouse uploads, and the crashes per CPU second of
# the uploads and clickhouse-server together. Skips ClickHouse without
# clickhouse-server. Run by "make bench-fleet" (as root, like the upload
# tests); the default million crashes took 40 minutes on 2 cores shared
# with other work (load 15; make-crashes 6, the journal-remote uploads 14,
# the clickhouse uploads 13, journalctl and the listings 5), and
# "make bench-fleet BENCH_FLEET_FLAGS='100 100 100'" is the small case.

. "$top_srcdir/tests/upload/lib.sh"
skip_unless_root
machines=${1:-10000}
per=${2:-100}
per_upload=${3:-100}
runs=3
uploads=$(((machines + per_upload - 1) / per_upload))
crashes=$((machines * per))

# Nanoseconds from date(1): a Python would take longer to start than what it times.
now() { date +%s%N; }
seconds() { awk "BEGIN { printf \"%.1f\", ($2 - $1) / 1e9 }"; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# timed FILE COMMAND...: appends the command's wall and CPU (user + system) seconds to FILE.
timed() {
	out=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$T/time" "$@"
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$T/time" >>"$out"
}
# sum FILE: the sums of the two columns of FILE.
sum() { awk '{ w += $1; c += $2 } END { printf "%.1f %.1f\n", w, c }' "$1"; }
# The CPU seconds (user + system) clickhouse-server has used so far.
clickhouse_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f\n", ($14 + $15) / hz }' "/proc/$ch_pid/stat"; }

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
	ch_cpu_start=$(clickhouse_cpu)
fi

for u in $(seq 0 $((uploads - 1))); do
	STORE="$T/store$u"
	UPLOAD_HOSTNAME="host$u"
	# Machines u * per_upload ... of the fleet, each with its crashes numbered apart.
	MAKE_CRASHES_HOSTNAME=$UPLOAD_HOSTNAME MAKE_CRASHES_MACHINES=$per_upload \
		MAKE_CRASHES_MACHINE_ID=$(printf 'f1ee7%019x%08x' 0 $((u * per_upload))) \
		MAKE_CRASHES_KERNEL="6.1.0-$((17 + u % 3))-amd64" \
		MAKE_CRASHES_SIGNATURE=kernel-bench MAKE_CRASHES_SIGNATURES=20 \
		timed "$T/make" "$MAKE_CRASHES" "$STORE" $((per_upload * per)) \
		$((u * per_upload * per)) >/dev/null || fail "make-crashes failed"
	timed "$T/journal" unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
		"$PSTORED" --config="$T/pstored.conf" --store-dir="$STORE" --dmi-dir="$T/dmi" \
		upload >"$T/out" 2>&1 || { cat "$T/out"; fail "upload $u to journal-remote failed"; }
	if [ -n "$clickhouse" ]; then
		timed "$T/insert" unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
			"$PSTORED" --config="$T/clickhouse.conf" --store-dir="$STORE" \
			--dmi-dir="$T/dmi" upload >"$T/out" 2>&1 ||
			{ cat "$T/out"; fail "upload $u to ClickHouse failed"; }
	fi
	rm -rf "$STORE"
done
stop_journal_remote
read -r make_wall make_cpu <<-EOF
	$(sum "$T/make")
EOF
read -r jr_wall jr_cpu <<-EOF
	$(sum "$T/journal")
EOF
echo "made: $crashes crashes of $machines machines (make-crashes, $uploads stores) in" \
	"$make_wall s wall, $make_cpu s CPU"
echo "journal-remote target: $uploads uploads in $jr_wall s wall, $jr_cpu s CPU of pstored," \
	"$(du -sh "$T/remote" | cut -f1) of journal files"

# shellcheck disable=SC2046
report() { echo "$(median $(cut -d' ' -f1 "$1")) s wall, $(median $(cut -d' ' -f2 "$1")) s CPU"; }
timed "$T/jctl" sh -c 'journalctl -D "$1" MESSAGE_ID=c55ba87f78104684bc1951566a609be3 \
	-o json | wc -l' sh "$T/remote" >"$T/n"
echo "journalctl -D DIR MESSAGE_ID=... -o json | wc -l: $(report "$T/jctl") ($(cat "$T/n") entries)"
[ "$(cat "$T/n")" = "$crashes" ] || fail "journal-remote holds $(cat "$T/n") crashes, not $crashes"
if [ -z "$clickhouse" ]; then
	timed "$T/ctl" "$PSTORECTL" --no-pager -D "$T/remote" list --group >"$T/groups"
	echo "pstorectl -D DIR list --group:           $(report "$T/ctl") ($(tail -n 1 "$T/groups"))"
	echo "no clickhouse-server: the ClickHouse case is skipped"
	exit 0
fi

read -r ch_wall ch_cpu <<-EOF
	$(sum "$T/insert")
EOF
ch_server_cpu=$(awk "BEGIN { printf \"%.1f\", $(clickhouse_cpu) - $ch_cpu_start }")
echo "clickhouse target: $crashes crashes inserted by $uploads uploads in $ch_wall s wall:" \
	"$(awk "BEGIN { printf \"%.0f\", $crashes / $ch_wall }") crashes/s;" \
	"CPU $ch_cpu s pstored + $ch_server_cpu s clickhouse-server:" \
	"$(awk "BEGIN { printf \"%.0f\", $crashes / ($ch_cpu + $ch_server_cpu) }") crashes per CPU second"
url="http://127.0.0.1:$CH_HTTP_PORT/"
for _ in $(seq "$runs"); do
	timed "$T/ch" "$PSTORECTL" --no-pager --clickhouse="$url" list --group >"$T/ch-groups"
	timed "$T/ctl" "$PSTORECTL" --no-pager -D "$T/remote" list --group >"$T/groups"
done
diff -u "$T/groups" "$T/ch-groups" >/dev/null ||
	fail "pstorectl --clickhouse list --group differs from -D on the same crashes"
echo "pstorectl --clickhouse=URL list --group: $(report "$T/ch") of pstorectl," \
	"not counting clickhouse-server's ($(tail -n 1 "$T/ch-groups"))"
echo "pstorectl -D DIR list --group:           $(report "$T/ctl")"
# shellcheck disable=SC2046
echo "ClickHouse / journal files, wall: $(awk "BEGIN { printf \"%.3f\", \
	$(median $(cut -d' ' -f1 "$T/ch")) / $(median $(cut -d' ' -f1 "$T/ctl")) }")"
