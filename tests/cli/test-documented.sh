#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Text that cannot drift from the code:
#  - each option that pstorectl and pstored show in --help (which they make
#    from their option tables) is described in the same section of the man
#    page: "Options:" in OPTIONS, "Matches" and "Options of VERB" in those
#    subsections, the sources in SOURCES OF CRASHES;
#  - groff renders every man page without a warning (lintian checks the
#    same in the package, late);
#  - each key of the configuration (as "pstorectl status --json" shows the
#    effective one) is described in pstored.conf(5) and is in the commented
#    pstored.conf that is installed, where uncommented lines give exactly the
#    built-in defaults.

set -eu
: "${top_builddir:?run from make check}" "${top_srcdir:?run from make check}"

PSTORECTL="$top_builddir/cli/pstorectl"
PSTORED="$top_builddir/daemon/pstored"
CONF="$top_srcdir/daemon/pstored.conf"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# check_help_in_man PROGRAM MANPAGE: every --help section against the man page.
check_help_in_man() {
	"$1" --help >"$T/help" || fail "$1 --help failed"
	python3 - "$T/help" "$2" <<-'EOF' || fail "$(basename "$1") --help and $(basename "$2") disagree"
		import re, sys
		help_text = open(sys.argv[1]).read()
		man = open(sys.argv[2]).read()

		def man_section(title):
		    """The text of .SH/.SS TITLE up to the next heading of its level or above."""
		    lines = man.split("\n")
		    for i, line in enumerate(lines):
		        m = re.match(r'\.(SH|SS) "?(.*?)"?$', line)
		        if m and m.group(2) == title:
		            level = m.group(1)
		            stop = ("SH",) if level == "SH" else ("SH", "SS")
		            body = []
		            for rest in lines[i + 1:]:
		                h = re.match(r"\.(SH|SS) ", rest)
		                if h and h.group(1) in stop:
		                    break
		                body.append(rest)
		            return "\n".join(body)
		    sys.exit(f"no section {title} in {sys.argv[2]}")

		errors = 0
		section = None
		for line in help_text.split("\n"):
		    if re.match(r"^(Options|Sources|Matches)", line):
		        if line == "Options:":
		            section = "OPTIONS"
		        elif line.startswith("Sources"):
		            section = "SOURCES OF CRASHES"
		        elif line.startswith("Matches"):
		            section = "Matches"
		        else:
		            section = "Options of " + line.split()[2].rstrip(":")
		        body = man_section(section)
		        if section == "OPTIONS":
		            # The global options come before the first subsection.
		            body = body.split("\n.SS ")[0]
		        # Each option where a .TP entry names it.
		        named = set()
		        for entry in re.findall(r"^\.TP\n((?:\.TQ\n|\.B.*\n)+)", body + "\n", re.M):
		            named.update(re.findall(r"\\-(?:\\-)?([a-zA-Z](?:[\w]|\\-)*)", entry))
		        named = {n.replace("\\-", "-") for n in named}
		        continue
		    m = re.match(r"^  (?:-(\w) |   )--([\w-]+)", line)
		    if not m or section is None:
		        continue
		    for name in filter(None, m.groups()):
		        if name not in named:
		            print(f"--{m.group(2)}: not described in {section} of {sys.argv[2]}")
		            errors += 1
		sys.exit(errors > 0)
	EOF
}

for page in "$top_srcdir"/man/*.[1-8]; do
	LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" >"$T/groff" 2>&1
	[ ! -s "$T/groff" ] || { cat "$T/groff" >&2; fail "groff warns about $page"; }
done

check_help_in_man "$PSTORECTL" "$top_srcdir/man/pstorectl.1"
check_help_in_man "$PSTORED" "$top_srcdir/man/pstored.8"

# Each verb's own --help shows the options of that verb that pstorectl --help shows.
"$PSTORECTL" --help >"$T/help-all"
for verb in list show dmesg export status delete upload vacuum decode; do
	"$PSTORECTL" "$verb" --help >"$T/verb-help" || fail "pstorectl $verb --help failed"
	sed -n "/^Options of $verb[ :]/,/^\$/p" "$T/help-all" | grep '^  ' >"$T/expected" || :
	! grep -vxF -f "$T/verb-help" "$T/expected" || fail "pstorectl $verb --help lacks these"
done

# The configuration keys: those of the sections, and of a target.
printf '[Target.fleet]\nType=http-json\nURL=https://collector.example.com/crashes/{id}\n' \
	>"$T/target.conf"
status_config() { # status_config FILE: the effective configuration as JSON
	"$PSTORECTL" status --json=short --config="$1" --store-dir="$T/none" \
		--pstore-dir="$T/none" --sysfs-dir="$T/none" | python3 -c '
import json, sys
print(json.dumps(json.load(sys.stdin)["config"], sort_keys=True))'
}
status_config "$T/target.conf" >"$T/defaults.json"
python3 - "$T/defaults.json" "$top_srcdir/man/pstored.conf.5" "$CONF" <<-'EOF' ||
	import json, re, sys
	config = json.load(open(sys.argv[1]))
	man = open(sys.argv[2]).read()
	conf = open(sys.argv[3]).read()
	keys = [(s, k) for s in ("Archive", "Store", "Metrics") for k in config[s]]
	keys += [("Target.NAME", k) for k in config["Target"]["fleet"]]
	errors = 0
	for section, key in keys:
	    if not re.search(rf"^\.B[IR]? {key}=", man, re.M):
	        print(f"{key}= of [{section}] is not described in pstored.conf(5)")
	        errors += 1
	    if not re.search(rf"^#{key}=", conf, re.M):
	        print(f"{key}= of [{section}] is not in {sys.argv[3]}")
	        errors += 1
	sys.exit(errors > 0)
EOF
	fail "configuration keys are not all documented"

# The commented file, uncommented, is the built-in configuration.
sed 's/^#\([A-Za-z[]\)/\1/' "$CONF" >"$T/uncommented.conf"
"$PSTORED" --config="$T/uncommented.conf" verify-config ||
	fail "$CONF, uncommented, is not a valid configuration"
status_config "$T/uncommented.conf" >"$T/uncommented.json"
cmp -s "$T/defaults.json" "$T/uncommented.json" || {
	diff "$T/defaults.json" "$T/uncommented.json" >&2 || :
	fail "$CONF shows values other than the defaults"
}
exit 0
