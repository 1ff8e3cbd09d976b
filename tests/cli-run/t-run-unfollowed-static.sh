#!/bin/sh
# A statically linked program exec'd in a profiled tree runs without the
# library (no loader, no LD_PRELOAD).  pcprof run must say so and how much
# CPU time it burned (issue 8), never "lost: none":
#   - exec'd by a recorded image: the exec wrapper saw the file had no
#     PT_INTERP, so the summary names it and why, and the data file has its
#     image, with its exit status (not given to the image that exec'd it);
#   - exec'd by a vfork child (dash runs commands so): the child counts it
#     in its parent's recording, and the summary names it too;
#   - started by posix_spawn, whose exec the wrappers cannot see: the
#     tree's CPU time against the recordings' tells the time not sampled.
# A dynamic program exec'd the same way is recorded: "lost: none".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/unfollowed.sh"

ST=$T/hot-static
cc -D_GNU_SOURCE -static -O1 -pthread -o "$ST" tests/targets/hot.c -ldl 2>"$T/cc" ||
	{ echo "SKIP: cannot link static programs: $(grep -m1 error "$T/cc")"; exit 77; }
readelf -l "$ST" | grep -q INTERP && fail "cc -static made a dynamic program"

# exec'd by the shell itself: named, with its status (hot exit: _exit(7))
run_case exec 7 sh -c "exec '$ST' exit $BURN"
expect_named exec hot-static "statically linked"
expect_image exec "$T/exec.data" 7
# the report's header says it too, and rates only the sampled image
"$PCPROF" report -n 1 "$T/exec.data" >"$T/rep" 2>&1 || fail "report exec.data: $(cat "$T/rep")"
grep -q '^unsampled  [0-9.]* s CPU of 1 image no engine sampled (statically linked)' "$T/rep" ||
	fail "report header: no unsampled line: $(sed -n 1,9p "$T/rep")"
! grep -q '^engine .*(none)' "$T/rep" || fail "report header: engine (none): $(sed -n 1,9p "$T/rep")"

# run by the shell as a child and waited for, then "true"
run_case child 0 sh -c "'$ST' main $BURN; true"
expect_named child hot-static "statically linked"

# started by posix_spawn: nothing names it, the CPU time still shows
cat >"$T/spawn.c" <<'END'
#include <spawn.h>
#include <sys/wait.h>
extern char **environ;
int main(int argc, char **argv)
{
	pid_t pid;
	int st;
	(void)argc;
	if (posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ) != 0 ||
	    waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
END
cc -O1 -o "$T/spawn" "$T/spawn.c" 2>"$T/cc" || fail "cannot build spawn: $(cat "$T/cc")"
run_case spawn 0 "$T/spawn" "$ST" main $BURN
cpu=$(sed -n 's/.*lost: \([0-9.]*\) s CPU not sampled (of [0-9.]* s the process tree used.*/\1/p' "$T/err")
[ -n "$cpu" ] || fail "spawn: summary says nothing of the spawned program: $(cat "$T/err")"
in_bounds spawn "$cpu"

# the control: a dynamic program exec'd the same way is followed
run_case dynamic 0 sh -c "exec '$HOT' main $BURN"
grep -q "lost: none" "$T/err" || fail "dynamic: $(cat "$T/err")"
no_raw_dirs
exit 0
