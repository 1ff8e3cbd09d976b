#!/bin/sh
# How report and diff headers count processes, and how report -P shows an
# exit status nobody told pcprof.
#   - A process pcprof run did not reap (a shell's child, which the shell
#     waits for) exited with a status pcprof cannot know: -P says "exit ?",
#     never "exit -1" (which reads as 255); the status of the process it
#     did reap (the shell's 3) is shown.
#   - An exec chain is one process of several images: the header counts
#     the process once and lists its pid once ("processes  1 (3 images,
#     exec): PID"), and diff's header says the same.
. "$(dirname "$0")/lib.sh"

# The child is a system program: a sanitizer build of mkfixture exec'd by
# the shell gets no libprofil (a ThreadSanitizer program needs the static
# TLS room pcprof run gives only the program it starts), and then its
# image has no samples and no status of its own.
head -c 30000000 /dev/zero >"$T/zero"
rc=0
"$PCPROF" run -q -o "$T/e.data" -- sh -c "md5sum '$T/zero' >/dev/null; exit 3" \
	>"$T/runout" 2>&1 || rc=$?
[ $rc = 3 ] || fail "pcprof run did not exit with the shell's 3: $(cat "$T/runout")"
"$PCPROF" report -P -v "$T/e.data" >"$T/r" 2>&1 || fail "report -P: $(cat "$T/r")"
table "$T/r" '    pid' >"$T/rows"
# columns: pid ppid self% samples seconds cpu achieved Hz engine lost, the
# end in two words (exit STATUS), the command line
fixrow=$(awk '$13 == "md5sum"' "$T/rows")
shrow=$(awk '$13 == "sh"' "$T/rows")
[ -n "$fixrow" ] && [ -n "$shrow" ] || fail "no md5sum or no sh row: $(cat "$T/r")"
[ "$(echo "$fixrow" | awk '{ print $11, $12 }')" = "exit ?" ] ||
	fail "unreaped child's end is not 'exit ?': $fixrow"
[ "$(echo "$shrow" | awk '{ print $11, $12 }')" = "exit 3" ] ||
	fail "the shell's end is not 'exit 3': $shrow"
grep -q 'exit -' "$T/r" && fail "a negative exit status is shown: $(cat "$T/r")"
grep -q '^processes  *2: [0-9]* [0-9]*$' "$T/r" || fail "header of two processes: $(head -4 "$T/r")"

# sh execs sh which execs md5sum: one pid, three images
"$PCPROF" run -q -o "$T/x.data" -- sh -c "exec sh -c 'exec md5sum \"$T/zero\" >/dev/null'" \
	>"$T/runout" 2>&1 || fail "pcprof run exit $?: $(cat "$T/runout")"
"$PCPROF" report -P -v "$T/x.data" >"$T/r" 2>&1 || fail "report -P: $(cat "$T/r")"
table "$T/r" '    pid' >"$T/rows"
[ "$(wc -l <"$T/rows")" = 3 ] || fail "want 3 images in -P: $(cat "$T/r")"
pid=$(awk '{ print $1 }' "$T/rows" | sort -u)
[ "$(echo "$pid" | wc -l)" = 1 ] || fail "the images have several pids: $(cat "$T/r")"
grep -q "^processes  *1 (3 images, exec): $pid\$" "$T/r" ||
	fail "header: $(grep '^processes' "$T/r"), want 'processes  1 (3 images, exec): $pid'"
"$PCPROF" diff "$T/x.data" "$T/e.data" >"$T/d" 2>&1 || fail "diff: $(cat "$T/d")"
grep -q "^base  *$T/x.data: .*, 1 process (3 images, exec)\$" "$T/d" ||
	fail "diff base header: $(head -2 "$T/d")"
grep -q "^new  *$T/e.data: .*, 2 processes\$" "$T/d" || fail "diff new header: $(sed -n 3,4p "$T/d")"
exit 0
