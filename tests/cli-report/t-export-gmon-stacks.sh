#!/bin/sh
# gmon.out from a recording with stacks: call-graph arcs between the
# functions of one module, with sample counts, that real gprof prints as
# its call graph (gprof -q).  The stacked fixture (mkfixture stacks) has,
# inside mkfixture: main -> fix_warm -> fix_hot 400, main -> fix_hot 200,
# main -> fix_cold -> fix_warm -> fix_cold 50 (recursion through two
# functions: a cycle for gprof), and main -> hot_lib_spin 150 into
# libhot.so, which is in neither file.  A profile without stacks (the flat
# fixture) gets no arcs, and the export says to run gprof -p.
. "$(dirname "$0")/lib.sh"
command -v gprof >/dev/null || skip "gprof not installed (binutils)"
"$FIX" stacks "$T/st.data" || fail "mkfixture stacks"
"$PCPROF" export -f gmon -o "$T/g" "$T/st.data" >"$T/say" 2>"$T/err" ||
	fail "export: $(cat "$T/err")"
grep -q 'gmon.mkfixture.out: gprof -b /' "$T/say" || fail "no call-graph command: $(cat "$T/say")"
grep -q 'gmon.libhot.so.out: gprof -b -p ' "$T/say" || fail "libhot.so has arcs: $(cat "$T/say")"
gprof -b -q "$FIX" "$T/g/gmon.mkfixture.out" >"$T/cg" 2>"$T/gerr" || fail "gprof: $(cat "$T/gerr")"
has() {
	grep -Eq "$1" "$T/cg" || fail "gprof call graph has no '$1': $(cat "$T/cg")"
}
# fix_hot: called (sampled) 600 times, 400 from fix_warm and 200 from main
has '^\[[0-9]+\] +[0-9.]+ +0\.68 +0\.00 +600 +fix_hot \['
has '^ +[0-9.]+ +[0-9.]+ +400/600 +fix_warm( <cycle 1>)? \['
has '^ +[0-9.]+ +[0-9.]+ +200/600 +main \['
# main's children: the arcs out of it, in sample counts
has '^ +[0-9.]+ +[0-9.]+ +400/450 +fix_warm( <cycle 1>)? \['
has '^ +[0-9.]+ +[0-9.]+ +50/450 +fix_cold( <cycle 1>)? \['
# the recursion fix_cold -> fix_warm -> fix_cold: 50 each way, once per sample
has '^ +50 +fix_cold <cycle 1> \['
has '^ +50 +fix_warm <cycle 1> \['
grep -q 'hot_lib_spin' "$T/cg" && fail "a call into libhot.so in mkfixture's file"

# no stacks, no arcs
"$PCPROF" export -f gmon -o "$T/flat" "$T/fx.data" >"$T/say" 2>/dev/null || fail "flat export"
grep -q 'gprof -b /' "$T/say" && fail "arcs without stacks: $(cat "$T/say")"
grep -q 'gmon.mkfixture.out: gprof -b -p ' "$T/say" || fail "flat: $(cat "$T/say")"
echo "ok: gprof prints the call graph of the recorded stacks"
