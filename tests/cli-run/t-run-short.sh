#!/bin/sh
# Short processes are counted by their CPU time (issue 8, item 10): a shell
# loop runs 200 processes of 0.5 ms of their own CPU time each, at 2 kHz,
# so that every process, from the exec that starts it to its exit (about
# 2 ms), lasts a few periods.  Their ticks come mostly from before the library's
# first signal (exec, dynamic loader, constructors, charged to the
# program's entry point) and from the rounding at their exit: owed ticks,
# which the summary shows.  On every engine that can run here, the total
# must be the whole tree's CPU time x rate (measured by `hot tree` with
# getrusage) within 5 standard deviations of a count of that size and
# within the issue's 0.8-1.2, with "lost: none".
. "$(dirname "$0")/lib.sh"

ran=0
for e in thread-timer perf process-timer; do
	PROFIL_HZ=2000 PROFIL_ENGINE=$e "$PCPROF" run -o "$T/$e.data" -- \
		"$HOT" tree 0 "$T/$e.cpu" sh -c \
		'i=0; while [ $i -lt 200 ]; do "$0" main 0.0005; i=$((i + 1)); done' "$HOT" \
		2>"$T/err" || fail "$e: pcprof run exited $?: $(cat "$T/err")"
	# The summary line: "pcprof run: N samples (M owed), ... (ENGINE...".
	if ! grep -q "Hz of 2000 ($e[,)]" "$T/err"; then
		echo "# $e cannot run here: $(cat "$T/err")"
		continue
	fi
	ran=$((ran + 1))
	ticks=$(sed -n 's/^pcprof run: \([0-9]*\) samples.*/\1/p' "$T/err")
	read -r ns user <"$T/$e.cpu"
	grep -q "samples (.* owed), .*; lost: none" "$T/err" || fail "$e: summary: $(cat "$T/err")"
	# Under a sanitizer every process frees its shadow memory after its
	# exit handlers, out of any sampler's reach: about 1.5 ms of CPU a
	# process (200 processes under ASan: 0.29-0.33 s of 6 s), 5-8% of this
	# tree, beyond 5 sd of the count.  There only the issue's 0.8-1.2
	# holds; the unsanitized build keeps the 5 sd bound.
	sd=5
	[ -z "${SANITIZE:-}" ] || sd=1000
	awk -v n="$ticks" -v ns="$ns" -v e="$e" -v sd=$sd 'BEGIN {
		x = ns * 1e-9 * 2000; d = sd * sqrt(x)
		printf "# %s: %d samples for %.3f s of CPU x 2 kHz = %.0f: %.3f\n", e, n, ns * 1e-9, x, n / x
		if (n < x - d || n > x + d || n < 0.8 * x || n > 1.2 * x) {
			printf "FAIL: %s: %d samples, want %.0f +- %.0f and within 0.8-1.2\n", e, n, x, d
			exit 1
		}
	}' || exit 1
done
[ $ran -gt 0 ] || fail "no engine could run"
exit 0
