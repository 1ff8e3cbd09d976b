#!/bin/sh
# Programs that own signals run under pcprof run exactly as without it, and
# pcprof records their CPU time (run once per engine, PROFIL_ENGINE):
#   - GNU sort -n on a generated input (about 1 s of CPU): sort catches
#     SIGPROF and several other signals to remove its temporary files and
#     re-raises them (it died of the first tick, status 155, when the
#     library sampled with SIGPROF);
#   - a program that sets every signal to SIG_DFL (died the same way) and
#     one that sets them to SIG_IGN (lived, but 0 samples were recorded);
#   - a program with its own ITIMER_PROF profiler (got twice its ticks, and
#     nothing was recorded).
# Each must give the same output and exit status as unprofiled, and
# pcprof's samples within [0.75, 1.25] x the CPU seconds pcprof measured x
# the rate.  The profiler's own ticks are checked twice:
#   - per second of its PROF clock (the clock ITIMER_PROF runs on: one tick
#     per 10 ms of it, measured between its first and last tick), within
#     5 % of its unprofiled rate: twice its ticks fails here;
#   - in number, against the CPU time it really used (its exact process
#     CPU clock x 100 Hz), at least that minus 5 standard deviations
#     (Poisson) and 2 ticks for the periods in progress: no ticks, or a
#     PROF clock that falls behind its CPU time, fails here.
#
# The PROF clock is not exact: the kernel charges each scheduler tick to
# the thread it finds running.  In the full suite this test once failed
# with 1 tick for 0.8 s of CPU ("too few ticks (81, 1)"), on the perf
# engine only.  Measured (2 `yes` loops beside it, 8 interleaved rounds of
# 0.82 s CPU each): unprofiled 80-112 ticks, thread-timer and
# process-timer engines 81-110, perf 20-83 (mean 50).  Cause: the
# library's handler read its thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)
# at every sample; that read makes the scheduler update the thread's
# runtime and, once its slice is used, preempt it on the spot rather than
# at the next tick.  Perf samples come between ticks, so the program was
# preempted just before each tick and the ticks were charged to the other
# threads.  The handler now reads the runtime with getrusage, which does
# not update it (lib/sig/tslot.c): perf gives 81-110 like the others.
# A program polling its own thread clock starves itself the same way,
# unprofiled: 6 and 10 of 90 ticks in two of three runs.  So the itimer
# case runs pinned to one CPU beside a busy loop of its own, which makes
# the contention certain rather than left to the machine's load (before
# the fix, pinned so: 16-36 of 85 ticks on perf), and the unprofiled run
# (just before the profiled one) must pass the same bound, or the kernel
# starves unprofiled programs too and the test says so (SKIP).  Checked
# to fail with the forwarding broken (not committed; PROFIL_SIGNAL=SIGPROF,
# thread-timer): the program's SIGPROFs dropped gave 0 ticks, FAIL; ours
# also forwarded to it killed it ("Profiling timer expired") before its
# handler was in, FAIL on the exit status.
. "$(dirname "$0")/owners.sh"
OWNER=$PWD/${B:-build}/tests/targets/sigowner
[ -x "$OWNER" ] || fail "missing $OWNER (make all)"
command -v sort >/dev/null || fail "no sort"

awk 'BEGIN { x = 1; for (i = 0; i < 1000000; i++) { x = (x * 1103515245 + 12345) % 2147483648; print x } }' >"$T/big.txt"
profiled sort sort -n "$T/big.txt"
profiled dfl "$OWNER" dfl 1000000000
profiled ign "$OWNER" ign 1000000000
# The itimer case: pinned to the first CPU this test may use, beside a
# busy loop pinned there too, which ends with this script (killed at
# exit, and it stops by itself when the script is gone).
command -v taskset >/dev/null || fail "no taskset"
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$$/status)
taskset -pc "$cpu" $$ >/dev/null || fail "taskset -pc $cpu: cannot pin the test"
sh -c "while kill -0 $$ 2>/dev/null; do :; done" &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
ITER=1500000000
# Sampling at 2 kHz: a perf sample every 0.5 ms of CPU, so that with the
# old clock read the program was preempted before nearly every tick (this
# case with the old library: 42-91 ticks for 1.26 s CPU at 500 Hz, which
# passed once in three; 23-36 for 1.29 s at 2 kHz, bound 70).
export PROFIL_HZ=2000
# `profiled` runs it unprofiled, then under pcprof: a line each in $T/ticks
profiled itimer "$OWNER" itimer $ITER "$T/ticks"
[ "$(wc -l <"$T/ticks")" = 2 ] || fail "itimer: want 2 lines in $T/ticks: $(cat "$T/ticks")"
{
	read -r n_plain s_plain c_plain
	read -r n_prof s_prof c_prof
} <"$T/ticks"
awk -v np="$n_plain" -v sp="$s_plain" -v cp="$c_plain" -v nq="$n_prof" -v sq="$s_prof" -v cq="$c_prof" -v e="$ENGINE" 'BEGIN {
	# ticks for CPU seconds c at 100 Hz: at least this many
	lp = 100 * cp - 5 * sqrt(100 * cp) - 2; lq = 100 * cq - 5 * sqrt(100 * cq) - 2
	if (np < lp) {
		printf "SKIP: itimer: the kernel starves ITIMER_PROF here: unprofiled, %d ticks for %.3f s CPU, want >= %.1f\n", np, cp, lp
		exit 77
	}
	if (nq < lq || nq < 20) {
		printf "FAIL: itimer: %d own ticks for %.3f s CPU under pcprof (%s), want >= %.1f; unprofiled %d for %.3f s\n", nq, cq, e, lq, np, cp
		exit 1
	}
	u = (np - 1) / sp; p = (nq - 1) / sq
	if (p < 0.95 * u || p > 1.05 * u) {
		printf "FAIL: itimer: own SIGPROF ticks %.2f per PROF-clock second (%d ticks) under pcprof, %.2f (%d ticks) without; bounds [%.2f, %.2f]\n", p, nq, u, np, 0.95 * u, 1.05 * u
		exit 1
	}
	printf "itimer: own ticks %d for %.3f s CPU (%.2f/PROF s) profiled, %d for %.3f s (%.2f/PROF s) unprofiled\n", nq, cq, p, np, cp, u }'
exit $?
