#!/bin/sh
# pcprof attach records call stacks: on the running split target (built
# with frame pointers), split_a and split_b show under main, split_a with
# 2/3 of the samples that end in either (5 sd), and no stack holds an
# address no function covers.  The attach itself is checked as in
# t-attach.sh (heartbeat, descriptors, maps, exit status, samples for the
# CPU time).
. "$(dirname "$0")/lib.sh"
attach_case "$SPLIT" 500 0.3
# --no-inline: split.c's work() is inlined into split_a and split_b, and
# its DWARF inline frame would be the leaf
"$PCPROF" export -f folded --no-inline -o "$T/p.folded" "$T/p.data" || fail "export -f folded"
awk '
	$1 ~ /(^|;)main;split_a$/ { a += $2 }
	$1 ~ /(^|;)main;split_b$/ { b += $2 }
	END {
	n = a + b; want = n * 2 / 3; sd = sqrt(n * 2 / 9)
	lo = want - 5 * sd; hi = want + 5 * sd
	printf "main;split_a %d, main;split_b %d (want %.1f, bounds %.1f..%.1f)\n", a, b, want, lo, hi
	exit !(n >= 50 && a >= lo && a <= hi) }' "$T/p.folded" ||
	{ sort -k2 -n -r "$T/p.folded" | head -n 20; fail "the stacks do not show split_a and split_b under main"; }
grep '0x' "$T/p.folded" && fail "an address no function holds in a stack"
"$PCPROF" report --callers split_a "$T/p.data" >"$T/report" || fail "report --callers"
grep -q ' main ' "$T/report" || { cat "$T/report"; fail "report: split_a's caller is not main"; }
# --no-stacks: pcs only
rm -f "$T/beat"
"$SPLIT" 600 "$T/beat" 3 >/dev/null &
pid=$!
wait_file "$T/beat"
"$PCPROF" attach -q --no-stacks -o "$T/n.data" --duration 0.5 "$pid" || { kill "$pid"; fail "attach --no-stacks"; }
kill -USR1 "$pid"
wait "$pid"
dump "$T/n.data"
grep -q '^stack ' "$T/dump" && fail "--no-stacks recorded stacks"
exit 0
