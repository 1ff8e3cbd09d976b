#!/bin/sh
# SIGEV_THREAD timer callbacks are sampled like any thread.  glibc runs
# each expiry in a thread its helper creates past pthread_create, with
# every signal blocked: before, 20 callbacks of 30 ms (0.6 s of CPU time)
# got 2 or 3 samples on every engine, and the summary said "lost: none".
# The library now interposes timer_create (lib/sigev.c).  Here 20
# callbacks burn 0.6 s of their threads' CPU time in gap_burn_callback:
# on every engine, the samples there and in gap_callback (where a thread
# that had no signal is paid, owed, at its end) are within 5 standard
# deviations of 0.6 s x 500 Hz, the process's samples within 5 sd of its
# CPU time x 500 Hz, and nothing is lost.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
for e in thread-timer perf process-timer; do
	run $e sigev 0.6 20 || continue
	ran=$((ran + 1))
	grep -q "; lost: none" "$T/err" || fail "$e: summary: $(cat "$T/err")"
	id=$(procs)
	cb=$(($(fn_ticks "$id" gap_burn_callback) + $(fn_ticks "$id" gap_callback)))
	near "$cb" $((6 * HZ / 10)) "$e: samples in the callbacks ($(cat "$T/err"))"
	near "$(field "$id" ticks)" $(($(field "$id" cpu_ms) * HZ / 1000)) \
		"$e: the process's samples for its CPU time"
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
