#!/bin/sh
# pcprof run's options reach the recording (--hz, --engine, --slots) and
# bad values are refused with status 125 before anything runs; PCPROF_LIB
# chooses the library.
. "$(dirname "$0")/lib.sh"

"$PCPROF" run -q --hz 250 --engine process-timer --slots 2000 -o "$T/p.data" -- "$HOT" main 0.2 ||
	fail "pcprof run exited $?"
dump "$T/p.data"
id=$(procs)
[ "$(field "$id" hz)" = 250 ] || fail "hz=$(field "$id" hz), want 250"
[ "$(field "$id" engine)" = process-timer ] || fail "engine=$(field "$id" engine)"
expect_hot "$id" hot_main 70

for bad in "--hz 0" "--hz 10001" "--hz x" "--engine bogus" "--slots 10" "--slots 999999999"; do
	# shellcheck disable=SC2086
	"$PCPROF" run $bad -- true 2>"$T/err"
	rc=$?
	[ $rc = 125 ] || fail "'$bad': exit $rc, want 125"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "'$bad': $(cat "$T/err")"
done
# PROFIL_HZ is checked as --hz is (the library would quietly take 100 Hz
# for a bad one), unless --hz overrides it; an empty one is unset.
for bad in abc 20000 0 -5; do
	(cd "$T" && PROFIL_HZ=$bad "$PCPROF" run -q -- true) 2>"$T/err"
	rc=$?
	[ $rc = 125 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "PROFIL_HZ.*'$bad'" "$T/err" ||
		fail "PROFIL_HZ=$bad: exit $rc: $(cat "$T/err")"
	[ ! -e "$T/pcprof.data" ] || fail "PROFIL_HZ=$bad: a data file was written"
done
PROFIL_HZ=abc "$PCPROF" run -q --hz 300 -o "$T/hz.data" -- true || fail "--hz over a bad PROFIL_HZ"
PROFIL_HZ=300 "$PCPROF" run -q -o "$T/hz.data" -- "$HOT" main 0.05 || fail "PROFIL_HZ=300"
dump "$T/hz.data"
[ "$(field "$(procs)" hz)" = 300 ] || fail "PROFIL_HZ=300: hz=$(field "$(procs)" hz)"
# No PROGRAM, or -o -: one line saying so, nothing run or written.
for args in "" "-q" "-q --" "-q -o - -- true"; do
	# shellcheck disable=SC2086
	(cd "$T" && "$PCPROF" run $args) >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 125 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] ||
		fail "run $args: exit $rc: $(cat "$T/err")"
done
grep -q "standard output" "$T/err" || fail "-o -: $(cat "$T/err")"
[ ! -e "$T/-" ] || fail "-o - wrote a file named -"
"$PCPROF" run 2>"$T/err"
grep -q "no PROGRAM to run (try 'pcprof run --help')" "$T/err" || fail "no PROGRAM: $(cat "$T/err")"
"$PCPROF" run -o 2>"$T/err"
[ $? = 125 ] && grep -q "needs a value" "$T/err" || fail "-o without a value: $(cat "$T/err")"
"$PCPROF" run -q -o "$T" -- true 2>"$T/err"
[ $? = 125 ] && grep -q "is a directory" "$T/err" || fail "-o DIRECTORY: $(cat "$T/err")"
"$PCPROF" run -q -o "$T/no/such/dir/p.data" -- true 2>"$T/err"
[ $? = 125 ] || fail "-o in a missing directory"

PCPROF_LIB=$T/nothing "$PCPROF" run -q -o "$T/l.data" -- true 2>"$T/err"
[ $? = 125 ] && grep -q "PCPROF_LIB" "$T/err" || fail "PCPROF_LIB missing: $(cat "$T/err")"
PCPROF_LIB=${B:-build}/libprofil.so.1 "$PCPROF" run -o "$T/l.data" -- "$HOT" main 0.05 2>"$T/err" ||
	fail "PCPROF_LIB=${B:-build}/libprofil.so.1"
dump "$T/l.data"
[ "$(procs | wc -l)" = 1 ] || fail "PCPROF_LIB: nothing recorded"
grep -q "audit" "$T/err" && fail "the audit module next to the library was not used: $(cat "$T/err")"
# A library without the audit module next to it: recorded all the same
# (modules listed by the library), and the summary says so.
mkdir "$T/lib"
cp ${B:-build}/libprofil.so.1 "$T/lib/"
PCPROF_LIB=$T/lib/libprofil.so.1 "$PCPROF" run -o "$T/l.data" -- "$HOT" main 0.5 2>"$T/err" ||
	fail "PCPROF_LIB without the audit module"
grep -q "1 without the audit module" "$T/err" || fail "summary: $(cat "$T/err")"
dump "$T/l.data"
expect_hot "$(procs)" hot_main 70

# The program's own LD_PRELOAD is kept, after ours.
# (pcprof of a sanitizer build needs its runtime first: SAN_PRELOAD.)
LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }libm.so.6" "$PCPROF" run -q -o "$T/m.data" -- sh -c 'echo "$LD_PRELOAD"' >"$T/out"
grep -q "libprofil.so.1 ${SAN_PRELOAD:+$SAN_PRELOAD }libm.so.6$" "$T/out" || fail "LD_PRELOAD: $(cat "$T/out")"
no_raw_dirs
exit 0
