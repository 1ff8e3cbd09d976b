# lib.sh - shared by the tests of tests/cli-attach (sourced, not run), on
# top of tests/cli-run/lib.sh ($T, $PCPROF, dump, field, fail, wait_file).
# The target is tests/targets/split: a heartbeat and a 2:1 CPU split
# between split_a and split_b.
. "$(dirname "$0")/../cli-run/lib.sh"
SPLIT=$PWD/${B:-build}/tests/targets/split
[ -x "$SPLIT" ] || fail "missing $SPLIT (make all)"

# skip_if_denied ERRFILE: SKIP (exit 77) when pcprof attach failed because
# perf events on the target are not allowed here.
skip_if_denied()
{
	if grep -q -e 'perf_event_paranoid' -e 'no software cpu-clock' "$1"; then
		echo "SKIP: perf_event_open is denied: $(head -n1 "$1")"
		exit 77
	fi
}

# probe_perf: SKIP (exit 77) with the reason when perf events on one's own
# child are refused here; fail on any other attach failure.
probe_perf()
{
	sleep 5 &
	"$PCPROF" attach -o "$T/probe.data" --duration 0.1 $! 2>"$T/err"
	rc=$?
	kill $! 2>/dev/null
	wait $! 2>/dev/null
	[ $rc = 0 ] || { skip_if_denied "$T/err"; fail "attach probe: $(cat "$T/err")"; }
}

# children_cpu: user + system seconds of the shell's reaped children (times
# runs in this shell, not in a command substitution's subshell)
children_cpu()
{
	times >"$T/times"
	awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } print t }' "$T/times"
}

# cpu_ticks PID: utime + stime of the whole process, in clock ticks
cpu_ticks()
{
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# snapshot PID NAME: what the target holds that we must not change
snapshot()
{
	for f in /proc/"$1"/fd/*; do
		printf '%s -> %s\n' "${f##*/}" "$(readlink "$f")"
	done >"$T/$2.fd"
	cat "/proc/$1/maps" >"$T/$2.maps"
	grep -E '^Sig(Cgt|Ign|Blk)' "/proc/$1/status" >"$T/$2.sig"
}

# check_split ID [A B]: A (split_a) holds 2/3 of the samples in A + B
# (split_b), within 5 standard deviations of the binomial count
check_split()
{
	fa=${2:-split_a} fb=${3:-split_b}
	na=$(awk -v id="$1" -v f="$fa" '$1 == "fn" && $2 == id && $3 == f { print $5 }' "$T/dump")
	nb=$(awk -v id="$1" -v f="$fb" '$1 == "fn" && $2 == id && $3 == f { print $5 }' "$T/dump")
	na=${na:-0} nb=${nb:-0}
	awk -v a="$na" -v b="$nb" -v fa="$fa" 'BEGIN {
		n = a + b; want = n * 2 / 3; sd = sqrt(n * 2 / 9)
		lo = want - 5 * sd; hi = want + 5 * sd
		printf "%s %d of %d samples (want %.1f, bounds %.1f..%.1f)\n", fa, a, n, want, lo, hi
		exit !(n >= 50 && a >= lo && a <= hi) }' ||
		{ cat "$T/dump"; fail "the 2:1 split is not in the profile"; }
}

# attach_case TARGET HZ SECONDS: run TARGET (split or a build of it), attach
# for SECONDS at HZ, and check everything the attach must keep and give.
attach_case()
{
	target=$1 hz=$2 secs=$3
	rm -f "$T/beat"
	"$target" $((${secs%.*} + 3)) "$T/beat" 3 >"$T/out" &
	pid=$!
	wait_file "$T/beat"
	snapshot "$pid" before
	c0=$(cpu_ticks "$pid")
	"$PCPROF" attach -o "$T/p.data" --duration "$secs" --hz "$hz" "$pid" 2>"$T/err"
	rc=$?
	c1=$(cpu_ticks "$pid")
	snapshot "$pid" after
	b1=$(cat "$T/beat")
	if [ $rc != 0 ]; then
		kill "$pid"
		wait "$pid"
		skip_if_denied "$T/err"
		fail "pcprof attach exited $rc: $(cat "$T/err")"
	fi
	cat "$T/err"
	head -n1 "$T/err" | grep -q "^pcprof attach: sampling process $pid, [0-9]* threads\{0,1\}, attached in" ||
		fail "no line saying sampling is live first"
	for k in fd maps sig; do
		cmp -s "$T/before.$k" "$T/after.$k" ||
			{ diff "$T/before.$k" "$T/after.$k"; fail "the target's $k changed"; }
	done
	# The heartbeat goes on after the detach.
	sleep 0.5
	b2=$(cat "$T/beat")
	[ "$b2" -gt "$b1" ] || fail "no heartbeat after detach ($b1 then $b2)"
	wait "$pid"
	st=$?
	[ $st = 3 ] || fail "target exited $st, want 3 (its own status)"
	cat "$T/out"
	# A stall is the wall time between two of its cycles less the time
	# it waited for a CPU (split.c): a loaded machine does not count, a
	# stop by the attach does.
	gap=$(sed -n 's/.*maxstall_ms=\([0-9]*\).*/\1/p' "$T/out")
	[ -n "$gap" ] && [ "$gap" -le 500 ] || fail "heartbeat stalled: largest stall ${gap:-?} ms (max 500): $(cat "$T/out")"

	dump "$T/p.data"
	id=$(procs)
	[ "$id" = "$pid.0" ] || { cat "$T/dump"; fail "want one process $pid, got '$id'"; }
	[ "$(field "$id" engine)" = external ] || fail "engine $(field "$id" engine)"
	check_split "$id"
	ticks=$(field "$id" ticks)
	tck=$(getconf CLK_TCK)
	awk -v n="$ticks" -v c="$((c1 - c0))" -v t="$tck" -v hz="$hz" 'BEGIN {
		want = 0.75 * c / t * hz
		printf "%d samples for %.2f s CPU at %d Hz (want >= %.0f)\n", n, c / t, hz, want
		exit !(n >= want && n > 0) }' || fail "too few samples"
}

# go_source: a Go program in $T/gosrc, its package main from standard
# input after the lines every target here shares: the imports fmt, os,
# strconv and syscall, and cpu(), the process's CPU seconds (the programs
# burn CPU seconds, not wall-clock ones, so that a loaded machine cannot
# starve a check of samples).  SKIP (exit 77) when go is not installed.
go_source()
{
	GO=$(command -v go) || { echo "SKIP: go is not installed"; exit 77; }
	mkdir -p "$T/gosrc" "$T/gocache"
	printf 'module target\n\ngo 1.13\n' >"$T/gosrc/go.mod"
	{
		printf 'package main\n\nimport (\n\t"fmt"\n\t"os"\n\t"strconv"\n\t"syscall"\n)\n\n'
		printf 'var _ = fmt.Sprint\nvar _ = strconv.Itoa\n\n'
		printf 'func cpu() float64 {\n\tvar ru syscall.Rusage\n'
		printf '\tsyscall.Getrusage(syscall.RUSAGE_SELF, &ru)\n'
		printf '\treturn float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6\n}\n\n'
		cat
	} >"$T/gosrc/main.go"
}

# go_build ARGS...: go build ARGS in $T/gosrc, offline, pure Go, the
# compiler's output in $T/gobuild; SKIP (exit 77) when the build fails.
go_build()
{
	(cd "$T/gosrc" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOCACHE="$T/gocache" GOPATH="$T/gopath" \
		GOPROXY=off GOTOOLCHAIN=local "$GO" build "$@" ) >"$T/gobuild" 2>&1 ||
		{ echo "SKIP: go build failed: $(head -n3 "$T/gobuild")"; exit 77; }
	chmod -R u+w "$T/gopath" 2>/dev/null
	return 0
}
