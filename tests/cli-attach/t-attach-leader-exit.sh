#!/bin/sh
# A process whose main thread has ended (pthread_exit) while another runs
# on (issue 19): /proc/PID/stat then says 'Z', the main thread's state, and
# its maps, exe and cmdline there are empty.  pcprof attach samples the
# live thread (tests/targets/split with leader-exit: the 2:1 split runs in
# a thread of its own), names the program, and leaves the target as it was;
# pcprof run --mode external samples such a program to its end.  Before,
# attach refused it ("no process N (it has ended)") and run's sampling
# stopped when the main thread ended, at the start.
. "$(dirname "$0")/lib.sh"
probe_perf

cat >"$T/leader-exit" <<EOF
#!/bin/sh
exec "$SPLIT" "\$1" "\$2" "\$3" 0 leader-exit
EOF
chmod +x "$T/leader-exit"
attach_case "$T/leader-exit" 500 0.6
[ "$(field "$id" exe)" = "$SPLIT" ] || fail "the program: $(grep '^proc' "$T/dump")"
grep -q "^profile [0-9]* command=$SPLIT 600 $T/beat 3 0 leader-exit$" "$T/dump" ||
	fail "the command: $(grep '^profile' "$T/dump")"

# pcprof run --mode external, to the program's end
children_cpu >"$T/c0"
"$PCPROF" run -o "$T/r.data" --hz 500 --mode external -- "$SPLIT" 1.5 "$T/beat" 3 0 leader-exit \
	>"$T/out" 2>"$T/err"
rc=$?
children_cpu >"$T/c1"
[ $rc = 3 ] || fail "run --mode external: exit $rc, want the program's 3: $(cat "$T/err")"
dump "$T/r.data"
id=$(procs)
ticks=$(field "$id" ticks)
awk -v n="$ticks" -v c="$(echo "$(cat "$T/c1") - $(cat "$T/c0")" | bc)" 'BEGIN {
	want = 0.75 * c * 500
	printf "run --mode external: %d samples for %.2f s CPU at 500 Hz (want >= %.0f)\n", n, c, want
	exit !(n >= want && n > 0) }' || fail "run --mode external: too few samples"
check_split "$id"
exit 0
