#!/bin/sh
# The command report shows is the one pcprof run recorded, shell-quoted,
# and can be pasted back (new-user finding F12): a backslash is shown once,
# not doubled (perl -e 'print "$s\n"' showed "$s\\n"), and a word with a
# control character is $'...'-quoted by pcprof run, so that no control
# character reaches the terminal (t-names.sh) and the line still reads
# back as the same words.  Checked by bash reading the line back.
. "$(dirname "$0")/lib.sh"
command -v bash >/dev/null || skip "bash not installed (reads the command back)"
esc=$(printf 'red\033[31m\a')
nl=$(printf 'two\nlines')
"$PCPROF" run -q -o "$T/c.data" -- sh -c ':' 'print "$s\n"' "it's" "$esc" "$nl" 'a b\\c' ||
	fail "pcprof run"
"$PCPROF" report "$T/c.data" >"$T/r" 2>&1 || fail "report: $(cat "$T/r")"
grep -q "^command    sh -c : 'print \"\$s\\\\n\"' " "$T/r" || fail "backslash not shown as it is: $(grep '^command' "$T/r")"
line=$(sed -n 's/^command    //p' "$T/r")
case "$line" in *"$(printf '\033')"* | *"$(printf '\a')"*) fail "a control character shown raw: $line" ;; esac
# the words bash reads from the line are the words run was given
bash -c 'eval "set -- $1"; shift 3; printf "%s\0" "$@"' - "$line" >"$T/back" ||
	fail "bash cannot read back: $line"
printf '%s\0' 'print "$s\n"' "it's" "$esc" "$nl" 'a b\\c' >"$T/want"
cmp -s "$T/back" "$T/want" || fail "read back otherwise: $line: $(od -c "$T/back" | head)"
exit 0
