# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by tests/pstore/test-archive.sh and test-budgets.sh (sourced), which
# define $tmp, $MAKE_PSTORE and run a journald (tests/lib/journald.sh).

# setup CASE: a fresh pstore (and a pristine copy to compare with) and store.
setup() {
	case=$1
	rm -rf "$tmp/pstore" "$tmp/orig" "$tmp/store"
	"$MAKE_PSTORE" "$tmp/orig" "$case"
	cp -a "$tmp/orig" "$tmp/pstore"
	# a new journal for every case
	journalctl --rotate >/dev/null 2>&1 || true
	kill -s USR2 "$JOURNALD_PID"
	journald_sync
	rm -f /run/log/journal/*/*.journal~ /run/log/journal/*/system@*.journal
}
