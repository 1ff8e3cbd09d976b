#!/bin/sh
# pcprof attach needs two descriptors per thread and CPU (cli/sampler.c,
# more_files): with a soft RLIMIT_NOFILE of 200 and a target of 301
# threads (1204 descriptors or more on 2 CPUs), it raises its own soft
# limit to the hard one and samples every thread; before, it failed with "Too many open
# files".  When the hard limit is too low too, it fails saying so and how
# many threads it had.  The target's own limits are not touched, and a
# program pcprof run --mode external starts keeps the soft limit it was
# given (the events are opened after it has started).
. "$(dirname "$0")/lib.sh"
probe_perf

rm -f "$T/beat"
"$SPLIT" 600 "$T/beat" 3 300 >"$T/out" &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
wait_file "$T/beat"
[ "$(ls "/proc/$pid/task" | wc -l)" = 301 ] || fail "the target has $(ls "/proc/$pid/task" | wc -l) threads"
cp "/proc/$pid/limits" "$T/limits.before"
hard=$(ulimit -Hn)
need=$((2 * 301 * $(getconf _NPROCESSORS_ONLN) + 64))
[ "$hard" = unlimited ] || [ "$hard" -ge "$need" ] || { echo "SKIP: hard limit of open files $hard: too low for 301 threads (needs $need)"; exit 77; }
(
	ulimit -Sn 200 || fail "ulimit -Sn 200"
	"$PCPROF" attach -d 0.3 -o "$T/n.data" "$pid"
) 2>"$T/err" || fail "attach with a soft limit of 200: $(cat "$T/err")"
grep -q "^pcprof attach: sampling process $pid, 301 threads," "$T/err" || fail "$(cat "$T/err")"
diff "$T/limits.before" "/proc/$pid/limits" >"$T/ldiff" || fail "the target's limits changed: $(cat "$T/ldiff")"
(
	ulimit -n 200 || fail "ulimit -n 200"
	"$PCPROF" attach -d 0.3 -o "$T/n.data" "$pid"
) 2>"$T/err" && fail "attach with a hard limit of 200 worked"
grep -q "Too many open files: two descriptors per thread and CPU are needed, [0-9]* threads so far on [0-9]* CPUs, and the limit of open files is 200 (pcprof raises its soft limit to the hard one; raise that: ulimit -Hn)" "$T/err" ||
	fail "hard limit 200: $(cat "$T/err")"
kill -USR1 "$pid"
wait "$pid"
trap 'rm -rf "$T"' EXIT

got=$(ulimit -Sn 200 && "$PCPROF" run -q --mode external -o "$T/r.data" -- sh -c 'ulimit -Sn')
[ "$got" = 200 ] || fail "run --mode external: the program's soft limit is $got, want 200"
exit 0
