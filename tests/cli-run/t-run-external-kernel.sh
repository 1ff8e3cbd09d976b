#!/bin/sh
# External sampling sees user space only: a tick in the kernel is dropped,
# while the CPU time includes it.  tests/targets/kernelwork spends most of
# its CPU time in page faults, mmap and munmap; the summary must name that
# share ("lost: X s CPU in the kernel (external sampling sees user space
# only)") where it once said "lost: none" beside 33 Hz of 500.  Bounds from
# the counts: what the samples and X leave unexplained of the CPU time is
# within 5 sd of the expected count plus one period, and X is at most the
# system time of pcprof and its children (the shell's `times`).  A CPU-bound
# program (tests/targets/hot main) must still say "lost: none".
. "$(dirname "$0")/../cli-attach/lib.sh"
KW=$PWD/${B:-build}/tests/targets/kernelwork
[ -x "$KW" ] || fail "missing $KW (make all)"

# children_sys: system seconds of the shell's reaped children (called in
# this shell: `times` in a command substitution's subshell says 0)
children_sys()
{
	times >"$T/times"
	awk 'NR == 2 { split($2, p, "m"); print p[1] * 60 + p[2] }' "$T/times"
}

HZ=500
probe_perf

children_sys >"$T/s0"
"$PCPROF" run --mode external --hz $HZ -o "$T/k.data" -- "$KW" 1 2>"$T/err" ||
	fail "pcprof run exited $?: $(cat "$T/err")"
children_sys >"$T/s1"
cat "$T/err"
awk -v hz=$HZ -v sys="$(echo "$(cat "$T/s1") - $(cat "$T/s0")" | bc)" '
/^pcprof run: / {
	n = $3; cpu = $5
	if (!match($0, /lost: .*[0-9.]+ s CPU in the kernel \(external sampling sees user space only\)/)) {
		print "the summary does not name the kernel time"; exit 1 }
	split(substr($0, RSTART + 6, RLENGTH - 6), w, " ")
	for (i = 1; w[i + 1] != "s"; i++);
	x = w[i]
	rest = cpu - n / hz - x
	margin = 5 * sqrt(cpu * hz) / hz + 1 / hz + 0.01
	printf "%d samples, %.2f s CPU, %.2f s named in the kernel (system time %.2f s): %.3f s unexplained, margin %.3f s\n",
		n, cpu, x, sys, rest, margin
	if (rest > margin) { print "the kernel share named is too small"; exit 1 }
	if (x > sys + 0.02) { print "more named in the kernel than the system time"; exit 1 }
	ok = 1 }
END { exit !ok }' "$T/err" || fail "kernel time not reported as lost"

"$PCPROF" run --mode external --hz $HZ -o "$T/h.data" -- "$HOT" main 1 2>"$T/err" ||
	fail "pcprof run (hot) exited $?: $(cat "$T/err")"
cat "$T/err"
grep -q '; lost: none ->' "$T/err" || fail "a CPU-bound program does not say 'lost: none'"
exit 0
