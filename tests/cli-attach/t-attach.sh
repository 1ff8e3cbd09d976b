#!/bin/sh
# pcprof attach on a running dynamically linked program: the profile shows
# its 2:1 split with samples for its CPU time, and the program keeps its
# heartbeat, descriptors, mappings, signal dispositions and exit status.
. "$(dirname "$0")/lib.sh"
attach_case "$SPLIT" 1000 0.3
grep -q "^module .* $SPLIT bias=0x[1-9a-f][0-9a-f]* .*buildid=[0-9a-f]\{40\}$" "$T/dump" ||
	{ cat "$T/dump"; fail "executable module missing or without bias/build-id"; }
grep -q "^module .*/libc\.so\.6 " "$T/dump" || fail "libc module missing"
# Every export reads it.
for f in gmon pprof folded speedscope html; do
	"$PCPROF" export -f $f -o "$T/out.$f" "$T/p.data" || fail "export -f $f"
done
"$PCPROF" report "$T/p.data" >"$T/report" || fail "report"
grep -q split_a "$T/report" || { cat "$T/report"; fail "report lacks split_a"; }
exit 0
