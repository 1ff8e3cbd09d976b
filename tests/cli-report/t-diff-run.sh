#!/bin/sh
# pcprof diff on real recordings (pcprof run, 4000 Hz): two runs of the
# same program (mkfixture spin: fix_hot 70%, hot_lib_spin and its inner
# function 20%, fix_warm 10%, each by slices of CPU time, so that the
# program itself is the same in both) differ within sampling noise in at
# least 95% of rows, its three functions within 5 standard errors, and a
# run with twice fix_warm's time (spin --slow: 10% -> 18% of
# samples, about 12 standard errors at 6000 samples a run) puts fix_warm
# at the top as grown.
. "$(dirname "$0")/lib.sh"
for r in a b slow; do
	arg=
	[ $r = slow ] && arg=--slow
	PROFIL_HZ=4000 "$PCPROF" run -q -o "$T/$r.data" "$FIX" spin 1.5 $arg >"$T/runout" 2>&1 ||
		fail "pcprof run $r: $(cat "$T/runout")"
done
diff_() {
	"$PCPROF" diff "$@" >"$T/d" 2>"$T/e" || fail "diff $*: $(cat "$T/e")"
	table "$T/d" '   base     new' >"$T/rows"
}
diff_ "$T/a.data" "$T/b.data"
case $SANITIZE in
*thread*)
	# Under ThreadSanitizer most samples are in its runtime (libtsan and
	# the fixture's __tsan_*@plt stubs), whose split over its inline
	# helpers moves between two runs of the same program by 3-4 standard
	# errors (a CI run: MemoryAccess 29.1% -> 31.9%, se 0.8): that is the
	# runtime's shadow state, not sampling noise.  Its rows are left out
	# of the noise count; the fixture's own are all kept.
	grep -v -e 'libtsan\.so' -e '__tsan_' "$T/rows" >"$T/own" || true
	mv "$T/own" "$T/rows"
	;;
esac
rows=$(wc -l <"$T/rows")
[ "$rows" -ge 3 ] || fail "only $rows rows to compare: $(cat "$T/d")"
# diff marks a row beyond 3 se, which pure chance does to 0.27% of rows:
# with 15 rows, one of them in about 4% of runs (a CI run: the vdso clock
# 1.07% -> 1.74%, 3.2 se), two in under 0.1%.  So one row is allowed
# however few the rows are, then one in 20.
real=$(awk '$10 !~ /~/' "$T/rows" | wc -l)
[ "$real" -le 1 ] || [ $((real * 20)) -le "$rows" ] ||
	fail "$real of $rows rows beyond noise between two runs: $(cat "$T/d")"
case $SANITIZE in
*thread*)
	# and fix_hot's self share (3-4% there, the rest in the runtime) moved
	# by 3 se once: the fixture's functions are compared by total share
	diff_ -s total "$T/a.data" "$T/b.data"
	;;
esac
# The fixture's own functions, by the column the table is sorted on (self,
# or total under TSan): within 5 se, which chance exceeds once in 1.7
# million, and not at all a real change of fix_warm's size (12 se below).
col=3
case $SANITIZE in *thread*) col=7 ;; esac
for f in fix_hot hot_lib_spin fix_warm; do
	awk -v f=$f -v c=$col '$11 == f { d = $c < 0 ? -$c : $c; found = 1; exit !(d <= 5 * $(c + 1)) }
		END { if (!found) exit 1 }' "$T/rows" ||
		fail "$f changed between two runs beyond 5 se (or has no row): $(cat "$T/d")"
done
diff_ "$T/a.data" "$T/slow.data"
set -- $(head -1 "$T/rows")
case $SANITIZE in
*thread*)
	# A ThreadSanitizer build of the fixture spends fix_warm's self time
	# in the runtime's __tsan_read/__tsan_write, which fix_hot calls too:
	# what grew is fix_warm's total share (about 8 points, 12 standard
	# errors), not necessarily first in a self-sorted table.
	diff_ -s total "$T/a.data" "$T/slow.data"
	[ "$(awk '$11 == "fix_warm" { print $10 }' "$T/rows")" = grew ] ||
		fail "twice as slow, by total share: $(cat "$T/d")"
	;;
*) [ "${11} ${10}" = "fix_warm grew" ] || fail "twice as slow: $(cat "$T/d")" ;;
esac
exit 0
