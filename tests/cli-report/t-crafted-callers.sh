#!/bin/sh
# report --callers '*' and --callees '*' are linear in the functions
# (issue 19, item 14): every call edge is summed in one walk of the call
# tree, not one walk of every stack per function asked for.
#
# CPU seconds (user + system, the best of three runs) on profiles of 50,000
# and 200,000 functions (mkcrafted funcs: a random call tree, a function
# per frame; mkcrafted flat: no calls): linear work gives a ratio near 4,
# quadratic near 16; the test wants under 8.  Before: 29.4 s for 25,000
# functions and 152 s for 50,000 (tree), 3.7 s and 14.4 s (flat).
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) not installed: it measures CPU time"
CRAFT=$ROOT/${B:-build}/tests/cli-report/mkcrafted
[ -x "$CRAFT" ] || fail "$CRAFT not built (make all)"

# cpu CMD...: the best CPU seconds of three runs of CMD (exit status 0)
cpu() {
	best=
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$T/time" "$@" >"$T/out" 2>"$T/err" ||
			fail "$*: exit $?: $(cat "$T/err")"
		s=$(awk '{ print $1 + $2 }' "$T/time")
		best=$(awk -v a="$best" -v b="$s" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	echo "$best"
}

for shape in funcs flat; do
	"$CRAFT" $shape "$T/s.data" 50000 || fail "mkcrafted $shape 50000"
	"$CRAFT" $shape "$T/l.data" 200000 || fail "mkcrafted $shape 200000"
	for opt in --callers --callees; do
		ts=$(cpu "$PCPROF" report $opt '*' "$T/s.data")
		tl=$(cpu "$PCPROF" report $opt '*' "$T/l.data")
		# every function with samples has its table
		[ "$(grep -c "^C[a-z]* of " "$T/out")" = 200000 ] ||
			fail "$shape $opt: $(grep -c "^C[a-z]* of " "$T/out") tables, want 200000"
		# a floor of 0.1 s: below that, the ratio measures start-up noise
		r=$(awk -v a="$ts" -v b="$tl" 'BEGIN { printf "%.1f", b / (a < 0.1 ? 0.1 : a) }')
		echo "# $shape $opt '*': 50000 functions $ts s, 200000 functions $tl s CPU (ratio $r)"
		awk -v r="$r" 'BEGIN { exit !(r < 8) }' ||
			fail "$shape $opt: $ts s for 50000 functions, $tl s for 200000: ratio $r, not linear"
	done
done
# without calls, each function's only caller is [root], and its only
# callee [self], with all its samples
"$PCPROF" report --callers 'funcs.so+0x1000' "$T/l.data" >"$T/out" 2>"$T/err" ||
	fail "--callers: $(cat "$T/err")"
table "$T/out" 'total%    samples  caller' | grep -Eq '^ +[0-9.]+ +[1-4]  \[root\]$' ||
	fail "--callers on a flat profile: $(cat "$T/out")"
exit 0
