#!/bin/sh
# A program's own vfork: the child shares its parent's memory (and so its
# recording) until it execs, and must not stop the parent's profiling.
# The exec wrappers recognise it by its pid (lib/exec.c):
#   - a vfork child that execs a dynamic program: the program is followed,
#     recorded with its samples, and the parent goes on being sampled;
#   - one that execs a static program (by path, or by name through execvp):
#     counted in the parent's recording, so pcprof run names it with its
#     CPU time (issue 8);
#   - one whose exec fails (_exit 127): nothing counted, nothing crashes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/unfollowed.sh"

static_hot

run_case dynamic 0 "$SPAWNER" vfork "$HOT" main $BURN -- vfork "$HOT" main $BURN
grep -q "lost: none" "$T/err" || fail "dynamic: $(cat "$T/err")"
dump "$T/dynamic.data"
n=0
for p in $(awk -v hot="$HOT" '$1 == "proc" && index($0, "exe=" hot) { print $2 }' "$T/dump"); do
	[ "$(field "$p" ticks)" -gt 0 ] || { cat "$T/dump"; fail "dynamic: no samples in $p"; }
	expect_hot "$p" hot_main 70
	n=$((n + 1))
done
[ "$n" = 2 ] || { cat "$T/dump"; fail "dynamic: $n recordings of hot, want 2"; }

static_named vfork vforkp

# the exec fails: the child's _exit(127) is the status, nothing is named
run_case failed 127 "$SPAWNER" vfork "$NOEXEC" main $BURN
grep -q "lost: none" "$T/err" || fail "failed: an exec that failed is counted: $(cat "$T/err")"
no_raw_dirs
exit 0
