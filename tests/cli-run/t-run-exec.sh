#!/bin/sh
# An exec'd program is recorded as the next image of the same pid: image 0
# ends by exec with its own hot function, image 1 runs the new program.
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -q -o "$T/p.data" -- "$HOT" exec 0.3 || fail "pcprof run exited $?"
dump "$T/p.data"
[ "$(procs | wc -l)" = 2 ] || { cat "$T/dump"; fail "want two images"; }
first=$(procs | head -n1)
second=$(procs | tail -n1)
[ "${first%.*}" = "${second%.*}" ] || fail "images of different pids: $first $second"
[ "${first#*.}" = 0 ] && [ "${second#*.}" = 1 ] || fail "image numbers: $first $second"
[ "$(field "$first" end)" = exec ] || fail "first image's end: $(field "$first" end)"
[ "$(field "$second" end)" = exit ] && [ "$(field "$second" status)" = 0 ] ||
	fail "second image's end: $(field "$second" end) $(field "$second" status)"
expect_hot "$first" hot_before_exec 70
expect_hot "$second" hot_after_exec 70
# each image's CPU time is its own, not the process's so far (0.3 s each)
cpu=$(field "$second" cpu_ms)
[ "$cpu" -ge 250 ] && [ "$cpu" -le 500 ] || fail "second image cpu_ms=$cpu, want about 300"

# 0.3 s as above: with 0.1 s (25 samples at 250 Hz) an ASan run at load
# 6-13 once had more samples elsewhere than in the hot function.
"$PCPROF" run -q --no-follow -o "$T/n.data" -- "$HOT" exec 0.3 || fail "--no-follow exited $?"
dump "$T/n.data"
[ "$(procs | wc -l)" = 1 ] || fail "--no-follow: want one image"
[ "$(top "$(procs)")" = hot_before_exec ] || fail "--no-follow recorded the wrong image"
no_raw_dirs
exit 0
