#!/bin/sh
# Forked children are recorded as processes of their own (--follow, the
# default), and not with --no-follow.
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -q -o "$T/p.data" -- "$HOT" fork 0.3 || fail "pcprof run exited $?"
dump "$T/p.data"
[ "$(procs | wc -l)" = 2 ] || { cat "$T/dump"; fail "want two processes"; }
parent=$(procs | head -n1)
child=$(procs | tail -n1)
[ "$(top "$parent")" = hot_parent ] || { cat "$T/dump"; fail "parent's top is $(top "$parent")"; }
[ "$(top "$child")" = hot_child ] || { cat "$T/dump"; fail "child's top is $(top "$child")"; }
expect_hot "$parent" hot_parent 70
expect_hot "$child" hot_child 70
[ "$(field "$child" ppid)" = "${parent%.*}" ] || fail "child's ppid is not the parent's pid"
[ "$(field "$child" end)" = exit ] || fail "child's end: $(field "$child" end)"
# the child inherits the module table: the executable is there
grep -q "^module $child [0-9]* $HOT " "$T/dump" || fail "child has no executable module"

"$PCPROF" run -q --no-follow -o "$T/n.data" -- "$HOT" fork 0.1 || fail "--no-follow exited $?"
dump "$T/n.data"
[ "$(procs | wc -l)" = 1 ] || { cat "$T/dump"; fail "--no-follow: want one process"; }
[ "$(top "$(procs)")" = hot_parent ] || fail "--no-follow recorded the wrong process"
no_raw_dirs
exit 0
