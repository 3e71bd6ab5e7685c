#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The bash completion of pstorectl: verbs, options per verb, option values,
# and crash ids, which it asks pstorectl for (here a stand-in that prints a
# fixed list, so that the parsing of that list is what is checked).
# Not "set -e": compopt fails outside a real completion, harmlessly.
set -u

. /usr/share/bash-completion/bash_completion
. "$top_srcdir/shell-completion/bash/pstorectl"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pstorectl as the completion calls it: answers "list --json=short" with two crashes.
cat >"$tmp/pstorectl" <<'EOS'
#!/bin/sh
case " $* " in
*" --store-dir=/elsewhere "*) echo '[{"id":"99999999-0000-5000-8000-000000000000"}]' ;;
*" -D /collector "*) echo '[{"comm":"kworker/0:1","hostname":"alpha","id":"77777777-0000-5000-8000-000000000000","kernel_version":"6.1.0-27-amd64","machine_id":"f1ee7000000000000000000000000001"},{"comm":"bash","hostname":"bravo","id":"78888888-0000-5000-8000-000000000000","kernel_version":"6.12.0-1-amd64","machine_id":"f1ee7000000000000000000000000002"}]' ;;
*" list "*) echo '[{"id":"3f2a0000-1111-5222-8333-444455556666","time":1},{"id":"3f2b0000-1111-5222-8333-444455556666","time":2}]' ;;
esac
EOS
chmod +x "$tmp/pstorectl"
PATH=$tmp:$PATH

fail=0
complete_line() {
	# complete_line "WORDS..." EXPECTED: completes the last word of the line.
	local line=$1 expected=$2 got
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=('')
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_pstorectl pstorectl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
	got=
	((${#COMPREPLY[@]} == 0)) || got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	if [[ $got != "$expected" ]]; then
		echo "FAIL: '$line': got '$got', expected '$expected'"
		fail=1
	else
		echo "ok: '$line' -> $got"
	fi
}

# complete_line_words "WORDS...": what completing the last word of the line offers, one a line.
complete_line_words() {
	local line=$1
	read -r -a COMP_WORDS <<<"$line"
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_pstorectl pstorectl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

complete_line 'pstorectl s' 'show status '
complete_line 'pstorectl --no-pager de' 'decode delete '
complete_line 'pstorectl list --gr' '--group '
complete_line 'pstorectl list --si' '--signature= --since= '
complete_line 'pstorectl list --sin' '--since= '
complete_line 'pstorectl status --p' '--pstore-dir= '
complete_line 'pstorectl show --sin' '--since= '
complete_line 'pstorectl show --m' '--machine= --module= '
complete_line 'pstorectl list --rev' '--reverse '
complete_line 'pstorectl --lin' '--lines= '
complete_line 'pstorectl -n 2 list --gr' '--group '
complete_line 'pstorectl status --m' ''
complete_line 'pstorectl -D /collector list --comm=' 'bash kworker/0:1 '
complete_line 'pstorectl -D /collector dmesg --kernel=6.12' '6.12.0-1-amd64 '
complete_line 'pstorectl dmesg --r' '--raw --reason= '
complete_line 'pstorectl --json=s' 'short '
complete_line 'pstorectl --log-level=d' 'debug '
complete_line 'pstorectl list --reason=p' 'panic '
complete_line 'pstorectl list --kind=h' 'hardware-error '
complete_line 'pstorectl list --since=ye' 'yesterday '
complete_line 'pstorectl show 3f' '3f2a0000-1111-5222-8333-444455556666 3f2b0000-1111-5222-8333-444455556666 '
complete_line 'pstorectl dmesg 3f2b' '3f2b0000-1111-5222-8333-444455556666 '
complete_line 'pstorectl --store-dir=/elsewhere export 9' '99999999-0000-5000-8000-000000000000 '
complete_line 'pstorectl list 3f' ''
complete_line 'pstorectl decode --t' '--type= '
complete_line 'pstorectl decode --type=l' 'log '
touch "$tmp/oops.txt"
complete_line "pstorectl decode --type=log $tmp/oo" "$tmp/oops.txt "
complete_line 'pstorectl --jo' '--journal '
complete_line 'pstorectl --d' '--directory= --documents= '
complete_line 'pstorectl list --ho' '--host= '
complete_line 'pstorectl -D /collector list --host=' 'alpha bravo '
complete_line 'pstorectl -D /collector list --machine=f1ee7000000000000000000000000002' 'f1ee7000000000000000000000000002 '
complete_line 'pstorectl -D /collector show 7' '77777777-0000-5000-8000-000000000000 78888888-0000-5000-8000-000000000000 '

# Every option that 'pstorectl VERB --help' shows (made from the option tables) is completed
# after the verb: "-S", "--since=" for one that takes a value, "--group" for one that does not.
for verb in list show dmesg export status delete vacuum decode upload; do
	"$top_builddir/cli/pstorectl" "$verb" --help |
		sed -nE 's/^  (-[[:alnum:]])? *(--[[:alnum:]-]+)?(\[?=)?.*/\1 \2\3/p' |
		sed -E 's/\[=$//' | tr ' ' '\n' | sed '/^$/d' | sort -u >"$tmp/help-options"
	complete_line_words "pstorectl $verb -" >"$tmp/completed"
	missing=$(comm -23 "$tmp/help-options" "$tmp/completed" | tr '\n' ' ')
	if [[ -n $missing ]]; then
		echo "FAIL: 'pstorectl $verb -' does not complete $missing"
		fail=1
	else
		echo "ok: 'pstorectl $verb -' completes every option of its --help"
	fi
done
exit $fail
