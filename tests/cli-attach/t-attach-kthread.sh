#!/bin/sh
# pcprof attach refuses a kernel thread (PF_KTHREAD in /proc/PID/stat): it
# has no user space, so sampling it could only give an empty recording,
# which attach wrote with exit 0 ("0 samples, 0.00 s CPU").  Now one line
# says why, the status is 1 as for a pid that does not exist, and no data
# file is written.
. "$(dirname "$0")/lib.sh"
k=
for d in /proc/[0-9]*; do
	p=${d#/proc/}
	# field 9, the flags, after "pid (comm)"; comm may hold blanks
	f=$(sed 's/^.*) //' "$d/stat" 2>/dev/null | awk '{ print $7 }')
	[ -n "$f" ] && [ $((f & 0x00200000)) != 0 ] && { k=$p; break; }
done
[ -n "$k" ] || { echo "SKIP: no kernel thread visible in /proc (a PID namespace)"; exit 77; }
rc=0
(cd "$T" && "$PCPROF" attach --duration 0.2 "$k") >"$T/out" 2>"$T/err" || rc=$?
[ $rc = 1 ] || fail "attach to kernel thread $k: exit $rc, want 1: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^pcprof attach: process $k is a kernel thread" "$T/err" ||
	fail "attach to kernel thread $k: $(cat "$T/err")"
[ ! -e "$T/pcprof.data" ] || fail "attach to kernel thread $k wrote a data file"
exit 0
