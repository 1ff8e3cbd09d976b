#!/bin/sh
# posix_spawn and posix_spawnp run the child's exec inside libc, where the
# exec wrappers never see it.  The library's posix_spawn wrappers look at
# the file in the parent first (lib/spawn.c), so that pcprof run names a
# spawned program the library cannot enter, with its CPU time, as it does
# for an exec (issue 8, "never lie"):
#   - a dynamic program spawned is followed: recorded, with its samples;
#   - a static one, by posix_spawn or posix_spawnp (PATH search), is named;
#   - a spawn that fails counts nothing (a static file without execute
#     permission: EACCES), and the spawn's return value and errno are
#     libc's, as without pcprof;
#   - with file actions (which may change the directory) a relative name
#     is not judged: the comparison of CPU times still tells its time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/unfollowed.sh"

static_hot

# followed: the dynamic child has its own recording, hot_main its top
run_case dynamic 0 "$SPAWNER" spawn "$HOT" main $BURN
grep -q "lost: none" "$T/err" || fail "dynamic: $(cat "$T/err")"
dump "$T/dynamic.data"
child=$(awk -v hot="$HOT" '$1 == "proc" && index($0, "exe=" hot) { print $2 }' "$T/dump")
[ -n "$child" ] || { cat "$T/dump"; fail "dynamic: no recording of the spawned hot"; }
[ "$(field "$child" ticks)" -gt 0 ] || { cat "$T/dump"; fail "dynamic: no samples in hot"; }
expect_hot "$child" hot_main 70

# named: posix_spawn by path, posix_spawnp by name in PATH
static_named spawn spawnp

# a spawn that fails is not counted; its error is the spawn's
run_case failed 126 "$SPAWNER" spawn "$NOEXEC" main $BURN
grep -q "spawner: spawn $NOEXEC: Permission denied" "$T/err" || fail "failed: $(cat "$T/err")"
grep -q "lost: none" "$T/err" || fail "failed: a spawn that failed is counted: $(cat "$T/err")"
# errno after a successful spawn: as libc leaves it (glibc's posix_spawnp
# leaves the failures of its PATH search there, its posix_spawn nothing)
SPAWNER_ERRNO=1 "$SPAWNER" spawn "$HOT" main 0 -- spawnp true 2>"$T/plain" ||
	fail "spawner without pcprof: $(cat "$T/plain")"
run_case errno 0 env SPAWNER_ERRNO=1 "$SPAWNER" spawn "$HOT" main 0 -- spawnp true
grep '^errno' "$T/err" >"$T/profiled"
cmp -s "$T/plain" "$T/profiled" ||
	fail "errno after spawning: $(cat "$T/profiled"), without pcprof: $(cat "$T/plain")"

# file actions and a relative name: not named, the time still told
(cd "$T" && run_case actions 0 "$SPAWNER" spawnfa ./hot-static main $BURN) || exit 1
cpu=$(sed -n 's/.*lost: \([0-9.]*\) s CPU not sampled (of [0-9.]* s the process tree used.*/\1/p' "$T/err")
[ -n "$cpu" ] || fail "actions: summary says nothing of the spawned program: $(cat "$T/err")"
in_bounds actions "$cpu"
no_raw_dirs
exit 0
