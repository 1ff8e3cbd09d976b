# seccomp.sh - shared by t-run-seccomp*.sh (sourced after lib.sh): run
# tests/targets/sandbox alone and under pcprof run, and check what the
# summary, the data file and pcprof report say of the CPU time it used
# after its filter.
SBX=$PWD/${B:-build}/tests/targets/sandbox
[ -x "$SBX" ] || fail "missing $SBX (make all)"

if ! "$SBX" kill-thread prctl 0 0 >"$T/out" 2>&1; then
	grep -q "installing the filter" "$T/out" &&
		{ echo "SKIP: no seccomp filters here: $(cat "$T/out")"; exit 77; }
	fail "the sandbox alone: $(cat "$T/out")"
fi

# alone ACTION ROUTE AFTER [exec]: exit 0 and the figures line, without
# pcprof (what the program does alone).
alone()
{
	"$SBX" "$1" "$2" 0 "$3" ${4:-} >"$T/alone" 2>&1 && grep -q "^sandbox: before=" "$T/alone" ||
		fail "alone: sandbox $*: exit $?: $(cat "$T/alone")"
}

# sandboxed ENGINE ACTION ROUTE BEFORE AFTER [exec]: under pcprof run at
# 500 Hz (itself run by $OUTER, if set), with a watchdog of 60 s of wall time (a hang, not a slow run:
# the program burns under a second of CPU).  The program's status and
# output must be its own; the summary must name the CPU time it used
# after the filter (its threads and children included, as it measured
# them), within pcprof's margin for any process (20 ms + 1 ms a process
# + 1% of the tree), and the data file and the report the same figure.
# With BEFORE at least 0.1, the samples before the filter are checked
# too (CPU x rate, 5 sd).  Without a filter (ACTION none): "lost: none".
# Returns 1 (having said why) if the engine cannot run here.
sandboxed()
{
	e=$1 action=$2 route=$3 before_s=$4
	what="$e: sandbox $2 $3 $4 $5 ${6:-}"
	# shellcheck disable=SC2086
	timeout -s KILL 60 ${OUTER:-} "$PCPROF" run --hz 500 --engine "$e" -o "$T/s.data" -- "$SBX" \
		"$2" "$3" "$4" "$5" ${6:-} >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc != 137 ] || fail "$what: pcprof hung (killed after 60 s): $(cat "$T/err")"
	if grep -q "the perf engine cannot sample here" "$T/err"; then
		echo "# $what: $(cat "$T/err")"
		return 1
	fi
	[ $rc = 0 ] || fail "$what: exit $rc, alone 0: $(cat "$T/out" "$T/err")"
	set -- $(sed -n 's/^sandbox: before=\([0-9.]*\) after=\([0-9.]*\) children=\([0-9.]*\)$/\1 \2 \3/p' "$T/out")
	[ $# = 3 ] || fail "$what: output: $(cat "$T/out")"
	before=$1
	want=$(awk -v a="$2" -v c="$3" 'BEGIN { print a + c }')
	tree=$(awk -v b="$before" -v w="$want" 'BEGIN { print b + w }')
	if [ "$action" = none ]; then
		grep -q "; lost: none" "$T/err" || fail "$what: summary: $(cat "$T/err")"
		return 0
	fi
	n=$(sed -n 's/.*not sampled after seccomp filter: \([0-9.]*\) s CPU (1 process image: sandbox).*/\1/p' "$T/err")
	[ -n "$n" ] || fail "$what: no seccomp item: $(cat "$T/err")"
	# A filter installed without libc is found before the library's next
	# call, and its CPU time then is the last one the recording stored, up
	# to 8 signals before (which a busy machine spaces out): that route is
	# bounded above by the tree only.
	awk -v n="$n" -v w="$want" -v t="$tree" -v raw="$route" -v what="$what" 'BEGIN {
		d = 0.02 + 0.003 + t / 100 + 0.005
		hi = raw == "raw" ? t + d : w + d
		printf "# %s: not sampled after the filter %.2f s; the program used %.3f (tree %.3f)\n", what, n, w, t
		if (n < w - d || n > hi) {
			printf "FAIL: %s: %.2f s not sampled after the filter, want [%.3f, %.3f]\n", what, n, w - d, hi
			exit 1 }
	}' || fail "$(cat "$T/err")"
	dump "$T/s.data"
	id=$(procs | head -n 1)
	[ "$(procs | wc -l)" = 1 ] || fail "$what: images: $(procs)"
	[ "$(field "$id" stop)" = 1 ] || fail "$what: data file: stop=$(field "$id" stop)"
	ms=$(field "$id" stop_ms)
	awk -v ms="$ms" -v n="$n" 'BEGIN { exit !(ms >= n * 1000 - 6 && ms <= n * 1000 + 6) }' ||
		fail "$what: data file: stop_ms=$ms, summary $n s"
	if [ "$route" != raw ] && awk -v b="$before_s" 'BEGIN { exit !(b >= 0.1) }'; then
		near "$(field "$id" ticks)" "$(awk -v b="$before" 'BEGIN { print b * 500 }')" \
			"$what: samples before the filter"
	fi
	"$PCPROF" report -n 1 "$T/s.data" >"$T/rep" 2>&1 || fail "$what: report: $(cat "$T/rep")"
	grep -q "^stopped    not sampled after seccomp filter: $n s CPU (1 image)" "$T/rep" ||
		fail "$what: report header: $(sed -n 1,9p "$T/rep")"
	return 0
}

# every_engine CASE...: each CASE ("ACTION ROUTE BEFORE AFTER [exec]")
# alone, then under pcprof run with every engine that can run here.
every_engine()
{
	for c in "$@"; do
		# shellcheck disable=SC2086
		alone_case $c
	done
	ran=0
	for e in thread-timer perf process-timer; do
		ok=1
		for c in "$@"; do
			# shellcheck disable=SC2086
			sandboxed "$e" $c || { ok=0; break; }
		done
		ran=$((ran + ok))
	done
	[ $ran -gt 0 ] || fail "no engine could run"
}

# alone_case ACTION ROUTE BEFORE AFTER [exec]
alone_case()
{
	[ "$1" = none ] || alone "$1" "$2" "$4" ${5:-}
}
