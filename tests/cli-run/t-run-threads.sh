#!/bin/sh
# Every thread is profiled: two threads burning the same CPU time (0.5 s
# each) in two functions give two threads, named, with similar ticks, and
# the two functions about half each.  "Similar" and "about half" are 5
# standard deviations (tests/README.md): the difference of the threads'
# ticks is within 5 sqrt(a + b) + 2, and each function holds at least
# n/2 - 5 sqrt(n/4) - 2 of the n ticks in the two (binomial, p = 1/2).
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -q -o "$T/p.data" -- "$HOT" threads 0.5 || fail "pcprof run exited $?"
dump "$T/p.data"
id=$(procs)
[ "$(echo "$id" | wc -l)" = 1 ] || fail "want one process"
a=$(awk -v id="$id" '$1 == "thread" && $2 == id && $4 == "worker-a" { print $5 }' "$T/dump")
b=$(awk -v id="$id" '$1 == "thread" && $2 == id && $4 == "worker-b" { print $5 }' "$T/dump")
[ -n "$a" ] && [ -n "$b" ] || { cat "$T/dump"; fail "threads worker-a / worker-b missing"; }
fa=$(awk -v id="$id" '$1 == "fn" && $2 == id && $3 == "hot_thread_a" { print $5 }' "$T/dump")
fb=$(awk -v id="$id" '$1 == "fn" && $2 == id && $3 == "hot_thread_b" { print $5 }' "$T/dump")
awk -v a="$a" -v b="$b" -v fa="${fa:-0}" -v fb="${fb:-0}" 'BEGIN {
	d = a - b; if (d < 0) d = -d
	if (a + b < 50) { print "too few ticks to compare"; exit 1 }
	if (d > 5 * sqrt(a + b) + 2) { printf "threads differ by %d > %g\n", d, 5 * sqrt(a + b) + 2; exit 1 }
	n = fa + fb; lo = n / 2 - 5 * sqrt(n / 4) - 2
	if (n < 50 || fa < lo || fb < lo) { printf "functions: %d and %d, each should be >= %g\n", fa, fb, lo; exit 1 }
}' >"$T/why" || { cat "$T/dump"; fail "worker-a $a ticks, worker-b $b, hot_thread_a $fa, hot_thread_b $fb: $(cat "$T/why")"; }
exit 0
