#!/bin/sh
# A thread that blocks the sampling signal with a raw rt_sigprocmask (past
# libc, so past the library's view of masks) takes no signal; its ticks
# were paid at exit at the last signal's pc.  Before, a program that burned
# 0.5 s in gap_before, blocked every signal and burned 0.5 s in gap_after
# had about 500 samples in gap_before and none in gap_after, "lost:
# none", on every engine (with the block from the start: main's time as
# [startup]).  Now the ticks of a thread that blocks the signal are not
# charged to a pc it left: the summary says "0.50 s CPU of 1 thread that
# blocked the sampling signal", the data file keeps it (ppdump's gap
# line).  Checked on every engine: gap_after has no samples, gap_before's
# samples and the named ticks add up to within 5 standard deviations of
# 1 s x 500 Hz, and the named ticks are at least gap_after's 0.5 s x 500
# Hz less 5 standard deviations.  (What the thread owed since its last
# signal before it blocked is named with the rest: under load, a timer
# engine's signals come late, 0.67 s named once for the 0.5 s blocked.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
for e in thread-timer perf process-timer; do
	run $e rawmask 0.5 || continue
	ran=$((ran + 1))
	grep -q "lost: .*[0-9] s CPU of 1 thread that blocked the sampling signal" "$T/err" ||
		fail "$e: the summary does not name the blocked thread: $(cat "$T/err")"
	id=$(procs)
	before=$(fn_ticks "$id" gap_before)
	# whole ticks of 2 ms at 500 Hz
	blocked=$(($(gap_ms "$id" blocked) * HZ / 1000))
	near $((before + blocked)) $HZ "$e: gap_before ($before) and the blocked thread's ticks \
($blocked), of $(cat "$T/err")"
	awk -v b="$blocked" -v e=$((HZ / 2)) 'BEGIN { exit !(b >= e - 5 * sqrt(e) - 2) }' ||
		fail "$e: $blocked ticks named for the blocked 0.5 s: $(cat "$T/err")"
	[ "$(fn_ticks "$id" gap_after)" -le 2 ] ||
		fail "$e: $(fn_ticks "$id" gap_after) samples in gap_after, which never took a signal"
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
