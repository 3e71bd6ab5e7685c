#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pstorectl decode on every kind of input it recognises, and on bad input.
set -eu

b=${top_builddir:-.}
pstorectl=$b/cli/pstorectl
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
"$b/tests/cper/cper-gen-corpus" "$t"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # FILE PATTERN: the output must hold the fixed string
	grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "no '$2' in output"; }
}

# A dump of many records, text: every section type named, no decode errors.
"$pstorectl" decode "$t/dump.cper" >"$t/out" || fail "decode dump.cper failed"
expect "$t/out" "CPER record data"
for s in "memory error" "PCIe error" "IA32/X64 processor error" "ARM processor error" \
	"CXL Protocol Error" "Linux pstore dmesg" "Linux x86 machine check"; do
	expect "$t/out" "section_type: $s"
done
expect "$t/out" "Kernel panic - not syncing: sysrq triggered crash"
! grep -q "decode error" "$t/out" || fail "decode errors in a clean dump"

# JSON: valid, versioned, one record per sample.
"$pstorectl" decode --json=short "$t/dump.cper" >"$t/json" || fail "decode --json failed"
python3 - "$t/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["kind"] == "cper", d.keys()
assert len(d["records"]) >= 28 and d["errors"] == [], (len(d["records"]), d["errors"])
names = {s["section_type_name"] for r in d["records"] for s in r["sections"]}
assert "memory error" in names and "Linux pstore dmesg (deflate compressed)" in names, names
PY

# Standard input, and the global --json option before the verb.
"$pstorectl" --json decode - <"$t/erst-dmesg.cper" >"$t/json" || fail "decode - failed"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["file"] == "stdin"' "$t/json"

# A WHEA record: binary timestamp detected and said so.
"$pstorectl" decode "$t/whea-memory.cper" >"$t/out"
expect "$t/out" "timestamp: 2023-07-14 17:45:59 (binary)"
expect "$t/out" "creator_id: cf07c4bd-b789-4e18-b3c4-1f732cb57131 (Microsoft WHEA)"

# Raw pstore files, as /sys/fs/pstore shows them.
"$pstorectl" decode "$t/dmesg-erst-7301419813404409857" >"$t/out"
expect "$t/out" "pstore dmesg record (Panic#1 Part1)"
expect "$t/out" "Kernel panic - not syncing"
"$pstorectl" decode "$t/dmesg-erst-7301419813404409858.enc.z" >"$t/out"
expect "$t/out" "deflate-compressed (Panic#1 Part1)"
expect "$t/out" "panic+0x118/0x2ed"
"$pstorectl" decode "$t/mce-erst-7301419813404409859" >"$t/out"
expect "$t/out" "pstore x86 machine check record"
expect "$t/out" "class: memory controller"
"$pstorectl" decode --json "$t/mce-erst-7301419813404409859" >"$t/json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"] == "mce" and d["mce"]["bank"] == 4' "$t/json"

# A compressed record on stdin is recognised by its content.
"$pstorectl" decode - <"$t/dmesg-erst-7301419813404409858.enc.z" >"$t/out"
expect "$t/out" "deflate-compressed"

# Records others wrote: a Windows record (revision 2.10) decodes clean; libcper's test vector
# (revision 0.0, century 99) with notes, and still exit 0.
rw=${top_srcdir:-.}/tests/cper/real-world
"$pstorectl" decode "$rw/whea-multiple-1/record.cper" >"$t/out" || fail "WHEA record: exit $?"
! grep -q "note at\|decode error" "$t/out" || fail "notes or errors on a WHEA record"
"$pstorectl" decode "$rw/libcper-memory/record.cper" >"$t/out" || fail "libcper record: exit $?"
expect "$t/out" "note at offset 4: record revision 0.0 is neither 1.x nor 2.10"
expect "$t/out" "note at offset 24: timestamp 0x9932011700010019"
"$pstorectl" decode --json "$rw/libcper-memory/record.cper" >"$t/json" || fail "--json: exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["errors"] == [] and len(d["records"][0]["notes"]) == 2, d' "$t/json"

# libcper's CXL component event whose event log (19 bytes) is shorter than the 48-byte event
# record header: the bytes shown raw with a note, exit 0; the record itself was read.
"$pstorectl" decode "$t/cxl-media-short-event-log.cper" >"$t/out" ||
	fail "CXL event log shorter than its header: exit $?"
expect "$t/out" "note at offset 232: component event log: 19 bytes, shorter than the 48-byte event record header; shown raw"
expect "$t/out" "00000010: 3e1401"
"$pstorectl" decode --json "$t/cxl-media-short-event-log.cper" >"$t/json" ||
	fail "CXL event log shorter than its header, --json: exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["records"][0]["sections"][0]["body"]; assert d["errors"] == [] and b["event_log_dump"] == "0e7594920893e2316e6d2eab109589ff3e1401", d' "$t/json"

# Bad input: a clear message and exit status 2, the good files still decoded.
head -c 150 "$t/erst-dmesg.cper" >"$t/truncated.cper"
rc=0
"$pstorectl" decode "$t/truncated.cper" "$t/erst-mce.cper" >"$t/out" 2>"$t/err" || rc=$?
[ "$rc" = 2 ] || fail "a truncated record: exit $rc, not 2"
rc=0
"$pstorectl" decode --json "$t/truncated.cper" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "a truncated record, --json: exit $rc, not 2"
expect "$t/out" "decode error at offset 20: record length"
expect "$t/out" "Linux x86 machine check"
expect "$t/err" "truncated.cper: "
printf 'hello world\n' >"$t/junk"
rc=0
"$pstorectl" decode "$t/truncated.cper" "$t/junk" >/dev/null 2>"$t/err" || rc=$?
[ "$rc" = 1 ] || fail "an unrecognised file after a truncated record: exit $rc, not 1"
expect "$t/err" "junk: not a CPER record"
if "$pstorectl" decode "$t/missing" 2>"$t/err"; then fail "missing file decoded"; fi
expect "$t/err" "Failed to open $t/missing: No such file or directory"
if "$pstorectl" decode 2>"$t/err"; then fail "decode without files succeeded"; fi
if "$pstorectl" decode --json=long "$t/junk" 2>"$t/err"; then fail "bad --json accepted"; fi
expect "$t/err" "Unknown JSON format 'long'"
echo "test-decode: all checks passed"
