#!/bin/sh
# pcprof run --mode: a static program (which preloading cannot reach) is
# sampled from outside by itself; --mode external on a dynamic program gives
# the same split; what cannot be profiled is refused before it runs (125)
# unless --allow-unprofiled; a pure Go program is profiled too.  The target
# is tests/targets/split: a 2:1 CPU split between split_a and split_b.
. "$(dirname "$0")/../cli-attach/lib.sh"
NOPERF=$PWD/${B:-build}/tests/targets/noperf
[ -x "$NOPERF" ] || fail "missing $NOPERF (make all)"
HZ=500
SECS=1.5

"$PCPROF" attach --help >/dev/null || fail "pcprof attach --help"
# perf events on one's own child: SKIP with the reason if refused here.
probe_perf

# run_case NAME CHECK_SPLIT_FN PCPROF_ARGS... -- TARGET ARGS: run it, keep
# stdout/stderr/status, check the split and the rate against the target's
# CPU time (the shell's children's CPU from `times`, pcprof's included: an
# upper bound of the program's).
run_case()
{
	name=$1 a=$2 b=$3
	shift 3
	rm -f "$T/beat" "$T/p.data"
	children_cpu >"$T/c0"
	"$PCPROF" run -o "$T/p.data" --hz $HZ "$@" >"$T/out" 2>"$T/err"
	rc=$?
	children_cpu >"$T/c1"
	cat "$T/err"
	[ $rc = 3 ] || fail "$name: exit status $rc, want the program's 3"
	grep -q '^beats=[0-9]* maxgap_ms=' "$T/out" || fail "$name: output changed: $(cat "$T/out")"
	dump "$T/p.data"
	id=$(procs)
	[ "$(echo "$id" | wc -w)" = 1 ] || { cat "$T/dump"; fail "$name: want one process, got '$id'"; }
	[ "$(field "$id" engine)" = external ] || fail "$name: engine $(field "$id" engine)"
	na=$(awk -v id="$id" -v f="$a" '$1 == "fn" && $2 == id && $3 == f { print $5 }' "$T/dump")
	nb=$(awk -v id="$id" -v f="$b" '$1 == "fn" && $2 == id && $3 == f { print $5 }' "$T/dump")
	awk -v a="${na:-0}" -v b="${nb:-0}" -v fa="$a" -v name="$name" 'BEGIN {
		n = a + b; want = n * 2 / 3; sd = sqrt(n * 2 / 9)
		lo = want - 5 * sd; hi = want + 5 * sd
		printf "%s: %s %d of %d samples (want %.1f, bounds %.1f..%.1f)\n", name, fa, a, n, want, lo, hi
		# split runs for wall time: on a loaded machine (a TSan build at
		# load 17: 0.10 s of CPU in 1.5 s) too few samples to judge by
		if (n < 50) { printf "%s: split not judged from %d samples\n", name, n; exit 0 }
		exit !(a >= lo && a <= hi) }' || { cat "$T/dump"; fail "$name: no 2:1 split"; }
	ticks=$(field "$id" ticks)
	awk -v n="$ticks" -v c="$(echo "$(cat "$T/c1") - $(cat "$T/c0")" | bc)" -v hz=$HZ -v name="$name" \
		-v rec="$(field "$id" cpu_ms)" 'BEGIN {
		want = 0.75 * c * hz
		printf "%s: %d samples for %.2f s CPU (%.2f s recorded) at %d Hz (want >= %.0f)\n",
			name, n, c, rec / 1000, hz, want
		exit !(n >= want && n > 0 && rec > 0) }' || fail "$name: too few samples"
}

# 1. static, plain pcprof run: auto picks external, and says why
cc -static -O1 -g -fno-omit-frame-pointer -pthread -o "$T/split-static" \
	tests/targets/split.c 2>"$T/cc" || { echo "SKIP: cannot link static programs: $(head -n1 "$T/cc")"; exit 77; }
run_case static split_a split_b -- "$T/split-static" $SECS "$T/beat" 3
grep -q '(external: statically linked' "$T/err" || fail "summary does not say external and why"

# 2. --mode external on the dynamic build: the same split
run_case dynamic split_a split_b --mode external -- "$SPLIT" $SECS "$T/beat" 3
grep -q '(external: --mode external)' "$T/err" || fail "summary does not say --mode external"

# 3. what cannot be profiled is refused before it runs
rm -f "$T/p.data" "$T/beat"
"$PCPROF" run -o "$T/p.data" --mode preload "$T/split-static" 0.2 "$T/beat" 3 2>"$T/err"
rc=$?
[ $rc = 125 ] || fail "--mode preload on a static program: exit $rc, want 125"
grep -q 'LD_PRELOAD does not reach' "$T/err" || fail "no reason: $(cat "$T/err")"
[ ! -e "$T/beat" ] || fail "--mode preload refused, yet the program ran"
[ ! -e "$T/p.data" ] || fail "a refused run wrote a data file"
"$PCPROF" run -o "$T/p.data" --mode preload --allow-unprofiled "$T/split-static" 0.2 "$T/beat" 3 >/dev/null 2>"$T/err"
rc=$?
[ $rc = 3 ] || fail "--allow-unprofiled: exit $rc, want the program's 3"
if "$NOPERF" true; then
	rm -f "$T/p.data" "$T/beat"
	"$NOPERF" "$PCPROF" run -o "$T/p.data" "$T/split-static" 0.2 "$T/beat" 3 2>"$T/err"
	rc=$?
	[ $rc = 125 ] || fail "static program, perf refused: exit $rc, want 125"
	grep -q 'cannot profile' "$T/err" || fail "no reason: $(cat "$T/err")"
	[ ! -e "$T/beat" ] || fail "refused, yet the program ran"
	[ ! -e "$T/p.data" ] || fail "a refused run wrote a data file"
	"$NOPERF" "$PCPROF" run -o "$T/p.data" --allow-unprofiled "$T/split-static" 0.2 "$T/beat" 3 >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 3 ] || fail "--allow-unprofiled, perf refused: exit $rc, want 3"
	grep -q 'unprofiled' "$T/err" || fail "running unprofiled without saying so"
	"$NOPERF" "$PCPROF" run -o "$T/p.data" --engine perf "$SPLIT" 0.2 "$T/beat" 3 2>"$T/err"
	rc=$?
	[ $rc = 125 ] || fail "--engine perf, perf refused: exit $rc, want 125"
	grep -q 'perf engine cannot sample' "$T/err" || fail "no reason: $(cat "$T/err")"
else
	echo "# noperf cannot install a seccomp filter here: the perf-refused cases are not run"
fi

# 4. a pure Go program
command -v go >/dev/null || { echo "SKIP: go is not installed (the C cases passed)"; exit 77; }
go_source <<'END'
var sink float64

// The same loop in each, twice as long in burnA: each holds its own samples.
// Each round has a random length (2:1 all the same), so that the rounds
// cannot lock to the sampling period on a quiet machine.
var n = 20000
var r uint64 = 12345

//go:noinline
func burnA() {
	x := sink
	for i := 0; i < 2*n; i++ {
		x = x*1.0000001 + 1e-9
	}
	sink = x
}

//go:noinline
func burnB() {
	x := sink
	for i := 0; i < n; i++ {
		x = x*1.0000001 + 1e-9
	}
	sink = x
}

func main() {
	secs, _ := strconv.ParseFloat(os.Args[1], 64)
	beats := 0
	for cpu() < secs {
		r = r*6364136223846793005 + 1442695040888963407
		n = 10000 + int((r>>33)%20000)
		burnA()
		burnB()
		beats++
	}
	fmt.Printf("beats=%d maxgap_ms=0\n", beats)
	os.Exit(3)
}
END
go_build -o "$T/split-go" .
run_case go main.burnA main.burnB -- "$T/split-go" 0.6
grep -q '(external: a Go binary' "$T/err" || fail "summary does not say Go"
exit 0
