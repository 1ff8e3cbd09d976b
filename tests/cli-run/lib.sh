# lib.sh - shared by the shell tests of tests/cli-run (sourced, not run).
# Each test gets a private directory $T (removed at exit), which is also
# TMPDIR, so the raw-recording directory pcprof run makes goes there and a
# test can see it was removed.  Data files are read with ppdump, which uses
# pcprof's own reader and nm (see ppdump.c for its lines).
set -u
cd "$(dirname "$0")/../.." || exit 1
PCPROF=$PWD/${B:-build}/pcprof
HOT=$PWD/${B:-build}/tests/targets/hot
DUMP=$PWD/${B:-build}/tests/cli-run/ppdump
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TMPDIR="$T"
for f in "$PCPROF" "$HOT" "$DUMP"; do
	[ -x "$f" ] || { echo "missing $f (make all)"; exit 1; }
done

fail()
{
	echo "FAIL: $*"
	exit 1
}

# dump FILE: ppdump's lines into $T/dump (and fail on a read error)
dump()
{
	"$DUMP" "$1" >"$T/dump" || fail "ppdump $1: $(cat "$T/dump")"
}

# field ID NAME: a field of the "proc ID" line of the last dump
field()
{
	awk -v id="$1" -v k="$2" '$1 == "proc" && $2 == id {
		for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$T/dump"
}

# procs: the ids (PID.SEQ) of the last dump, in file order
procs()
{
	awk '$1 == "proc" { print $2 }' "$T/dump"
}

# top ID: the function with the most ticks in process ID
top()
{
	awk -v id="$1" '$1 == "fn" && $2 == id { print $3; exit }' "$T/dump"
}

# share ID FN: percent (integer) of process ID's function ticks in FN
share()
{
	awk -v id="$1" -v fn="$2" '$1 == "fn" && $2 == id { all += $5; if ($3 == fn) in_fn += $5 }
		END { print all ? int(100 * in_fn / all) : 0 }' "$T/dump"
}

# expect_hot ID FN MIN: FN holds at least MIN percent of process ID's ticks
expect_hot()
{
	s=$(share "$1" "$2")
	[ "$s" -ge "$3" ] || { cat "$T/dump"; fail "$2 has $s% of process $1, want >= $3%"; }
}

# no_raw_dirs: pcprof run removed its raw directory
no_raw_dirs()
{
	for d in "$T"/pcprof.*; do
		[ -d "$d" ] && fail "raw directory left behind: $d"
	done
	return 0
}

# wait_file FILE: wait (up to 60 s: the program burns CPU first, which a
# loaded machine or a sanitizer build makes slow) until FILE exists and is
# not empty
wait_file()
{
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || fail "$1 never appeared"
		sleep 0.05
	done
}

# near VALUE EXPECT WHAT: VALUE, a count of ticks whose expectation is
# EXPECT (CPU time x rate), is within 5 standard deviations (sqrt(EXPECT))
# plus 2 ticks, the rule of T_COUNT in tests/test.h; EXPECT must be at
# least 50 for the check to mean something.
# near_placed V TOTAL SIGNALS MSG: V of TOTAL ticks landed in a function
# that had half the CPU time, the ticks placed by SIGNALS signals (each
# signal puts its 1 + overrun ticks where it landed).  Where the kernel
# signals late and seldom (thread-timer beside other work, "Known
# limits" in docs/reliability.md) the placement is a sample of the
# signals, not of the ticks: the share's 5 standard deviations are those
# of SIGNALS draws, and of TOTAL where there are as many signals.
near_placed()
{
	awk -v v="$1" -v t="$2" -v n="$3" 'BEGIN { if (n > t) n = t
		if (n < 4) { printf "%d signals for %d ticks: too few to judge\n", n, t; exit 1 }
		e = t / 2; d = t * 5 * sqrt(0.25 / n) + 2
		if (v < e - d || v > e + d) { printf "%g of %g ticks (%d signals), expected %g within %g: [%g, %g]\n", v, t, n, e, d, e - d, e + d; exit 1 } }' >"$T/near" ||
		fail "$4: $(cat "$T/near")"
}

near()
{
	awk -v v="$1" -v e="$2" 'BEGIN { d = 5 * sqrt(e) + 2
		if (e < 50) { printf "expected count %g is below 50: burn longer\n", e; exit 1 }
		if (v < e - d || v > e + d) { printf "%g, expected %g within %g: [%g, %g]\n", v, e, d, e - d, e + d; exit 1 } }' >"$T/near" ||
		fail "$3: $(cat "$T/near")"
}
