#!/bin/sh
# pcprof run's summary counts as pcprof report does (new-user finding F3):
# processes by pid, with the images in parentheses when an exec made more,
# and the threads sampled by thread id (an exec keeps the thread's id).
# It said "2 processes, 2 threads" for one process that exec'd, where
# report said "processes 1 (2 images, exec)".  Each image here burns 0.2 s
# of CPU in its own thread, so each has samples.
. "$(dirname "$0")/../cli-run/lib.sh"
summary() { # MODE WANT: the summary of "hot MODE 0.2" has WANT
	"$PCPROF" run -o "$T/$1.data" -- "$HOT" "$1" 0.2 2>"$T/err" || fail "pcprof run $1: $(cat "$T/err")"
	grep -q "^pcprof run: .*), $2, recording memory" "$T/err" ||
		fail "hot $1: want '$2': $(cat "$T/err")"
}
summary exec "1 process (2 images), 1 thread sampled"
"$PCPROF" report "$T/exec.data" >"$T/r" 2>&1 || fail "report: $(cat "$T/r")"
grep -q '^processes  1 (2 images, exec):' "$T/r" || fail "report counts otherwise: $(cat "$T/r")"
summary fork "2 processes, 2 threads sampled"
summary main "1 process, 1 thread sampled"
exit 0
