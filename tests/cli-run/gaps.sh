# gaps.sh - shared by the t-run-gaps-*.sh tests (sourced after lib.sh):
# tests/targets/gaps under pcprof run on every engine, and what its data
# file says of the CPU time without samples (ppdump's "gap" lines).
GAPS=$PWD/${B:-build}/tests/targets/gaps
[ -x "$GAPS" ] || fail "missing $GAPS (make all)"
HZ=500

# run ENGINE ARGS...: pcprof run of gaps ARGS on ENGINE into $T/ENGINE.data,
# its summary in $T/err and the data file's lines in $T/dump; returns 1
# when the engine cannot run here (said), and fails on any other problem.
run()
{
	e=$1
	shift
	PROFIL_ENGINE=$e "$PCPROF" run --hz $HZ -o "$T/$e.data" -- "$GAPS" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 77 ] && { cat "$T/out"; exit 77; }
	[ $rc = 0 ] || fail "$e: gaps $*: exit $rc: $(cat "$T/out" "$T/err")"
	if ! grep -q "Hz of $HZ ($e[,)]" "$T/err"; then
		echo "# $e cannot run here: $(cat "$T/err")"
		return 1
	fi
	dump "$T/$e.data"
	return 0
}

# fn_ticks ID FN: the ticks of function FN in process ID (0 if none)
fn_ticks()
{
	awk -v id="$1" -v fn="$2" '$1 == "fn" && $2 == id && $3 == fn { n += $5 } END { print n + 0 }' "$T/dump"
}

# gap_ms ID CAUSE: the CPU time (ms) the data file names for CAUSE in
# process ID (0 if none)
gap_ms()
{
	awk -v id="$1" -v c="$2" '$1 == "gap" && $2 == id && $3 == c { n += $4 } END { print n + 0 }' "$T/dump"
}
