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

# wait_live PCPROF_PID ERRFILE: wait until pcprof attach, started in the
# background with its stderr in ERRFILE, says sampling is live (its first
# line); if it exits first, skip when perf events are denied, else fail.
# Waits up to 60 s: a loaded machine or a sanitizer build starts slowly.
# ERRFILE must not exist before pcprof starts: see attach_live.
wait_live()
{
	i=0
	until grep -q '^pcprof attach: sampling process' "$2" 2>/dev/null; do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1"
			rc=$?
			skip_if_denied "$2"
			# the target as it stands, for a failure seen once (ASan,
			# t-attach-end: "it has ended" of a program still running)
			[ -z "${pid:-}" ] || echo "target $pid: $(cat "/proc/$pid/stat" 2>&1)" >&2
			fail "pcprof attach exited $rc before sampling: $(cat "$2")"
		fi
		i=$((i + 1))
		[ $i -le 1200 ] || { kill "$1"; fail "pcprof attach not live after 60 s: $(cat "$2")"; }
		sleep 0.05
	done
}

# attach_live COMMAND...: run COMMAND (pcprof attach, maybe under
# timeout) in the background with its stderr in $T/err, its pid in pp,
# and wait until it says sampling is live (wait_live).  $T/err goes first:
# the background job truncates it only once it runs, and until then a
# previous attach's line there said "live" at once (t-attach-end under
# ASan, 1 run in 12: the program was told to end before pcprof had opened
# anything).
attach_live()
{
	rm -f "$T/err"
	"$@" 2>"$T/err" &
	pp=$!
	wait_live $pp "$T/err"
}

# wait_cpu PID TICKS: wait until process PID has used TICKS clock ticks of
# CPU time (cpu_ticks), for a CPU time to have passed rather than a wall
# time; fails if it ended first or after 600 s.
wait_cpu()
{
	i=0
	while [ "$(cpu_ticks "$1" 2>/dev/null || echo gone)" -lt "$2" ] 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 12000 ] || fail "process $1 did not reach $2 ticks of CPU"
		sleep 0.05
	done
	kill -0 "$1" 2>/dev/null || fail "process $1 ended before $2 ticks of CPU"
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
# at HZ until it has used SECONDS of CPU time since sampling went live, end
# the attach with SIGINT, and check everything the attach must keep and
# give.  The window is CPU time, not wall time: on a loaded machine (load
# 16) a 1.5 s wall window gave the target 0.06 s of CPU, 51 samples, and
# pcprof's own start and end, outside the window, took a quarter of the
# target's CPU time around the attach.
attach_case()
{
	target=$1 hz=$2 secs=$3
	tck=$(getconf CLK_TCK)
	rm -f "$T/beat"
	# Ended by SIGUSR1 below: it must outlive the attach however slowly a
	# loaded machine starts pcprof (600 s is only a bound).
	"$target" 600 "$T/beat" 3 >"$T/out" &
	pid=$!
	trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
	wait_file "$T/beat"
	snapshot "$pid" before
	c0=$(cpu_ticks "$pid")
	attach_live "$PCPROF" attach -o "$T/p.data" --hz "$hz" "$pid"
	l0=$(cpu_ticks "$pid")
	wait_cpu "$pid" "$(awk -v l="$l0" -v s="$secs" -v t="$tck" 'BEGIN { printf "%d", l + s * t + 0.5 }')"
	l1=$(cpu_ticks "$pid")
	kill -INT $pp
	wait $pp
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
	# The heartbeat goes on after the detach: wait for the next beat (the
	# target beats every 20 ms of wall time while it runs; a loaded
	# machine may not run it for a while), up to 60 s.
	i=0
	while b2=$(cat "$T/beat") && [ "$b2" -le "$b1" ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || fail "no heartbeat after detach ($b1 then $b2 60 s later)"
		sleep 0.05
	done
	kill -USR1 "$pid"
	wait "$pid"
	st=$?
	trap 'rm -rf "$T"' EXIT
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
	# The sampler's CPU time of the window (its events' count) covers the
	# CPU time between the live line and SIGINT and lies within the whole
	# attach's (/proc, in whole clock ticks: one each end), and the samples
	# follow it (near: 5 sd).  Above, the sampler allows what /proc cannot
	# show yet (cap_cpu in cli/sampler.c): 10 ms on each CPU.  Without
	# that cap the counts held the time a hypervisor stole, up to 60 ms
	# beyond /proc here beside a test run, 0.5 s in CI.
	ticks=$(field "$id" ticks)
	cpu=$(field "$id" cpu_ms)
	awk -v c="$cpu" -v lo="$((l1 - l0 - 2))" -v hi="$((c1 - c0 + 2))" -v t="$tck" \
		-v n="$(getconf _NPROCESSORS_ONLN)" 'BEGIN {
		lo = lo * 1000 / t; hi = hi * 1000 / t + 10 * n
		printf "window %d ms of CPU, want %.0f..%.0f\n", c, lo, hi
		exit !(c >= lo && c <= hi) }' || fail "the window's CPU time is not the target's"
	near "$ticks" "$(awk -v c="$cpu" -v hz="$hz" 'BEGIN { print c / 1000 * hz }')" \
		"samples for $cpu ms of CPU at $hz Hz"
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
