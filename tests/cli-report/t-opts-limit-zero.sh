#!/bin/sh
# report's and diff's --limit 0 is their default, every row, and their
# --help texts and man pages say so (they said only "at most N rows",
# which leaves a user guessing what 0 does and what the default is).
. "$(dirname "$0")/lib.sh"
D=$T/fx.data
for cmd in report diff; do
	files=$D
	[ $cmd = diff ] && files="$D $D"
	# shellcheck disable=SC2086 # files: paths without blanks
	{
		"$PCPROF" $cmd $files >"$T/all" 2>&1 || fail "$cmd: exit $?: $(cat "$T/all")"
		"$PCPROF" $cmd -n 0 $files >"$T/zero" 2>&1 || fail "$cmd -n 0: exit $?: $(cat "$T/zero")"
		"$PCPROF" $cmd --limit 2 $files >"$T/two" 2>&1 || fail "$cmd --limit 2: exit $?"
	}
	cmp -s "$T/all" "$T/zero" || fail "$cmd -n 0 differs from $cmd: $(diff "$T/all" "$T/zero")"
	[ "$(wc -l <"$T/two")" -lt "$(wc -l <"$T/all")" ] || fail "$cmd --limit 2 left every row"
	"$PCPROF" $cmd --help | grep -A1 -e '--limit' | grep -q '0, the default: all' ||
		fail "$cmd --help does not say what --limit 0 does: $("$PCPROF" $cmd --help | grep -e --limit)"
	command -v mandoc >/dev/null || continue
	mandoc -T utf8 "man/pcprof-$cmd.1" | col -b | tr -s ' \n' '  ' |
		grep -q '0, the default, prints them all' ||
		fail "pcprof-$cmd(1) does not say what --limit 0 does"
done
exit 0
