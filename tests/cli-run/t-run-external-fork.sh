#!/bin/sh
# External mode follows the processes the target forks: tests/targets/forks
# burns SECONDS of CPU in each of three processes, burn_parent in itself,
# burn_forked in a forked child, burn_execd in a child that execs the
# program again.  pcprof run (static build: external by itself) and pcprof
# attach (dynamic build, attached before it forks) must each list the three
# processes, each with its own function on top and samples for its CPU
# time (>= 0.75 x CPU x rate, and within 5 sd of it at most above), its
# parent named; --no-follow keeps the target's only and says so.
. "$(dirname "$0")/../cli-attach/lib.sh"
FORKS=$PWD/${B:-build}/tests/targets/forks
[ -x "$FORKS" ] || fail "missing $FORKS (make all)"
HZ=500
SECS=0.5
probe_perf

# check_procs OUT: the processes of the last dump against the program's
# lines in OUT ("NAME pid=PID cpu=SECONDS"), each name's process with
# burn_NAME on top and its samples for its CPU time
check_procs()
{
	busy=$(awk '$1 == "proc" && $6 != "ticks=0"' "$T/dump" | wc -l)
	[ "$busy" = 3 ] || { cat "$T/dump"; fail "want 3 processes with samples, got $busy"; }
	ppid=$(sed -n 's/^parent pid=\([0-9]*\) .*/\1/p' "$1")
	for name in parent forked execd; do
		line=$(grep "^$name pid=" "$1") || fail "no $name line in the output: $(cat "$1")"
		pid=$(echo "$line" | sed 's/.* pid=\([0-9]*\) .*/\1/')
		cpu=$(echo "$line" | sed 's/.* cpu=//')
		id=$pid.0
		procs | grep -qx "$id" || { cat "$T/dump"; fail "$name: no process $id"; }
		[ "$(top "$id")" = "burn_$name" ] || { cat "$T/dump"; fail "$name: top function $(top "$id")"; }
		[ "$name" = parent ] || [ "$(field "$id" ppid)" = "$ppid" ] ||
			fail "$name: ppid $(field "$id" ppid), want $ppid"
		awk -v n="$(field "$id" ticks)" -v c="$cpu" -v hz=$HZ -v name=$name 'BEGIN {
			want = c * hz; hi = want + 5 * sqrt(want) + 2
			printf "%s: %d samples for %.2f s CPU at %d Hz (want %.0f..%.0f)\n", name, n, c, hz, 0.75 * want, hi
			exit !(want >= 50 && n >= 0.75 * want && n <= hi) }' || fail "$name: samples out of bounds"
	done
}

# 1. pcprof run of the static build
cc -static -O1 -g -o "$T/forks-static" tests/targets/forks.c 2>"$T/cc" ||
	{ echo "SKIP: cannot link static programs: $(head -n1 "$T/cc")"; exit 77; }
"$PCPROF" run -o "$T/p.data" --hz $HZ "$T/forks-static" $SECS 3 >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc = 3 ] || fail "exit status $rc, want the program's 3"
grep -q '(external: statically linked' "$T/err" || fail "not external"
grep -q '2 child processes followed' "$T/err" || fail "the summary does not count the children"
dump "$T/p.data"
check_procs "$T/out"

# 2. --no-follow: the target's process only, the others counted
"$PCPROF" run -o "$T/p.data" --no-follow --hz $HZ "$T/forks-static" 0.2 >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] || { cat "$T/err"; fail "--no-follow: exit status $rc"; }
grep -q '2 child processes not followed' "$T/err" || fail "--no-follow: $(cat "$T/err")"
dump "$T/p.data"
[ "$(procs | wc -l)" = 1 ] || { cat "$T/dump"; fail "--no-follow: want 1 process"; }

# 3. attach to a shell that then execs the dynamic build, which forks.  The
# shell execs once pcprof says sampling is live (it waits in the open of a
# FIFO, which the test opens then): after a fixed sleep, a slow attach
# under load missed the start of the burns.
mkfifo "$T/go" || fail "mkfifo"
sh -c 'read -r go <"$2"; exec "$0" "$1"' "$FORKS" $SECS "$T/go" >"$T/out" &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
attach_live "$PCPROF" attach -o "$T/p.data" --hz $HZ $pid
echo go >"$T/go"
wait $pp
rc=$?
wait $pid
trap 'rm -rf "$T"' EXIT
cat "$T/err"
[ $rc = 0 ] || fail "attach: exit status $rc"
dump "$T/p.data"
check_procs "$T/out"
exit 0
