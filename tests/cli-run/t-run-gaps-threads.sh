#!/bin/sh
# Many short threads: what each thread uses after its exit handlers (glibc
# freeing it, the exit system call: 13 us a thread unprofiled) is after the
# last tick the library can pay, and no signal samples it.  Before, 100,000
# threads of about 20 us came to 419 Hz of 500 with "lost: none"; now the
# summary names that time ("X s CPU of N threads after their exit
# handlers"), and the samples with what is named account for the CPU time.
# Here 20,000 threads of 100 us on every engine: the named threads are the
# 20,000, and samples + named time x 500 Hz is within 5 standard
# deviations of the process's CPU time x 500 Hz.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
for e in thread-timer perf process-timer; do
	run $e threads 2 20000 || continue
	ran=$((ran + 1))
	grep -q "lost: .*[0-9] s CPU of 20000 threads after their exit handlers" "$T/err" ||
		fail "$e: the summary does not name the threads' teardown: $(cat "$T/err")"
	id=$(procs)
	named=$(awk -v id="$id" '$1 == "gap" && $2 == id { n += $4 } END { print n + 0 }' "$T/dump")
	near $(($(field "$id" ticks) + named * HZ / 1000)) $(($(field "$id" cpu_ms) * HZ / 1000)) \
		"$e: samples and named time ($named ms) for the CPU time ($(cat "$T/err"))"
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
