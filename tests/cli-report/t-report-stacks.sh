#!/bin/sh
# pcprof report on the stacked fixture (mkfixture stacks: 1000 samples;
# stacks listed in mkfixture.c): self and total per function, line and
# module with exact numbers, total counted once per sample under recursion
# (fix_cold), [truncated] as a function of its own, --sort total, the call
# tree, --callers and --callees, and a pattern that matches nothing.
. "$(dirname "$0")/lib.sh"
"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"

report() {
	"$PCPROF" report "$@" "$T/st.data" >"$T/out" 2>"$T/err" || fail "report $*: $(cat "$T/err")"
}
# the rows of the first table after the line that starts with $1, as
# "self total samples function module" (lines: without the line column)
rows() {
	awk -v h="$1" 'index($0, h) == 1 { on = 1; next }
		on && NF == 0 { exit }
		on { print }' "$T/out"
}
same() {
	diff "$T/want" "$T/got" >"$T/diff" || fail "$1: $(cat "$T/diff")"
}

report
rows ' self%  total%' | awk '{ print $1, $2, $3, $5, $6 }' >"$T/got"
cat >"$T/want" <<'END'
68.00 68.00 680 fix_hot mkfixture
15.00 15.00 150 hot_lib_spin libhot.so
10.00 55.00 100 fix_warm mkfixture
5.00 5.00 50 fix_cold mkfixture
2.00 2.00 20 0x1234 [unknown]
0.00 82.00 0 main mkfixture
0.00 10.00 0 [truncated] [unknown]
END
same "functions"
grep -q 'cum%' "$T/out" && fail "the running sum cum% is still there"

report --sort total -n 3
rows ' self%  total%' | awk '{ print $2, $5 }' >"$T/got"
printf '82.00 main\n68.00 fix_hot\n55.00 fix_warm\n' >"$T/want"
same "--sort total"

report -l
rows ' self%  total%' | awk '{ print $1, $2, $6 }' >"$T/got"
cat >"$T/want" <<'END'
68.00 68.00 fix_hot
15.00 15.00 hot_lib_spin
10.00 55.00 fix_warm
5.00 5.00 fix_cold
2.00 2.00 0x1234
0.00 82.00 main
0.00 10.00 [truncated]
END
same "lines"

report -M
rows ' self%  total%' | awk '$5 != "[unknown]" { print $1, $2, $5 }' >"$T/got"
printf '83.00 100.00 mkfixture\n15.00 15.00 libhot.so\n' >"$T/want"
same "modules"

report --tree
rows 'total%   self%' >"$T/got"
cat >"$T/want" <<'END'
 82.00    0.00        820  main  mkfixture
 40.00    0.00        400    fix_warm  mkfixture
 40.00   40.00        400      fix_hot  mkfixture
 20.00   20.00        200    fix_hot  mkfixture
 15.00   15.00        150    hot_lib_spin  libhot.so
  5.00    0.00         50    fix_cold  mkfixture
  5.00    0.00         50      fix_warm  mkfixture
  5.00    5.00         50        fix_cold  mkfixture
  2.00    2.00         20    0x1234  [unknown]
 10.00    0.00        100  [truncated]  [unknown]
 10.00   10.00        100    fix_warm  mkfixture
  8.00    8.00         80  fix_hot  mkfixture
END
same "tree"
grep -q '^Flat profile' "$T/out" && fail "--tree alone also printed the functions"

report --callers fix_hot
grep -q '^Callers of fix_hot (mkfixture): total 68.00%, self 68.00%$' "$T/out" ||
	fail "callers title: $(cat "$T/out")"
rows 'total%    samples  caller' | awk '{ print $1, $2, $3 }' >"$T/got"
printf '40.00 400 fix_warm\n20.00 200 main\n8.00 80 [root]\n' >"$T/want"
same "callers of fix_hot"

# recursion: fix_cold calls fix_warm which calls fix_cold; each sample
# counts once per row, and fix_cold's total is 50, not 100
report --callees fix_cold --callers fix_cold
grep -q '^Callees of fix_cold (mkfixture): total 5.00%, self 5.00%$' "$T/out" ||
	fail "callees title: $(cat "$T/out")"
rows 'total%    samples  callee' | awk '{ print $2, $3 }' >"$T/got"
printf '50 fix_warm\n50 [self]\n' >"$T/want"
same "callees of fix_cold"
rows 'total%    samples  caller' | awk '{ print $2, $3 }' >"$T/got"
printf '50 fix_warm\n50 main\n' >"$T/want"
same "callers of fix_cold"

# a pattern for several functions: one table each, by total
report --callees 'fix_*'
[ "$(grep -c "^Callees of " "$T/out")" = 3 ] || fail "fix_*: $(grep '^Callees' "$T/out")"

try 1 "no function with samples matches 'nosuch'" "$PCPROF" report --callers nosuch "$T/st.data"
try 2 "bad sort key" "$PCPROF" report --sort cum "$T/st.data"
echo "ok: self, total, tree, callers and callees of the stacked fixture"
