#!/bin/sh
# A statically linked program exec'd in a profiled tree runs without the
# library (no loader, no LD_PRELOAD).  pcprof run must say so and how much
# CPU time it burned (issue 8), never "lost: none":
#   - exec'd by a recorded image: the exec wrapper saw the file had no
#     PT_INTERP, so the summary names it and why, and the data file has its
#     image, with its exit status (not given to the image that exec'd it);
#   - exec'd by a vfork child (dash runs commands so): the child counts it
#     in its parent's recording, and the summary names it too.
# (posix_spawn and a program's own vfork: t-run-unfollowed-spawn*.sh.)
# A dynamic program exec'd the same way is recorded: "lost: none".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/unfollowed.sh"

static_hot

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

# the control: a dynamic program exec'd the same way is followed
run_case dynamic 0 sh -c "exec '$HOT' main $BURN"
grep -q "lost: none" "$T/err" || fail "dynamic: $(cat "$T/err")"
no_raw_dirs
exit 0
