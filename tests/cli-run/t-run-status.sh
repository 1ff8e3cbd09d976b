#!/bin/sh
# The program's exit status, standard streams and signals pass through
# pcprof run; its own failures are 125, and 126/127 when the program cannot
# be run or found (then no data file is written).
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -q -o "$T/a.data" -- sh -c 'exit 3'
[ $? = 3 ] || fail "exit 3 came back as $?"
out=$(echo hello | "$PCPROF" run -q -o "$T/a.data" -- cat)
[ "$out" = hello ] || fail "stdin/stdout: '$out'"
err=$("$PCPROF" run -q -o "$T/a.data" -- sh -c 'echo oops >&2' 2>&1 >/dev/null)
[ "$err" = oops ] || fail "stderr: '$err'"
# arguments reach the program unchanged, options after PROGRAM included
out=$("$PCPROF" run -q -o "$T/a.data" -- printf '%s|' -q 'two words' '' --hz)
[ "$out" = "-q|two words||--hz|" ] || fail "arguments: '$out'"

"$PCPROF" run -q -o "$T/none.data" -- "$T/no-such-program" 2>"$T/err"
[ $? = 127 ] || fail "missing program: exit $?"
grep -q "no-such-program: No such file or directory" "$T/err" || fail "message: $(cat "$T/err")"
[ ! -e "$T/none.data" ] || fail "a data file was written for a program that never ran"
"$PCPROF" run -q -o "$T/none.data" -- /etc/passwd 2>/dev/null
[ $? = 126 ] || fail "non-executable program: exit $?"
"$PCPROF" run --no-such-option -- true 2>/dev/null
[ $? = 125 ] || fail "bad option: exit $?"
"$PCPROF" run 2>/dev/null
[ $? = 125 ] || fail "no program: exit $?"
"$PCPROF" run --help | grep -q "^usage: pcprof run" || fail "--help"
"$PCPROF" --help | grep -q "^  run " || fail "pcprof --help does not list run"
no_raw_dirs

# SIGINT sent to pcprof reaches the program (which handles it and exits
# 42), and pcprof survives it to write the profile.
"$PCPROF" run -q -o "$T/int.data" -- "$HOT" sigint 20 "$T/ready" &
pid=$!
wait_file "$T/ready"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 42 ] || fail "after SIGINT to pcprof: exit $rc, want 42 (43: the program never got it)"
dump "$T/int.data"
[ "$(field "$(procs)" status)" = 42 ] || fail "status in the profile"

# SIGTERM sent to pcprof kills the program (default action); pcprof writes
# the profile, then dies of the same signal.
rm -f "$T/ready"
"$PCPROF" run -q -o "$T/term.data" -- "$HOT" wait 0.05 "$T/ready" &
pid=$!
wait_file "$T/ready"
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "after SIGTERM to pcprof: exit $rc, want 143"
dump "$T/term.data"
id=$(procs)
[ "$(field "$id" end)" = signal ] && [ "$(field "$id" status)" = 15 ] ||
	fail "end=$(field "$id" end) status=$(field "$id" status), want signal 15"
no_raw_dirs
exit 0
