#!/bin/sh
# How an attach ends: SIGINT (Ctrl-C) to pcprof writes the profile and
# exits 0, leaving the program running; a program that ends is noticed
# (within a second) and its exit status recorded; failures exit non-zero
# with a message.
. "$(dirname "$0")/lib.sh"

# SIGINT: sent by kill, as a terminal's Ctrl-C reaches pcprof.
"$SPLIT" 600 "$T/beat" 3 >"$T/out" &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/beat"
# SIGINT once sampling is live and the program has run 0.1 s of CPU
# since (20 samples' worth at 200 Hz): a fixed sleep could send it while
# a slow pcprof (a sanitizer build, a loaded machine) was still starting.
attach_live "$PCPROF" attach -o "$T/int.data" --hz 200 "$pid"
c0=$(cpu_ticks "$pid")
wait_cpu "$pid" $((c0 + $(getconf CLK_TCK) / 10))
kill -INT $pp
wait $pp
rc=$?
if [ $rc != 0 ]; then
	kill "$pid"
	skip_if_denied "$T/err"
	fail "pcprof attach after SIGINT exited $rc: $(cat "$T/err")"
fi
cat "$T/err"
kill -0 "$pid" || fail "the program did not survive the attach"
dump "$T/int.data"
[ "$(field "$pid.0" ticks)" -gt 0 ] || { cat "$T/dump"; fail "no samples after SIGINT"; }
kill "$pid"
wait "$pid"

# The program ends while attached: pcprof follows, with its status, which
# it can read only while the program is a zombie.  The program ends (on
# SIGUSR1) once pcprof says sampling is live, and its parent (python3)
# reaps it only when the test closes the parent's standard input, after
# pcprof has ended: pcprof must follow the end while the program is a
# zombie, and neither a slow start of pcprof nor a late reap can race
# with it.  (A shell reaps its children as soon as it waits for any.)
mkfifo "$T/reap" || fail "mkfifo"
exec 8<>"$T/reap"
python3 -c 'import subprocess, sys
p = subprocess.Popen(sys.argv[1:])
print(p.pid, flush=True)
sys.stdin.read()
sys.exit(p.wait())' "$SPLIT" 600 "$T/beat2" 3 >"$T/pid" <"$T/reap" 8>&- &
parent=$!
wait_file "$T/beat2"
# The child can beat before python3 has printed its pid (seen under load).
wait_file "$T/pid"
pid=$(head -n1 "$T/pid")
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
# A pcprof that did not follow the end would wait for ever (the parent
# reaps only after it): the timeout catches that hang, not a slow run.
attach_live timeout 120 "$PCPROF" attach -o "$T/exit.data" --hz 200 "$pid"
t0=$(date +%s%N)
kill -USR1 "$pid"
wait $pp || fail "attach exited $? (124: it did not follow the program's end): $(cat "$T/err")"
t1=$(date +%s%N)
exec 8>&-
cat "$T/err"
grep -q 'the process ended' "$T/err" || fail "summary does not say the process ended"
echo "pcprof ended $(((t1 - t0) / 1000000)) ms after the program was told to end"
dump "$T/exit.data"
[ "$(field "$pid.0" end)" = exit ] && [ "$(field "$pid.0" status)" = 3 ] ||
	{ cat "$T/dump"; fail "end=$(field "$pid.0" end) status=$(field "$pid.0" status), want exit 3"; }
grep -q "exe=$SPLIT\$" "$T/dump" || { cat "$T/dump"; fail "executable not recorded"; }
wait "$parent"
[ $? = 3 ] || fail "program status changed"
trap 'rm -rf "$T"' EXIT

# Failures.
"$PCPROF" attach --help | grep -q '^usage: pcprof attach' || fail "--help"
"$PCPROF" attach 2>/dev/null
[ $? = 2 ] || fail "no PID: want exit 2"
"$PCPROF" attach --hz 0 1 2>/dev/null
[ $? = 2 ] || fail "--hz 0: want exit 2"
"$PCPROF" attach --duration -1 1 2>/dev/null
[ $? = 2 ] || fail "--duration -1: want exit 2"
"$PCPROF" attach -o "$T/none.data" 2147483647 2>"$T/err"
[ $? = 1 ] && grep -q 'no process' "$T/err" || fail "missing process: $(cat "$T/err")"
[ ! -e "$T/none.data" ] || fail "a data file written for a missing process"
sleep 30 &
sp=$!
"$PCPROF" attach -o "$T" --duration 1 $sp 2>"$T/err"
[ $? = 1 ] && grep -q 'is a directory' "$T/err" || fail "output a directory: $(cat "$T/err")"
# Another user's process: refused with the reason.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PCPROF" attach \
		-o /dev/null --duration 1 $sp 2>"$T/err"
	rc=$?
	[ $rc = 1 ] && grep -q 'same user' "$T/err" ||
		fail "another user's process: exit $rc: $(cat "$T/err")"
	cat "$T/err"
fi
kill $sp
exit 0
