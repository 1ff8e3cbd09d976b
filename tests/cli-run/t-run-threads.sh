#!/bin/sh
# Every thread is profiled: two threads burning the same CPU time in two
# functions give two threads, named, with similar ticks, and the two
# functions about half each.
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -q -o "$T/p.data" -- "$HOT" threads 0.4 || fail "pcprof run exited $?"
dump "$T/p.data"
id=$(procs)
[ "$(echo "$id" | wc -l)" = 1 ] || fail "want one process"
a=$(awk -v id="$id" '$1 == "thread" && $2 == id && $4 == "worker-a" { print $5 }' "$T/dump")
b=$(awk -v id="$id" '$1 == "thread" && $2 == id && $4 == "worker-b" { print $5 }' "$T/dump")
[ -n "$a" ] && [ -n "$b" ] || { cat "$T/dump"; fail "threads worker-a / worker-b missing"; }
# Same CPU time each: within a factor of 2 of each other (tens of ticks).
[ $((a * 2)) -ge "$b" ] && [ $((b * 2)) -ge "$a" ] || fail "worker-a $a ticks, worker-b $b"
# Each function about half: at least 30% each.
expect_hot "$id" hot_thread_a 30
expect_hot "$id" hot_thread_b 30
exit 0
