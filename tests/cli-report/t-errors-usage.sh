#!/bin/sh
# Usage mistakes are one line naming the mistake and pointing at --help
# (a bad option: getopt's line, then the pointer; exit 2), never the bare
# usage text; a --module or --function that
# matches none of a file's samples says so and exits 1 in report, export
# and annotate (as --callers does), rather than printing an empty table or
# writing an empty file; annotate takes a data file given as its first
# operand, without -i, as its input.
. "$(dirname "$0")/lib.sh"

# operands
try 2 "^pcprof report: extra operand '$T/b.data': .*\(try 'pcprof report --help'\)$" \
	"$PCPROF" report "$T/fx.data" "$T/b.data"
try 2 "^pcprof export: extra operand 'b.data': .*\(try 'pcprof export --help'\)$" \
	"$PCPROF" export -f folded -o "$T/x.folded" "$T/fx.data" b.data
try 2 "^pcprof archive: extra operand 'b.data': .*\(try 'pcprof archive --help'\)$" \
	"$PCPROF" archive -o "$T/x.ar" "$T/fx.data" b.data
try 2 "^pcprof merge: no data file to merge \(try 'pcprof merge --help'\)$" \
	"$PCPROF" merge -o "$T/m.data"
[ ! -e "$T/x.folded" ] && [ ! -e "$T/x.ar" ] && [ ! -e "$T/m.data" ] ||
	fail "a command with a bad operand wrote its output"

# a bad option: getopt's line naming it, then where to look; not the help
for cmd in report export annotate merge archive; do
	rc=0
	"$PCPROF" $cmd --bogus "$T/fx.data" >"$T/o" 2>"$T/e" || rc=$?
	[ $rc = 2 ] && [ ! -s "$T/o" ] && [ "$(wc -l <"$T/e")" = 2 ] &&
		grep -q "^pcprof $cmd: unrecognized option '--bogus'" "$T/e" &&
		grep -qx "pcprof $cmd: try 'pcprof $cmd --help'" "$T/e" ||
		fail "$cmd --bogus: exit $rc: $(cat "$T/e")"
done

# filters that match nothing: exit 1, one message, no table, no file
for sel in "-f nomatch" "-m nomatch" "--function nomatch --module '*'"; do
	eval "set -- $sel"
	try 1 "^pcprof report: $T/fx.data: none of its [0-9]+ samples match .*'nomatch'" \
		"$PCPROF" report "$@" "$T/fx.data"
	[ ! -s "$T/o" ] || fail "report $sel printed: $(cat "$T/o")"
	[ "$1" = -f ] && set -- --function nomatch
	try 1 "^pcprof export: $T/fx.data: none of its [0-9]+ samples match .*'nomatch'" \
		"$PCPROF" export -f folded -o "$T/x.folded" "$@" "$T/fx.data"
	[ ! -e "$T/x.folded" ] || fail "export $sel wrote a file"
	try 1 "^pcprof annotate: $T/fx.data: none of its [0-9]+ samples match .*'nomatch'" \
		"$PCPROF" annotate --color=never -i "$T/fx.data" "$@"
done
try 1 "--function 'nomatch' \('pcprof report -F $T/fx.data' lists the functions\)" \
	"$PCPROF" report -f nomatch "$T/fx.data"
try 1 "--module 'nomatch' \('pcprof report -M $T/fx.data' lists the modules\)" \
	"$PCPROF" report -m nomatch "$T/fx.data"
# a filter that matches is no error
"$PCPROF" report -f 'fix_*' "$T/fx.data" >/dev/null || fail "report -f 'fix_*': exit $?"

# annotate FILE: the data file, not a function pattern; with -i, a pattern
"$PCPROF" annotate --color=never -i "$T/fx.data" -n 1 >"$T/want" 2>/dev/null || fail "annotate -i"
"$PCPROF" annotate --color=never "$T/fx.data" -n 1 >"$T/got" 2>"$T/e" ||
	fail "annotate FILE: exit $?: $(cat "$T/e")"
cmp -s "$T/want" "$T/got" || fail "annotate FILE differs from annotate -i FILE: $(head -3 "$T/got")"
"$PCPROF" annotate --color=never "$T/fx.data" fix_hot >"$T/got" 2>"$T/e" ||
	fail "annotate FILE FUNC: exit $?: $(cat "$T/e")"
grep -q "^Source of fix_hot " "$T/got" || fail "annotate FILE fix_hot: $(head -3 "$T/got")"
grep "^Source of " "$T/got" | grep -v "^Source of fix_hot " && fail "annotate FILE fix_hot: others"
cp "$T/fx.data" "$T/fix_hot"
try 1 "no function with samples matches '$T/fix_hot'" \
	"$PCPROF" annotate --color=never -i "$T/fx.data" "$T/fix_hot"
exit 0
