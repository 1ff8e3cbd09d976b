#!/bin/sh
# A fork child handler of another library, run before the library's own,
# that starts a thread through the library's pthread_create (as
# ThreadSanitizer's runtime does in every fork child) harms nothing: the
# thread waits for the library's control lock, which the forking thread
# still holds in the child under its new id, instead of taking it from a
# "dead" holder (which sealed the library: the child sampled nothing);
# every thread runs its own start routine with its own argument; the child
# samples.  tests/targets/forkhandler (which dlopen()s the library after
# registering its handler, so that glibc runs that handler first) checks
# each of these in three fork children; run once per engine.
. "$(dirname "$0")/../cli-run/lib.sh"
FH=$PWD/${B:-build}/tests/targets/forkhandler
[ -x "$FH" ] || fail "missing $FH (make all)"
LIB=$PWD/${B:-build}/libprofil.so
# A sanitizer build's library needs its runtime loaded first, as pcprof
# run of that build arranges (SAN_PRELOAD, from the build's test.env).
LD_PRELOAD=${SAN_PRELOAD:-} "$FH" "$LIB" 3 >"$T/out" 2>&1
rc=$?
if [ "${PROFIL_ENGINE:-}" = perf ] && [ $rc = 2 ] && grep -q "forkhandler: profil" "$T/out"; then
	echo "SKIP: the perf engine cannot run here: $(cat "$T/out")"
	exit 77
fi
[ $rc = 0 ] || fail "forkhandler exit $rc: $(cat "$T/out")"
[ "$(grep -c '^child: [0-9]* ticks$' "$T/out")" = 3 ] || fail "want 3 sampled children: $(cat "$T/out")"
exit 0
