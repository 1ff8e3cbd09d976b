#!/bin/sh
# Secure execution (a set-user-ID file) and a changed user (setpriv) keep
# the library out of an exec'd program: the first ignores LD_PRELOAD and
# PCPROF_*, the second cannot write pcprof's private directory.  pcprof run
# names the program, why, and its CPU time (issue 8).  Needs root (CI runs
# as root) to make a set-user-ID file of another user and to change user.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/unfollowed.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to make a set-user-ID program of another user"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
findmnt -n -o OPTIONS -T "$T" 2>/dev/null | grep -q nosuid &&
	{ echo "SKIP: $T is mounted nosuid"; exit 77; }

SU=$T/hot-suid
cp "$HOT" "$SU" && chown nobody "$SU" && chmod 4755 "$SU" || fail "cannot make $SU"
run_case setuid 0 sh -c "exec '$SU' main $BURN"
expect_named setuid hot-suid "set-user-ID: secure execution ignores LD_PRELOAD"
expect_image setuid "$T/setuid.data" 0

# run directly, auto mode samples it from outside; the kernel ends the perf
# events at the exec of a set-ID program, even for root: the time is named
if perf_ok=$("$PCPROF" run -q --mode external -o "$T/ok.data" -- "$HOT" main 0 2>&1); then
	run_case direct 0 "$SU" main $BURN
	cpu=$(sed -n 's/.*lost: \([0-9.]*\) s CPU not sampled (of [0-9.]* s the process tree used: the kernel ends perf events at the exec of a set-ID program.*/\1/p' "$T/err")
	[ -n "$cpu" ] || fail "direct: summary does not name the time the events missed: $(cat "$T/err")"
	in_bounds direct "$cpu"
else
	echo "# direct set-user-ID case skipped: no external sampling here: $perf_ok"
fi

if ! command -v setpriv >/dev/null; then
	echo "# setpriv case skipped: no setpriv"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups "$HOT" main 0 2>"$T/sp"; then
	echo "# setpriv case skipped: nobody cannot run $HOT: $(head -n1 "$T/sp")"
else
	run_case setpriv 0 setpriv --reuid=65534 --regid=65534 --clear-groups "$HOT" main $BURN
	expect_named setpriv hot "its user cannot write the recording directory"
	expect_image setpriv "$T/setpriv.data" 0
fi
no_raw_dirs
exit 0
