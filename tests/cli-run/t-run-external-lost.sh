#!/bin/sh
# External mode: a full perf buffer drops records of every kind its buffer
# takes, and the kernel says only how many.  Side-band records (a mapping,
# an exec, a thread's or process's end) and samples shared a buffer, and
# every dropped record was counted as a sample: a program that maps and
# unmaps an executable page again and again for 0.4 s of CPU time got
# "lost: 17066 samples" at 500 Hz, where 0.4 s holds 200, and its
# samples were crowded out of the buffer too (2 samples).  Now samples and
# side-band records have buffers of their own (cli/sampler.c,
# open_thread), each kind is counted apart, and the lost samples can be no
# more than the CPU time holds: within 5 standard deviations of CPU time x
# 500 Hz, with the side-band records named apart.
. "$(dirname "$0")/../cli-attach/lib.sh"
GAPS=$PWD/${B:-build}/tests/targets/gaps
[ -x "$GAPS" ] || fail "missing $GAPS (make all)"
HZ=500
probe_perf

"$PCPROF" run --mode external --hz $HZ -o "$T/p.data" -- "$GAPS" maps 0.4 2>"$T/err" ||
	fail "pcprof run exited $?: $(cat "$T/err")"
awk -v hz=$HZ '
/^pcprof run: / {
	cpu = $5; lost = 0
	if (match($0, /lost: [0-9]+ samples/))
		lost = substr($0, RSTART + 6, RLENGTH - 14) + 0
	most = cpu * hz + 5 * sqrt(cpu * hz) + 2
	printf "# %.2f s CPU, %d samples lost (at most %.0f)\n", cpu, lost, most
	if (lost > most) { printf "%d samples lost in %.2f s of CPU time at %d Hz\n", lost, cpu, hz; exit 1 }
	if (!/side-band records? \(perf buffers full/) { print "no side-band records named as lost"; exit 1 }
	ok = 1 }
END { exit !ok }' "$T/err" >"$T/why" || fail "$(cat "$T/why"): $(cat "$T/err")"
exit 0
