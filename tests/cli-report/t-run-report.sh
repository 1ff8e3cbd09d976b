#!/bin/sh
# The whole path on a real recording: `pcprof run` profiles mkfixture's CPU
# loop (about 70% of its work in fix_hot in the executable, 20% in
# libhot.so, four fifths of that in hot_lib_spin, and 10% in fix_warm),
# then report, gprof and pprof must each name the hot function of each
# module first.  2 s of CPU at 100 Hz is about 200 samples: fix_hot's
# expected share (~70%) is far above any other row's, and hot_lib_spin's
# ~32 samples against hot_lib_inner's ~8 leave practically no chance of a
# swap (binomial tail ~1e-5), so the bounds below are generous.
. "$(dirname "$0")/lib.sh"
# mkfixture is built with the sanitizer: under TSan its loops spend most of
# their time in TSan's instrumentation, so its functions' shares change.
case "${SANITIZE:-}" in *thread*)
	echo "SKIP: under ThreadSanitizer mkfixture's profile is TSan's instrumentation"
	exit 77 ;;
esac

"$PCPROF" run -q -o "$T/run.data" "$FIX" spin 2 >"$T/runout" 2>&1 ||
	fail "pcprof run exit $?: $(cat "$T/runout")"
"$PCPROF" report -F -M "$T/run.data" >"$T/out" 2>&1 || fail "report exit $?: $(cat "$T/out")"
total=$(awk '/^samples/ { print $2 }' "$T/out")
[ "$total" -ge 100 ] || fail "only $total samples for 2 s of CPU"

# the executable's hot function first, with most of the samples
first=$(awk '/^ self%/ { getline; print; exit }' "$T/out")
set -- $first
[ "$5" = fix_hot ] && [ "$6" = mkfixture ] || fail "first row: $first"
awk -v p="$1" 'BEGIN { exit !(p >= 40) }' || fail "fix_hot has only $1%"
# in libhot.so, hot_lib_spin is the first row of the module
lib=$(awk '/^ self%/ { on = 1; next } on && NF == 6 && $6 == "libhot.so" { print $5; exit }' "$T/out")
[ "$lib" = hot_lib_spin ] || fail "first libhot.so row is '$lib': $(cat "$T/out")"
grep -Eq '^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +libhot\.so +/' "$T/out" || fail "no libhot.so module total"

# gprof on the executable and on the library
if command -v gprof >/dev/null; then
	"$PCPROF" export --format gmon -o "$T/gm" "$T/run.data" >/dev/null 2>&1 || fail "export gmon"
	gprof -b -p "$FIX" "$T/gm/gmon.mkfixture.out" >"$T/g1" 2>&1 || fail "gprof: $(cat "$T/g1")"
	f=$(awk '/^ time/ { getline; print $NF; exit }' "$T/g1")
	[ "$f" = fix_hot ] || fail "gprof's first row is $f: $(cat "$T/g1")"
	gprof -b -p ${B:-build}/tests/cli-report/libhot.so "$T/gm/gmon.libhot.so.out" >"$T/g2" 2>&1 ||
		fail "gprof libhot.so: $(cat "$T/g2")"
	f=$(awk '/^ time/ { getline; print $NF; exit }' "$T/g2")
	[ "$f" = hot_lib_spin ] || fail "gprof's first libhot.so row is $f: $(cat "$T/g2")"
fi

# go tool pprof
if command -v go >/dev/null; then
	export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
	"$PCPROF" export --format pprof -o "$T/p.pb.gz" "$T/run.data" 2>/dev/null || fail "export pprof"
	go tool pprof -top "$T/p.pb.gz" >"$T/top" 2>&1 || fail "pprof: $(cat "$T/top")"
	f=$(awk '/flat%/ { getline; print $6; exit }' "$T/top")
	[ "$f" = fix_hot ] || fail "pprof's first row is $f: $(cat "$T/top")"
fi
exit 0
