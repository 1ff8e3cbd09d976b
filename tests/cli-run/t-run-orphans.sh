#!/bin/sh
# Descendants that outlive their parent: pcprof run is their subreaper, so
# one that ended before the program is reaped by pcprof and its exit
# status is known; one still running when the program ends is recorded up
# to that moment and the summary says so.
. "$(dirname "$0")/lib.sh"

# The shell starts hot in the background and exits after it without
# waiting for it: hot is orphaned, reparented to pcprof and reaped there.
"$PCPROF" run -q -o "$T/a.data" -- sh -c "\"$HOT\" main 0.5 & while kill -0 \$! 2>/dev/null; do sleep 0.05; done; true" ||
	fail "pcprof run exited $?"
dump "$T/a.data"
id=$(awk '$1 == "proc" && $NF == "exe='"$HOT"'" { print $2 }' "$T/dump")
[ -n "$id" ] || { cat "$T/dump"; fail "the orphan was not recorded"; }
[ "$(field "$id" end)" = exit ] || fail "orphan's end: $(field "$id" end)"
expect_hot "$id" hot_main 70

# Still running: the shell waits until hot is ready (and paused), then
# exits; pcprof reads hot's recording as it stands.
"$PCPROF" run -o "$T/b.data" -- sh -c "\"$HOT\" wait 0.5 \"$T/ready\" & while [ ! -s \"$T/ready\" ]; do sleep 0.05; done" 2>"$T/err" ||
	fail "pcprof run exited $?"
orphan=$(cat "$T/ready")
kill -KILL "$orphan"
grep -q "1 still running (recorded until now)" "$T/err" || fail "summary: $(cat "$T/err")"
dump "$T/b.data"
id=$(awk '$1 == "proc" && $NF == "exe='"$HOT"'" { print $2 }' "$T/dump")
[ "${id%.*}" = "$orphan" ] || { cat "$T/dump"; fail "the running orphan was not recorded"; }
expect_hot "$id" hot_main 70
no_raw_dirs
exit 0
