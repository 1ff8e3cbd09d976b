#!/bin/sh
# PROFIL_ENGINE is checked as --engine is: an unknown name (a typo such as
# thread_timer) exits 125 with one line before anything runs, where the
# library would quietly choose an engine itself and the recording would
# be made with another engine than the one asked for.  --engine overrides
# it, an empty one is unset, and a good one (manual, the library's test
# engine, included) reaches the recording.
. "$(dirname "$0")/lib.sh"

for bad in bogus thread_timer PERF; do
	(cd "$T" && PROFIL_ENGINE=$bad "$PCPROF" run -q -- true) >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 125 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -q "^pcprof run: PROFIL_ENGINE in the environment: unknown engine '$bad'" "$T/err" ||
		fail "PROFIL_ENGINE=$bad: exit $rc: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "PROFIL_ENGINE=$bad: the program ran: $(cat "$T/out")"
	[ ! -e "$T/pcprof.data" ] || fail "PROFIL_ENGINE=$bad: a data file was written"
done
PROFIL_ENGINE=bogus "$PCPROF" run -q --engine process-timer -o "$T/o.data" -- true ||
	fail "--engine over a bad PROFIL_ENGINE: exit $?"
PROFIL_ENGINE='' "$PCPROF" run -q -o "$T/e.data" -- true || fail "empty PROFIL_ENGINE: exit $?"
for good in process-timer manual; do
	PROFIL_ENGINE=$good "$PCPROF" run -q -o "$T/g.data" -- "$HOT" main 0.05 ||
		fail "PROFIL_ENGINE=$good: exit $?"
	dump "$T/g.data"
	[ "$(field "$(procs)" engine)" = $good ] ||
		fail "PROFIL_ENGINE=$good: engine=$(field "$(procs)" engine)"
done
exit 0
