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
# Each must give the same output and exit status as unprofiled; the
# profiler's own ticks per second of its PROF clock (the clock ITIMER_PROF
# runs on: one tick per 10 ms of it, measured between its first and last
# tick) within 5 % of its unprofiled rate; and pcprof's samples within
# [0.75, 1.25] x the CPU seconds pcprof measured x the rate.
. "$(dirname "$0")/owners.sh"
OWNER=$PWD/${B:-build}/tests/targets/sigowner
[ -x "$OWNER" ] || fail "missing $OWNER (make all)"
command -v sort >/dev/null || fail "no sort"

awk 'BEGIN { x = 1; for (i = 0; i < 1000000; i++) { x = (x * 1103515245 + 12345) % 2147483648; print x } }' >"$T/big.txt"
profiled sort sort -n "$T/big.txt"
profiled dfl "$OWNER" dfl 1000000000
profiled ign "$OWNER" ign 1000000000
profiled itimer "$OWNER" itimer 1000000000 "$T/ticks"
mv "$T/ticks" "$T/ticks.prof"
"$OWNER" itimer 1000000000 "$T/ticks" >/dev/null || fail "itimer: unprofiled run failed"
read -r n_plain s_plain <"$T/ticks"
read -r n_prof s_prof <"$T/ticks.prof"
awk -v np="$n_plain" -v sp="$s_plain" -v nq="$n_prof" -v sq="$s_prof" 'BEGIN {
	if (np < 20 || nq < 20) { printf "FAIL: itimer: too few ticks (%d, %d)\n", np, nq; exit 1 }
	u = (np - 1) / sp; p = (nq - 1) / sq
	if (p < 0.95 * u || p > 1.05 * u) {
		printf "FAIL: itimer: own SIGPROF ticks %.2f per PROF-clock second (%d ticks) under pcprof, %.2f (%d ticks) without; bounds [%.2f, %.2f]\n", p, nq, u, np, 0.95 * u, 1.05 * u
		exit 1
	}
	printf "itimer: own ticks %.2f/s profiled, %.2f/s unprofiled\n", p, u }' || exit 1
exit 0
