#!/bin/sh
# Processes in a pid namespace of their own (unshare(CLONE_NEWPID), then
# fork): their own ids differ from /proc's (unless they mount one), and
# the engines take their own.  Before, the library took the thread ids of
# /proc/self/task (the host's): timer_create said EINVAL, the child and
# grandchild had 0 samples for 0.3 s each (thread-timer, perf), were
# recorded as pids 1 and 2 (ppid 0), and one was "still running" (pid 1,
# the host's init, exists).  Now each is recorded under the pid pcprof
# knows it by, its ppid its parent's, with its samples (within 5
# standard deviations of 0.3 s x 500 Hz in gap_child and gap_grandchild)
# on every engine.  As root (the namespace needs it); SKIP where refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gaps.sh"

ran=0
for e in thread-timer perf process-timer; do
	run $e pidns 0.3 || continue
	ran=$((ran + 1))
	set -- $(procs)
	[ $# = 3 ] || { cat "$T/dump"; fail "$e: $# processes, want 3"; }
	grep -q "still running" "$T/err" && fail "$e: summary: $(cat "$T/err")"
	top=$1 child=$2 grand=$3
	[ "$(field "$child" ppid)" = "${top%.*}" ] && [ "$(field "$grand" ppid)" = "${child%.*}" ] ||
		{ grep '^proc' "$T/dump"; fail "$e: the processes' pids and ppids do not chain"; }
	for id in "$child" "$grand"; do
		[ "${id%.*}" -gt 2 ] || fail "$e: process recorded as pid ${id%.*}"
	done
	near "$(fn_ticks "$child" gap_child)" $((3 * HZ / 10)) "$e: gap_child ($(cat "$T/err"))"
	near "$(fn_ticks "$grand" gap_grandchild)" $((3 * HZ / 10)) \
		"$e: gap_grandchild ($(cat "$T/err"))"
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
