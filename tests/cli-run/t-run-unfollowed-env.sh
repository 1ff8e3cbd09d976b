#!/bin/sh
# A program exec'd with pcprof's variables taken out of its environment
# (env -i, env -u) runs without the library, or unrecorded.  pcprof run
# names it and its CPU time in the summary (issue 8), and leaves the
# environment the program asked for: no LD_PRELOAD put back into env -i.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/unfollowed.sh"

run_case empty 0 env -i "$HOT" main $BURN
expect_named empty hot "run with LD_PRELOAD removed from its environment"
expect_image empty "$T/empty.data" 0

run_case nodir 0 env -u PCPROF_DIR "$HOT" main $BURN
expect_named nodir hot "run with PCPROF_DIR removed from its environment"

# the environment stays what the program made it
"$PCPROF" run -q -o "$T/e.data" -- env -i FOO=1 env >"$T/out" 2>"$T/err" ||
	fail "env -i env: $(cat "$T/err")"
[ "$(cat "$T/out")" = "FOO=1" ] || fail "env -i FOO=1 env printed: $(cat "$T/out")"
no_raw_dirs
exit 0
