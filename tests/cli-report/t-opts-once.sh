#!/bin/sh
# --pid, --module, --function and --time hold one value, in report,
# export, diff and annotate, as do report's --callers and --callees: given
# twice, each is a usage error (exit 2) naming the option and both values,
# never the second value silently replacing the first (`-f 'a*' -f 'b*'`
# once showed b's samples alone, which reads as a and b).  Once, each
# still works, and --debug-dir stays repeatable.
. "$(dirname "$0")/lib.sh"
D=$T/fx.data
hot=$(awk '$2 > 0 { print $1; exit }' "$T/counts")
[ -n "$hot" ] || fail "mkfixture counts names no function with samples"

# dup CMD...: CMD (one selection given twice) is refused
dup() {
	opt=$1
	shift
	try 2 "^pcprof [a-z]+: $opt given twice \\('.*', then '.*'\\): one value only \\(try 'pcprof [a-z]+ --help'\\)\$" "$@"
}
for cmd in report export diff annotate; do
	case $cmd in
	export) set -- export --format folded -o "$T/x.folded" ;;
	diff) set -- diff ;;
	annotate) set -- annotate -i "$D" ;;
	*) set -- "$cmd" ;;
	esac
	files=$D
	[ "$cmd" = diff ] && files="$D $D"
	[ "$cmd" = annotate ] && files=
	fn=-f
	[ "$cmd" = export ] && fn=--function
	# shellcheck disable=SC2086 # files: one or two paths without blanks
	{
		dup --pid "$PCPROF" "$@" -p 1 --pid 2 $files
		dup --module "$PCPROF" "$@" -m 'a*' --module 'b*' $files
		dup --function "$PCPROF" "$@" $fn "$hot" --function 'zz*' $files
		dup --time "$PCPROF" "$@" --time 0- --time 1- $files
		# once, and --debug-dir twice: accepted
		"$PCPROF" "$@" $fn "$hot" --debug-dir "$T" --debug-dir "$T" $files \
			>"$T/o" 2>"$T/e" || fail "$cmd $fn $hot: exit $?: $(cat "$T/e")"
	}
done
dup --callers "$PCPROF" report --callers "$hot" --callers 'zz*' "$D"
dup --callees "$PCPROF" report --callees "$hot" --callees 'zz*' "$D"
"$PCPROF" report --callers "$hot" --callees "$hot" "$D" >"$T/o" 2>"$T/e" ||
	fail "report --callers --callees: exit $?: $(cat "$T/e")"
grep -q "^Callers of $hot" "$T/o" || fail "report --callers $hot: no Callers table: $(cat "$T/o")"
exit 0
