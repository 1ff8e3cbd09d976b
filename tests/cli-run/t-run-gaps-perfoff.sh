#!/bin/sh
# prctl(PR_TASK_PERF_EVENTS_DISABLE) disables the perf events the calling
# thread opened, which are the perf engine's too: before, a program that
# burned 0.5 s in gap_before, disabled its counters and burned 0.5 s in
# gap_after had all 500 samples in gap_before on the perf engine (252 of
# them owed, paid at exit at the last signal's pc).  The library now
# enables its own events again after the program's call (lib/seccomp.c).
# On every engine (the timers never cared), each function's samples are
# within 5 standard deviations of 0.5 s x 500 Hz.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
for e in thread-timer perf process-timer; do
	run $e perfoff 0.5 || continue
	ran=$((ran + 1))
	id=$(procs)
	near "$(fn_ticks "$id" gap_before)" $((HZ / 2)) "$e: gap_before ($(cat "$T/err"))"
	near "$(fn_ticks "$id" gap_after)" $((HZ / 2)) "$e: gap_after ($(cat "$T/err"))"
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
