#!/bin/sh
# A fork child in which no engine can start: what a new timer or perf event
# needs is gone (RLIMIT_SIGPENDING 0, no descriptor to spare), so its CPU
# time cannot be sampled.  On process-timer the child's one timer could
# not be made, and it was recorded with 0 samples, its parent's engine
# name and "lost: none"; now the summary says "0.30 s CPU of 1 process no
# engine could sample (process-timer: ... EAGAIN ...)" and the data file
# keeps it.  The per-thread engines start there and count the thread they
# could not arm as not sampled, as before; on every engine the data file's
# named time for the child (ppdump's gap lines) is within 5 standard
# deviations of its 0.3 s x 500 Hz, and pcprof report's header says it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
for e in thread-timer perf process-timer; do
	run $e forkstarved 0.3 || continue
	ran=$((ran + 1))
	set -- $(procs)
	[ $# = 2 ] || { cat "$T/dump"; fail "$e: $# processes, want 2"; }
	near "$(fn_ticks "$1" gap_before)" $((3 * HZ / 10)) "$e: the parent's gap_before"
	[ "$(field "$2" ticks)" -le 2 ] ||
		fail "$e: the child has $(field "$2" ticks) samples: was an engine started after all?"
	ms=$(($(gap_ms "$2" noengine) + $(gap_ms "$2" unsampled)))
	near $((ms * HZ / 1000)) $((3 * HZ / 10)) "$e: the child's time named ($(cat "$T/err"))"
	grep -q "lost: none" "$T/err" && fail "$e: summary: $(cat "$T/err")"
	[ $e != process-timer ] || grep -q "lost: .*0\.[0-9]* s CPU of 1 process no engine could sample" "$T/err" ||
		fail "$e: summary: $(cat "$T/err")"
	"$PCPROF" report "$T/$e.data" >"$T/report" || fail "$e: pcprof report exited $?"
	grep -q "^missing " "$T/report" || fail "$e: report header: $(head -n 8 "$T/report")"
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
