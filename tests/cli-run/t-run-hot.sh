#!/bin/sh
# pcprof run on a program whose CPU time is all in one function of the
# executable: the data file holds one process, with that function on top,
# ticks that match its CPU time, its modules, and one summary line on
# stderr; the raw directory is gone afterwards.
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -o "$T/p.data" -- "$HOT" main 0.5 2>"$T/err" || fail "pcprof run exited $?"
dump "$T/p.data"
[ "$(procs | wc -l)" = 1 ] || { cat "$T/dump"; fail "want one process"; }
id=$(procs)
# Nearly every tick lands in the loop; 80% leaves room for start-up, the
# clock reads and the exit path at a coarse rate.
expect_hot "$id" hot_main 80
[ "$(field "$id" end)" = exit ] && [ "$(field "$id" status)" = 0 ] ||
	fail "end=$(field "$id" end) status=$(field "$id" status), want exit 0"

# Ticks are weighted by timer overruns, so they follow CPU time: the
# recorded CPU time at the recorded rate (near: 5 sd).
hz=$(field "$id" hz)
ticks=$(field "$id" ticks)
cpu=$(field "$id" cpu_ms)
[ "$hz" -ge 1 ] || fail "hz=$hz"
[ "$cpu" -ge 450 ] && [ "$cpu" -le 1500 ] || fail "cpu_ms=$cpu for 0.5 s of CPU"
near "$ticks" "$((hz * cpu / 1000))" "ticks at $hz Hz for $cpu ms of CPU"
[ -n "$(field "$id" engine)" ] || fail "no engine recorded"
[ "$(field "$id" mem)" -gt 0 ] || fail "no recording memory reported"

# Modules: the executable (PIE: a non-zero bias), with a build-id; libc.
grep -q "^module $id [0-9]* $HOT bias=0x[1-9a-f][0-9a-f]* .*buildid=[0-9a-f]\{40\}$" "$T/dump" ||
	{ cat "$T/dump"; fail "executable module missing or without bias/build-id"; }
grep -q "^module $id [0-9]* /.*/libc\.so\.6 " "$T/dump" || fail "libc module missing"
grep -q "^thread $id [0-9]* hot [0-9]" "$T/dump" || fail "main thread missing"

# One summary line, naming the output.
[ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "want one line on stderr"; }
grep -q "^pcprof run: [0-9]* samples\( ([0-9]* owed)\)\{0,1\}, .* 1 process, 1 thread sampled, .*lost: none -> $T/p.data$" "$T/err" ||
	fail "summary: $(cat "$T/err")"
no_raw_dirs

# -q: nothing on stderr; default output: ./pcprof.data.
(cd "$T" && "$PCPROF" run -q -- "$HOT" main 0.05 2>"$T/err") || fail "-q run failed"
[ ! -s "$T/err" ] || fail "-q printed: $(cat "$T/err")"
dump "$T/pcprof.data"
[ "$(field "$(procs)" end)" = exit ] || fail "default output file not written"
no_raw_dirs
exit 0
