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
