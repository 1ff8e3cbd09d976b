#!/bin/sh
# io_uring's workers are threads of the process that run only in the
# kernel (iou-wrk-N): no signal samples them.  Before, a program whose
# workers read 0.5 s of /dev/zero (the kernel clearing buffers) got 10-25
# samples for 0.52 s of CPU time and "lost: none" on every engine; now
# the summary says "0.50 s CPU in io_uring workers", the data file keeps
# it (ppdump's gap line) and pcprof report's header says it too.  The
# figure is the workers' CPU time (at least the 0.5 s gaps makes them
# burn, and at most what the samples leave of the process's CPU time).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
for e in thread-timer perf process-timer; do
	run $e uring 0.5 || continue
	ran=$((ran + 1))
	grep -q "lost: .*[0-9] s CPU in io_uring workers" "$T/err" ||
		fail "$e: the summary does not name the io_uring workers: $(cat "$T/err")"
	id=$(procs)
	ms=$(gap_ms "$id" iouring) ticks=$(field "$id" ticks) cpu=$(field "$id" cpu_ms)
	# 10 ms of slack: ppdump prints whole milliseconds, and the last read
	# may end past the 0.5 s
	awk -v ms="$ms" -v t="$ticks" -v cpu="$cpu" -v hz=$HZ 'BEGIN {
		left = cpu - t * 1000 / hz
		printf "# io_uring workers: %d ms named; %d samples for %d ms of CPU time\n", ms, t, cpu
		if (ms < 490 || ms > left + 10) {
			printf "named %d ms, want 490 .. %d\n", ms, left + 10; exit 1 }
	}' || fail "$e: io_uring workers' CPU time"
	"$PCPROF" report "$T/$e.data" >"$T/report" || fail "$e: pcprof report exited $?"
	grep -q "^missing .* s in io_uring workers" "$T/report" ||
		fail "$e: report header: $(head -n 8 "$T/report")"
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
