#!/bin/sh
# prctl(PR_TASK_PERF_EVENTS_DISABLE) disables the perf events the calling
# thread opened, which are the perf engine's too: before, a program that
# burned 0.5 s in gap_before, disabled its counters and burned 0.5 s in
# gap_after had all 500 samples in gap_before on the perf engine (252 of
# them owed, paid at exit at the last signal's pc).  The library now
# enables its own events again after the program's call (lib/seccomp.c),
# made through prctl or, where the library has syscall (x86-64), through
# syscall(SYS_prctl, ...) (perfoffsys).  On every engine (the timers never
# cared), the two functions' samples together are within 5 standard
# deviations of 1 s x 500 Hz, and each has half of them within 5 standard
# deviations of the signals that placed them (near_placed: on perf, a
# signal a sample; on thread-timer under load, as few as 32 a second).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
modes=perfoff
[ "$(uname -m)" = x86_64 ] && modes="perfoff perfoffsys"
for e in thread-timer perf process-timer; do
	for m in $modes; do
		run $e $m 0.5 || continue 2
		id=$(procs)
		near "$(($(fn_ticks "$id" gap_before) + $(fn_ticks "$id" gap_after)))" $HZ "$e $m: both halves ($(cat "$T/err"))"
		ticks=$(($(fn_ticks "$id" gap_before) + $(fn_ticks "$id" gap_after)))
		near_placed "$(fn_ticks "$id" gap_before)" "$ticks" "$(field "$id" signals)" "$e $m: gap_before ($(cat "$T/err"))"
		near_placed "$(fn_ticks "$id" gap_after)" "$ticks" "$(field "$id" signals)" "$e $m: gap_after ($(cat "$T/err"))"
	done
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
