#!/bin/sh
# Inline frames from DWARF: inltarget.c, built here with -O2 -g, spends its
# CPU time in spin_step, forced inline into churn; pcprof run records it
# with stacks at 1000 Hz (about 0.6 s of CPU: hundreds of samples, nearly
# all in spin_step's loop).  report shows spin_step as a row of its own,
# marked [inline], in the functions, the lines (at spin_step's own lines,
# marked BODY in the source), the tree (under churn) and --callers/
# --callees; churn's line is the call (CALL).  --no-inline gives churn
# exactly the samples churn and spin_step had, at the line of the call,
# and no [inline] row; gmon (gprof knows no inline functions) is written
# without them either way.  A C++ lambda inlined into spin_cxx has no
# linkage name in the DWARF: its row is named after its scopes.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || skip "cc not installed: no program to profile"
SRC=$ROOT/tests/cli-report/inltarget.c
cc -O2 -g -o "$T/inl" "$SRC" 2>"$T/err" || fail "cc: $(cat "$T/err")"
PROFIL_HZ=1000 "$PCPROF" run -q -o "$T/i.data" "$T/inl" 1500000 >"$T/runout" 2>&1 ||
	fail "pcprof run: $(cat "$T/runout")"
body=$(grep -n 'BODY \*/$' "$SRC" | cut -d: -f1 | tr '\n' ' ')
call=$(grep -n 'CALL \*/$' "$SRC" | cut -d: -f1)

report() {
	"$PCPROF" report "$@" "$T/i.data" >"$T/out" 2>"$T/e" || fail "report $*: $(cat "$T/e")"
}

# functions: "self total samples seconds function [inline] module"
report -F
table "$T/out" ' self%  total%' >"$T/fn"
in_self=$(awk '$5 == "spin_step" && $6 == "[inline]" && $7 == "inl" { print $3 }' "$T/fn")
[ -n "$in_self" ] || fail "no row 'spin_step [inline]': $(cat "$T/out")"
[ "$in_self" -gt 100 ] || fail "spin_step [inline] has only $in_self samples: $(cat "$T/out")"
churn=$(awk '$5 == "churn" && $6 == "inl"' "$T/fn")
[ -n "$churn" ] || fail "no row churn: $(cat "$T/out")"
set -- $churn
churn_self=$3
# churn's total holds spin_step's: every spin_step sample has churn on its stack
awk -v t="$2" '$5 == "spin_step" { exit !($2 <= t) }' "$T/fn" ||
	fail "churn's total below spin_step's: $(cat "$T/out")"
grep -q 'spin_step \[inline\]' "$T/fn" || fail "no mark"

# lines: spin_step's rows at its own lines, churn's at the call (paths
# relative to --source-root)
report -l --source-root "$ROOT/tests/cli-report/"
table "$T/out" ' self%  total%' >"$T/ln"
awk '$6 == "spin_step"' "$T/ln" >"$T/sl"
[ -s "$T/sl" ] || fail "no line of spin_step: $(cat "$T/out")"
while read -r self total samples secs at fn mark mod; do
	[ "$mark $mod" = "[inline] inl" ] || fail "line row of spin_step: $at $fn $mark $mod"
	case " $body " in
	*" ${at#inltarget.c:} "*) ;;
	*) fail "spin_step's samples at $at, not at its own lines ($body): $(cat "$T/out")" ;;
	esac
	[ "${at%%:*}" = inltarget.c ] || fail "spin_step at $at"
done <"$T/sl"
awk -v at="inltarget.c:$call" '$5 == at && $6 == "churn" && $2 > 90' "$T/ln" | grep -q . ||
	fail "churn is not at the call, line $call, with the total: $(cat "$T/out")"

# the tree: spin_step [inline] under churn under main
report -t
table "$T/out" 'total%   self%' >"$T/tr"
awk '$4 == "main" { m = 1; next }
	m && $4 == "churn" { c = 1; next }
	c && $4 == "spin_step" && $5 == "[inline]" { ok = 1; exit }
	END { exit !ok }' "$T/tr" || fail "tree: $(cat "$T/out")"
report --callers spin_step --callees churn
grep -q '^Callers of spin_step \[inline\] (inl)' "$T/out" || fail "callers: $(cat "$T/out")"
awk '/^Callers/ { on = 1 } /^Callees/ { on = 0 } on && $3 == "churn" && $4 == "inl"' "$T/out" |
	grep -q . || fail "churn does not call spin_step: $(cat "$T/out")"
awk '/^Callees/ { on = 1 } on && $3 == "spin_step" && $4 == "[inline]"' "$T/out" |
	grep -q . || fail "spin_step is not a callee of churn: $(cat "$T/out")"

# --no-inline: churn has spin_step's samples, at the line of the call
report -F -l --no-inline --source-root "$ROOT/tests/cli-report"
grep -q '\[inline\]' "$T/out" && fail "--no-inline has [inline] rows: $(cat "$T/out")"
table "$T/out" ' self%  total%' >"$T/ni"
awk -v n=$((churn_self + in_self)) '$5 == "churn" && $3 == n' "$T/ni" | grep -q . ||
	fail "--no-inline: churn should have $churn_self + $in_self samples: $(cat "$T/out")"
awk '/^Flat profile \(source lines\)/ { on = 1 } on && $6 == "churn"' "$T/out" >"$T/cl"
awk -v at="inltarget.c:$call" '$5 == at && $3 > 100' "$T/cl" | grep -q . ||
	fail "--no-inline: churn's samples not at the call: $(cat "$T/out")"

# folded stacks name the inline function as a frame of its own
"$PCPROF" export -f folded -o "$T/f" "$T/i.data" 2>/dev/null || fail "folded"
grep -Eq ';main;churn;spin_step [0-9]+$' "$T/f" || fail "folded: $(cat "$T/f")"
"$PCPROF" export -f folded --no-inline -o "$T/fn" "$T/i.data" 2>/dev/null || fail "folded"
grep -q spin_step "$T/fn" && fail "folded --no-inline: $(cat "$T/fn")"
# gmon: no inline functions, whatever the option
"$PCPROF" export -f gmon -o "$T/gm" "$T/i.data" >/dev/null 2>&1 || fail "gmon"
if command -v gprof >/dev/null; then
	gprof -b -p "$T/inl" "$T/gm/gmon.inl.out" >"$T/gp" 2>&1 || fail "gprof: $(cat "$T/gp")"
	grep -q ' churn$' "$T/gp" || fail "gprof: $(cat "$T/gp")"
fi

# C++: an inlined lambda, named after the function and class around it
command -v g++ >/dev/null || exit 0
cat >"$T/lam.cc" <<'END'
#include <cstdlib>
static volatile unsigned long sink;
__attribute__((noinline)) unsigned long spin_cxx(unsigned long n)
{
	auto step = [](unsigned long x) {
		for (int i = 0; i < 400; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		return x;
	};
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = step(x ^ i);
	return x;
}
int main(int argc, char **argv)
{
	sink = spin_cxx(std::strtoul(argv[1], nullptr, 10));
	return 0;
}
END
g++ -O2 -g -o "$T/lam" "$T/lam.cc" 2>"$T/err" || fail "g++: $(cat "$T/err")"
PROFIL_HZ=1000 "$PCPROF" run -q -o "$T/l.data" "$T/lam" 1000000 >"$T/runout" 2>&1 ||
	fail "pcprof run: $(cat "$T/runout")"
"$PCPROF" report "$T/l.data" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
table "$T/out" ' self%  total%' |
	awk '$5 == "spin_cxx::{lambda}::operator()" && $6 == "[inline]" && $3 > 100' | grep -q . ||
	fail "no row of the lambda: $(cat "$T/out")"
exit 0
