#!/bin/sh
# pcprof run's default rate is 500 Hz, or the kernel tick where that is
# lower, and with it the library chooses the thread-timer engine (issue 19,
# item 3): above the tick it would choose perf, whose events cost every
# context switch (a pipe ping-pong ran 4.3 times slower at the former
# default of 500 Hz on a 250 Hz kernel; docs/benchmarks.md, "Context
# switches").  The tick is the library's own measure, which the data file
# keeps in its engine choice ("N Hz is within the K Hz kernel tick"); the
# recorded rate must be min(500, K), the engine thread-timer, and
# `pcprof run --help` must name the same default.  With PROFIL_HZ or --hz
# the rate asked for stays (here 1000 Hz: recorded as 1000).
# tests/unit/t-engine-order checks the order for other kernel ticks.
# Before: 500 Hz and perf on this 250 Hz kernel.
. "$(dirname "$0")/lib.sh"
unset PROFIL_HZ PROFIL_ENGINE PROFIL_PERF_MODE PROFIL_SIGNAL

"$PCPROF" run -q -o "$T/d.data" -- "$HOT" main 0.1 || fail "pcprof run exited $?"
dump "$T/d.data"
id=$(procs | head -n 1)
hz=$(field "$id" hz)
engine=$(field "$id" engine)
why=$(awk -v id="$id" '$1 == "why" && $2 == id { $1 = $2 = ""; print; exit }' "$T/dump")
tick=$(printf '%s\n' "$why" | sed -n 's/.* Hz is [a-z]* the \([0-9]*\) Hz kernel tick.*/\1/p')
[ -n "$tick" ] || fail "no kernel tick in the engine choice: $why"
want=500
[ "$tick" -gt 0 ] && [ "$tick" -lt 500 ] && want=$tick
[ "$hz" = "$want" ] && [ "$engine" = thread-timer ] ||
	fail "default: $hz Hz on $engine with a $tick Hz tick, want $want Hz on thread-timer ($why)"
"$PCPROF" run --help | grep -q "$want here)" ||
	fail "pcprof run --help does not name the default $want: $("$PCPROF" run --help | grep -A2 -- --hz)"

PROFIL_HZ=1000 "$PCPROF" run -q -o "$T/e.data" -- "$HOT" main 0.1 || fail "PROFIL_HZ=1000: exited $?"
dump "$T/e.data"
hz=$(field "$(procs | head -n 1)" hz)
[ "$hz" = 1000 ] || fail "PROFIL_HZ=1000 recorded $hz Hz"
exit 0
