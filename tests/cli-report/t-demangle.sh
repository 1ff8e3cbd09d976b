#!/bin/sh
# C++ and Rust names demangled everywhere, the raw names still at hand:
# `pcprof run` profiles cxxtarget (built here with g++), which burns its
# CPU in geo::Grid<long>::sum(int) and in two functions whose symbols are
# spelled the way rustc spells them, legacy (_ZN7mycrate4spin17h...E) and
# v0 (_RNv...).  At 1000 Hz for 1 s of CPU each function has tens of
# samples at least (its share is fixed by the loop), so its row is there.
# Report shows the demangled names, --no-demangle the symbols, --function
# matches either; folded, speedscope, HTML and gprof on the gmon.out show
# the demangled names; pprof the demangled name with the raw system_name.
. "$(dirname "$0")/lib.sh"
command -v g++ >/dev/null || skip "g++ not installed: no C++ program to profile"
g++ -O1 -g -o "$T/cxx" tests/cli-report/cxxtarget.cpp 2>"$T/err" || fail "g++: $(cat "$T/err")"
PROFIL_HZ=1000 "$PCPROF" run -q -o "$T/c.data" "$T/cxx" 1 >"$T/runout" 2>&1 ||
	fail "pcprof run: $(cat "$T/runout")"

GRID='geo::Grid<long>::sum(int)' LEGACY='mycrate::spin' V0='mycrate::inner::spin'
RGRID=_ZN3geo4GridIlE3sumEi RLEGACY=_ZN7mycrate4spin17h0011223344556677E
RV0=_RNvNtCs1234_7mycrate5inner4spin

"$PCPROF" report "$T/c.data" >"$T/r" 2>&1 || fail "report: $(cat "$T/r")"
for fn in "$GRID" "$LEGACY" "$V0"; do
	row "$T/r" "$fn" | grep -q . || fail "no row '$fn': $(cat "$T/r")"
done
grep -q '_ZN\|_RNv' "$T/r" && fail "a mangled name in the report: $(cat "$T/r")"

"$PCPROF" report --no-demangle "$T/c.data" >"$T/raw" 2>&1 || fail "report --no-demangle"
for fn in "$RGRID" "$RLEGACY" "$RV0"; do
	row "$T/raw" "$fn" | grep -q . || fail "no raw row '$fn': $(cat "$T/raw")"
done
grep -q 'geo::' "$T/raw" && fail "--no-demangle demangled: $(cat "$T/raw")"

# --function: the raw and the demangled name select the same row
for pat in '_ZN3geo*' 'geo::Grid*'; do
	"$PCPROF" report --function "$pat" "$T/c.data" >"$T/f" 2>&1 || fail "report -f $pat"
	# the samples of that function: the only row with self time (their
	# callers follow with total time only)
	n=$(awk '/^ self%/ { on = 1; next } on && NF && $1 + 0 > 0' "$T/f" | wc -l)
	[ "$n" = 1 ] && row "$T/f" "$GRID" | grep -q . || fail "--function '$pat': $(cat "$T/f")"
done
"$PCPROF" report --callers "$RV0" "$T/c.data" >"$T/cl" 2>&1 || fail "--callers by raw name"
grep -q "^Callers of $V0 (cxx)" "$T/cl" || fail "--callers raw: $(cat "$T/cl")"

# exports
"$PCPROF" export -f folded -o "$T/f.folded" "$T/c.data" 2>/dev/null || fail "folded"
grep -Eq "(^|;)geo::Grid<long>::sum\(int\) [0-9]+$" "$T/f.folded" || fail "folded: $(cat "$T/f.folded")"
grep -Eq "(^|;)mycrate::inner::spin [0-9]+$" "$T/f.folded" || fail "folded v0"
"$PCPROF" export -f speedscope -o "$T/s.json" "$T/c.data" 2>/dev/null || fail "speedscope"
grep -qF "{\"name\":\"$GRID\"" "$T/s.json" || fail "speedscope frame"
"$PCPROF" export -f html -o "$T/p.html" "$T/c.data" 2>/dev/null || fail "html"
grep -qF 'geo::Grid&lt;long&gt;::sum(int)' "$T/p.html" || fail "html has no demangled name"
# gmon.out: gprof reads the names from the binary and demangles them itself
"$PCPROF" export -f gmon -o "$T/gmon" "$T/c.data" >/dev/null 2>&1 || fail "gmon"
if command -v gprof >/dev/null; then
	gprof -b -p "$T/cxx" "$T/gmon/gmon.cxx.out" >"$T/gp" 2>&1 || fail "gprof: $(cat "$T/gp")"
	grep -qF " $GRID" "$T/gp" && grep -qF " $V0" "$T/gp" || fail "gprof: $(cat "$T/gp")"
fi
"$PCPROF" export -f folded --no-demangle -o "$T/raw.folded" "$T/c.data" 2>/dev/null ||
	fail "folded --no-demangle"
grep -Eq "(^|;)$RGRID [0-9]+$" "$T/raw.folded" || fail "folded --no-demangle: $(cat "$T/raw.folded")"

if ! command -v go >/dev/null; then
	echo "SKIP part: go not installed (golang-go), so go tool pprof cannot read the export"
	exit 0
fi
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
export PPROF_BINARY_PATH="$T/none" PPROF_TMPDIR="$T"
"$PCPROF" export -f pprof -o "$T/p.pb.gz" "$T/c.data" 2>/dev/null || fail "pprof"
go tool pprof -raw "$T/p.pb.gz" >"$T/praw" 2>"$T/perr" || fail "pprof -raw: $(cat "$T/perr")"
# a location line: "ID: ADDRESS M=N NAME FILE:LINE s=START(SYSTEM_NAME)"
grep -qF " $GRID " "$T/praw" && grep -qF "($RGRID)" "$T/praw" ||
	fail "pprof: name / system_name: $(sed -n '/^Locations/,$p' "$T/praw")"
grep -qF " $V0 " "$T/praw" && grep -qF "($RV0)" "$T/praw" || fail "pprof: Rust v0 names"
echo "ok: demangled everywhere, raw names kept"
