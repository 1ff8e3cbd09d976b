#!/bin/sh
# "lost: none" means it (issue 8, item 11): threads the engine cannot
# attach to are named in the summary's lost list with their CPU time x
# rate.  `hot starved` takes away what a new thread's POSIX timer needs
# (RLIMIT_SIGPENDING 0) once the library started, then runs two threads of
# 0.3 s each: at 1 kHz on thread-timer, about 600 samples are lost, and
# only the main thread's few are recorded.
. "$(dirname "$0")/lib.sh"

PROFIL_HZ=1000 PROFIL_ENGINE=thread-timer "$PCPROF" run -o "$T/p.data" -- "$HOT" starved 0.3 \
	2>"$T/err" || fail "pcprof run exited $?: $(cat "$T/err")"
n=$(sed -n 's/.*; lost: \([0-9]*\) samples of [0-9]* threads\{0,1\} not sampled.*/\1/p' "$T/err")
[ -n "$n" ] || fail "no loss named: $(cat "$T/err")"
awk -v n="$n" 'BEGIN { x = 600; d = 5 * sqrt(x) + 2
	printf "# %d samples lost, want %.0f +- %.0f\n", n, x, d
	exit !(n >= x - d && n <= x + d) }' || fail "summary: $(cat "$T/err")"
echo "# $(cat "$T/err")"
exit 0
