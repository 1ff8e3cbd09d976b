#!/bin/sh
# Nothing is lost however the program ends: _exit (no exit handlers),
# abort, SIGSEGV and SIGKILL each leave a readable profile with the hot
# function, the way it ended, and pcprof ends the same way.
. "$(dirname "$0")/lib.sh"
ulimit -c 0

check()
{
	mode=$1 rc=$2 end=$3 status=$4
	dump "$T/$mode.data"
	[ "$(procs | wc -l)" = 1 ] || { cat "$T/dump"; fail "$mode: want one process"; }
	id=$(procs)
	[ "$rc" = "$5" ] || fail "$mode: pcprof exited $rc, want $5"
	[ "$(field "$id" end)" = "$end" ] && [ "$(field "$id" status)" = "$status" ] ||
		fail "$mode: end=$(field "$id" end) status=$(field "$id" status), want $end $status"
	expect_hot "$id" hot_main 70
	# The library never wrote a final CPU time: pcprof took it from /proc
	# (clock-tick resolution) before reaping.
	cpu=$(field "$id" cpu_ms)
	[ "$cpu" -ge 250 ] || fail "$mode: cpu_ms=$cpu for 0.3 s of CPU"
	no_raw_dirs
}

"$PCPROF" run -q -o "$T/exit.data" -- "$HOT" exit 0.3
check exit $? exit 7 7
"$PCPROF" run -q -o "$T/abort.data" -- "$HOT" abort 0.3
check abort $? signal 6 134
"$PCPROF" run -q -o "$T/segv.data" -- "$HOT" segv 0.3
check segv $? signal 11 139

"$PCPROF" run -q -o "$T/kill.data" -- "$HOT" wait 0.3 "$T/ready" &
pid=$!
wait_file "$T/ready"
kill -KILL "$(cat "$T/ready")"
wait $pid
check kill $? signal 9 137

# The summary says which processes ended without exit handlers.
"$PCPROF" run -o "$T/x.data" -- "$HOT" exit 0.05 2>"$T/err"
grep -q "1 ended without exit" "$T/err" || fail "summary: $(cat "$T/err")"
exit 0
