#!/bin/sh
# A statically linked program exec'd in a profiled tree runs without the
# library (no loader, no LD_PRELOAD).  pcprof run must say so and how much
# CPU time it burned (issue 8), never "lost: none":
#   - exec'd by a recorded image: the exec wrapper saw the file had no
#     PT_INTERP, so the summary names it and why, and the data file has its
#     image, with its exit status (not given to the image that exec'd it);
#   - started from a vfork child (dash runs commands so) or by posix_spawn,
#     which the wrappers cannot see: the tree's CPU time against the
#     recordings' tells the time not sampled.
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

# run by the shell as a child and waited for, then "true"
run_case child 0 sh -c "'$ST' main $BURN; true"
line=$(cat "$T/err")
case $line in
*"lost: "*" s CPU of 1 process image the library could not enter (hot-static: statically linked)"*)
	cpu=$(printf '%s\n' "$line" | sed -n 's/.*lost: \([0-9.]*\) s CPU of.*/\1/p') ;;
*"lost: "*" s CPU not sampled (of "*)
	cpu=$(printf '%s\n' "$line" | sed -n 's/.*lost: \([0-9.]*\) s CPU not sampled.*/\1/p') ;;
*) fail "child: summary says nothing of the static child: $line" ;;
esac
in_bounds child "$cpu"

# the control: a dynamic program exec'd the same way is followed
run_case dynamic 0 sh -c "exec '$HOT' main $BURN"
grep -q "lost: none" "$T/err" || fail "dynamic: $(cat "$T/err")"
no_raw_dirs
exit 0
