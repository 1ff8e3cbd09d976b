#!/bin/sh
# gmon export of a function's ".cold" part (new-user finding F9): gprof
# leaves out symbols with such a suffix and charged its samples to the
# symbol before it (here "tick", in g++ programs often _init), so the
# export writes an external symbol table with that module's functions and
# names it on the gprof line, and gprof names work.cold.  The program burns
# 0.3 s of CPU in the cold part of work(), after a call to a cold function.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || skip "cc not installed: no program to profile"
command -v gprof >/dev/null || skip "gprof not installed"
cat >"$T/c.c" <<'END'
#include <time.h>
volatile long sink;
__attribute__((cold, noinline)) void tick(long i) { sink += i; }
__attribute__((noinline)) long work(int rare)
{
	long s = sink;
	if (__builtin_expect(rare, 0)) {
		tick(0);
		clock_t end = clock() + CLOCKS_PER_SEC * 3 / 10;
		while (clock() < end)
			for (long i = 0; i < 100000; i++)
				sink += i ^ (sink >> 3);
	}
	return s;
}
int main(int argc, char **argv)
{
	(void)argv;
	return (int)work(argc > 1) & 0;
}
END
cc -O2 -g -o "$T/c" "$T/c.c" || fail "cc"
nm "$T/c" | grep -q ' work\.cold$' || skip "this compiler made no work.cold part"
"$PCPROF" run -q -o "$T/c.data" -- "$T/c" x || fail "pcprof run"
"$PCPROF" report "$T/c.data" >"$T/r" 2>&1 || fail "report"
grep -Eq ' work\.cold +c$' "$T/r" || fail "no samples in work.cold: $(cat "$T/r")"
"$PCPROF" export -f gmon -o "$T/gm" "$T/c.data" >"$T/o" 2>&1 || fail "export: $(cat "$T/o")"
cmd=$(sed -n "s|^$T/gm/gmon.c.out: ||p" "$T/o")
case "$cmd" in *--external-symbol-table=*) ;; *) fail "no symbol table for gprof: $(cat "$T/o")" ;; esac
grep -q ' T work\.cold$' "$T/gm/gmon.c.syms" || fail "work.cold not listed: $(cat "$T/gm/gmon.c.syms")"
grep -q ' T main$' "$T/gm/gmon.c.syms" || fail "its caller main not listed: $(cat "$T/gm/gmon.c.syms")"
(cd "$T" && eval "$cmd") >"$T/g" 2>&1 || fail "$cmd: $(cat "$T/g")"
# the flat profile's first row (most time) is work.cold, and no time is
# charged to tick or _init
top=$(awk '/^ time/ { getline; print $NF; exit }' "$T/g")
[ "$top" = work.cold ] || fail "gprof's top row is $top: $(head -12 "$T/g")"
! grep -Eq ' (tick|_init)$' "$T/g" || fail "samples charged to the symbol before: $(head -12 "$T/g")"
exit 0
