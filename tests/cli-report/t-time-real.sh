#!/bin/sh
# Time on a real timer: tests/targets/phases burns ~0.6 s of CPU in phase_a,
# then as much in phase_b, at 1000 Hz.  The split point comes from the
# recorded timeline itself (the bucket where half the samples are behind),
# never from the wall clock; report --time before it must be mostly phase_a,
# after it mostly phase_b.  Bound: at the median, the samples on the wrong
# side are half the difference between the two phases' counts (5 sd of a
# difference of two counts of N/2: 5 sqrt(N) / 2), plus one 10 ms bucket of
# samples (10) and the owed ticks, paid at the end (pcprof-run(1)).  burn is
# inlined: --no-inline counts it in its phase.  Both modes: preloaded, and
# sampled from outside (perf events; left out, and said, where refused).
. "$(dirname "$0")/lib.sh"
PHASES=$ROOT/${B:-build}/tests/targets/phases
PPDUMP=$ROOT/${B:-build}/tests/cli-run/ppdump
for f in "$PHASES" "$PPDUMP"; do
	[ -x "$f" ] || fail "$f not built (make all)"
done

# check MODE: record in that mode, then the two halves
check() {
	mode=$1
	"$PCPROF" run --mode "$mode" --hz 1000 -o "$T/b.data" -- "$PHASES" burn 0.6 2>"$T/err" || {
		if [ "$mode" = external ] && grep -q "cannot profile" "$T/err"; then
			echo "# external mode not checked: $(cat "$T/err")"
			return 0
		fi
		fail "run --mode $mode: $(cat "$T/err")"
	}
	owed=$(sed -n 's/.* samples (\([0-9]*\) owed).*/\1/p' "$T/err")
	"$PPDUMP" "$T/b.data" >"$T/dump" || fail "ppdump: $(cat "$T/dump")"
	# the median bucket, weighted by ticks, and the number of timed ticks
	awk '$1 == "time" { print $3, $5 }' "$T/dump" | sort -n |
		awk '{ b[NR] = $1; n[NR] = $2; all += $2 }
		END { half = all / 2; for (i = 1; i <= NR; i++) { s += n[i]; if (s >= half) { print b[i], all; exit } } }' \
			>"$T/median"
	read -r median all <"$T/median" || fail "$mode: no timed samples: $(head -20 "$T/dump")"
	[ "$all" -ge 100 ] || fail "$mode: only $all timed samples for 1.2 s at 1000 Hz"
	split=$(awk -v b="$median" 'BEGIN { printf "%.2f", (b + 1) / 100 }')
	slack=$(awk -v n="$all" -v o="${owed:-0}" 'BEGIN { printf "%d", 5 * sqrt(n) / 2 + 10 + o }')
	for half in "0-$split phase_a" "$split- phase_b"; do
		# shellcheck disable=SC2086
		set -- $half
		"$PCPROF" report --no-inline --time "$1" -n 0 "$T/b.data" >"$T/r" 2>"$T/e" ||
			fail "$mode: report --time $1: $(cat "$T/e")"
		awk -v f="$2" '$5 == f { fn = $3 } /^samples / { all = $2 } END { print fn + 0, all + 0 }' \
			"$T/r" >"$T/s"
		read -r fn n <"$T/s"
		[ $((n - fn)) -le "$slack" ] || {
			cat "$T/r"
			fail "$mode: --time $1: $2 has $fn of $n samples; more than $slack elsewhere ($all timed, median bucket $median, ${owed:-0} owed)"
		}
		[ "$n" -ge $((all / 2 - slack)) ] || fail "$mode: --time $1: $n samples of $all, want about half"
	done
}
check preload
check external
exit 0
