# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# A real systemd-journald for tests, private to the test: source this file
# and call journald_enter "$0" "$@" first thing. The script then re-executes
# itself in a new mount namespace (unshare -m) where tmpfs covers
# /run/systemd, /run/log and /var/log/journal, so the host's journal is
# neither written nor read; journald runs with its own journald.conf
# (volatile storage in /run/log/journal, no kmsg import, no rate limit) and
# is stopped when the script exits. Needs root (mounts).
#
#   journald_start [STORAGE]  start journald again, with Storage=STORAGE
#   journald_kill          kill journald, leaving its sockets behind
#   journald_sync          make journald write out everything sent so far
#   journald_count MATCH.. number of entries matching journalctl MATCHes
#   journald_field FIELD MATCH..  values of FIELD, one a line
#
# journald and journalctl are the installed ones (package systemd).

JOURNALD=${JOURNALD:-/usr/lib/systemd/systemd-journald}

journald_enter() {
	if [ -z "${PSTORED_TEST_JOURNALD_NS:-}" ]; then
		if [ "$(id -u)" -ne 0 ]; then
			echo "$1: needs root for a private mount namespace and journald" >&2
			exit 99
		fi
		PSTORED_TEST_JOURNALD_NS=1 exec unshare --mount --propagation private -- "$@"
	fi

	JOURNALD_TMP=$(mktemp -d /tmp/journald-test.XXXXXX)
	# A container or chroot without systemd running has no /run/systemd or /run/log.
	mkdir -p /run/systemd /run/log /var/log/journal
	mount -t tmpfs -o mode=0755 tmpfs /run/systemd
	mount -t tmpfs -o mode=0755 tmpfs /run/log
	mount -t tmpfs -o mode=0755 tmpfs /var/log/journal
	touch "$JOURNALD_TMP/journald.conf"
	mount --bind "$JOURNALD_TMP/journald.conf" /etc/systemd/journald.conf
	if [ -d /etc/systemd/journald.conf.d ]; then
		mount -t tmpfs tmpfs /etc/systemd/journald.conf.d
	fi
	unset NOTIFY_SOCKET
	trap journald_stop EXIT
	journald_start
}

# journald_start [STORAGE]: starts journald (again), with Storage=STORAGE
# (default volatile; none keeps nothing).
journald_start() {
	cat >"$JOURNALD_TMP/journald.conf" <<-CONF
	[Journal]
	Storage=${1:-volatile}
	ReadKMsg=no
	RateLimitIntervalSec=0
	ForwardToSyslog=no
	ForwardToKMsg=no
	ForwardToConsole=no
	ForwardToWall=no
	RuntimeMaxUse=512M
	CONF
	rm -f /run/systemd/journal/socket
	"$JOURNALD" >"$JOURNALD_TMP/journald.log" 2>&1 &
	JOURNALD_PID=$!
	for _ in $(seq 1 200); do
		[ -S /run/systemd/journal/socket ] && return 0
		kill -0 "$JOURNALD_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "systemd-journald did not start:" >&2
	cat "$JOURNALD_TMP/journald.log" >&2
	exit 99
}

# journald_kill: kills journald (SIGKILL), leaving its sockets behind as a
# crashed journald does.
journald_kill() {
	kill -s KILL "$JOURNALD_PID"
	wait "$JOURNALD_PID" 2>/dev/null || true
	JOURNALD_PID=
}

# journald handles SIGRTMIN+1 after the messages already queued on its
# sockets, writes them out and touches /run/systemd/journal/synced.
journald_sync() {
	rm -f /run/systemd/journal/synced
	kill -s RTMIN+1 "$JOURNALD_PID"
	for _ in $(seq 1 600); do
		[ -e /run/systemd/journal/synced ] && return 0
		sleep 0.05
	done
	echo "systemd-journald did not sync" >&2
	exit 99
}

journald_stop() {
	local rc=$?
	if [ -n "${JOURNALD_PID:-}" ]; then
		kill "$JOURNALD_PID" 2>/dev/null
		wait "$JOURNALD_PID" 2>/dev/null
	fi
	rm -rf "$JOURNALD_TMP"
	exit $rc
}

journald_count() {
	journald_sync
	journalctl --no-pager -q -o export "$@" | grep -c '^__CURSOR=' || true
}

journald_field() {
	local field=$1
	shift
	journald_sync
	journalctl --no-pager -q --all -o json --output-fields="$field" "$@" |
		python3 -c 'import json, sys
for line in sys.stdin:
    v = json.loads(line).get(sys.argv[1])
    if isinstance(v, list):  # binary-safe fields come as byte arrays
        v = bytes(v).decode(errors="replace")
    if v is not None:
        print(v)' "$field"
}
