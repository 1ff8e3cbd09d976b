#!/bin/sh
# A program that lowers its stack limit and execs (`ulimit -s 16; exec
# prog`) runs under pcprof run as it does alone (issue 19, item 5; run once
# per engine, PROFIL_ENGINE).  Before the fix, the audit module's
# recording setup had an 8.5 KiB frame (a PATH_MAX buffer for a file name)
# and the library's constructors a few of 3-4 KiB: half the runs died of
# SIGSEGV before main.
#
# What a process needs of RLIMIT_STACK before main is the argument and
# environment strings, the kernel's random gap below them (0-8 KiB), and
# what the dynamic loader and the preloaded objects use.  The loader's
# own LD_PRELOAD handling needs 7.4 KiB here, for any preloaded object,
# an empty one included: with the random gap, a 16 KiB limit is then
# missed now and then whatever the library does (measured: an empty
# LD_PRELOAD and LD_AUDIT object, 8 of 400 runs; docs/reliability.md).
# So this test takes the gap away (setarch -R: no address randomization)
# and measures, with tests/targets/stackuse (the lowest byte of the stack
# written before main):
#
#   1. the stack the process used before main under pcprof run, against an
#      empty LD_PRELOAD object and an empty LD_AUDIT module (what the
#      loader needs for any): at most SLACK (512) bytes more.  Measured:
#      7560 against 7448 (before the fix 10152).  The ASan build's
#      library has redzones in every frame: 8464-8480 against 7560 there,
#      so its SLACK is 2 KiB;
#   2. the run itself: an environment padded so that the empty objects
#      would leave SLACK + 512 bytes of a 16 KiB limit unused, then
#      `ulimit -s 16; exec stackuse` under pcprof run, three times: it
#      must run, and the library must have started in it (its engine is
#      named).  Before the fix it died of SIGSEGV every time.  The empty
#      objects must run so too, or the model (need = strings + pointers +
#      before main) is wrong here, and the test says so.
. "$(dirname "$0")/../cli-run/lib.sh"
ENGINE=${PROFIL_ENGINE:-auto}
USE=$PWD/${B:-build}/tests/targets/stackuse
[ -x "$USE" ] || fail "missing $USE (make all)"
SLACK=512
[ "${SANITIZE#*address}" = "${SANITIZE:-}" ] || SLACK=2048
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC) for the empty objects"; exit 77; }
NORAND="setarch $(uname -m) -R"
$NORAND true 2>/dev/null || { echo "SKIP: setarch -R cannot turn address randomization off here"; exit 77; }

# The empty objects: nothing but what the loader must map.
echo 'int empty_object;' >"$T/empty.c"
printf '#define _GNU_SOURCE\n#include <link.h>\nunsigned int la_version(unsigned int v) { (void)v; return LAV_CURRENT; }\n' >"$T/audit.c"
"$CC" -shared -fPIC -o "$T/empty.so" "$T/empty.c" &&
	"$CC" -shared -fPIC -o "$T/audit.so" "$T/audit.c" || fail "cannot build the empty objects"
# pcprof run of a sanitizer build puts the runtime first (tests/README.md):
# the empty objects get the same company.
EMPTY_PRELOAD=${SAN_PRELOAD:+$SAN_PRELOAD }$T/empty.so

# field VALUE NAME: NAME's number in stackuse's line VALUE
num()
{
	echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# run NAME PAD LIMIT: stackuse under pcprof run (exec'd by sh after
# `ulimit -s LIMIT`), the environment padded by PAD bytes; its line into
# $T/NAME.out, pcprof's status into rc.
run()
{
	PAD=$(head -c "$2" /dev/zero | tr '\0' x) $NORAND "$PCPROF" run -q -o "$T/$1.data" -- \
		sh -c 'ulimit -s "$1" && exec "$0"' "$USE" "$3" >"$T/$1.out" 2>"$T/$1.err"
	rc=$?
	if [ $rc = 125 ] && [ "$ENGINE" = perf ] && grep -q perf "$T/$1.err"; then
		echo "SKIP: perf engine cannot run here: $(cat "$T/$1.err")"
		exit 77
	fi
}

# empty NAME PAD LIMIT: the same with the empty objects instead of pcprof.
empty()
{
	PAD=$(head -c "$2" /dev/zero | tr '\0' x) LD_PRELOAD="$EMPTY_PRELOAD" LD_AUDIT="$T/audit.so" \
		$NORAND sh -c 'ulimit -s "$1" && exec "$0"' "$USE" "$3" >"$T/$1.out" 2>"$T/$1.err"
	rc=$?
}

# 1. Before main, with no limit.
empty e0 0 unlimited
[ $rc = 0 ] || fail "empty objects: exit $rc ($(cat "$T/e0.err"))"
run p0 0 unlimited
[ $rc = 0 ] || fail "pcprof run: exit $rc ($(cat "$T/p0.err"))"
line_e=$(cat "$T/e0.out") line_p=$(cat "$T/p0.out")
before_e=$(num "$line_e" before_main) before_p=$(num "$line_p" before_main)
top_e=$(num "$line_e" top) top_p=$(num "$line_p" top)
[ -n "$before_e" ] && [ -n "$before_p" ] && [ -n "$top_p" ] ||
	fail "no measure: empty '$line_e', pcprof '$line_p'"
echo "# before main: $before_p bytes under pcprof run, $before_e with empty objects"
[ "$before_p" -le $((before_e + SLACK)) ] ||
	fail "before main: $before_p bytes of stack under pcprof run, $before_e with empty LD_PRELOAD and LD_AUDIT objects: want at most $SLACK more"

# 2. A 16 KiB limit (more if the environment is already too large for
# one), the environment padded so that the empty objects would leave
# SLACK + 512 bytes of it: the padding adds as much to `top` as its
# length, to 16 bytes (alignment).
limit=16
while :; do
	pad=$((limit * 1024 - SLACK - 512 - top_p - before_e))
	[ $pad -lt 0 ] || break
	limit=$((limit + 4))
done
empty e1 $pad $limit
[ $rc = 0 ] || fail "empty objects with ulimit -s $limit and $pad bytes of padding: exit $rc (the loader needs more than measured: $line_e)"
for i in 1 2 3; do
	run p1 $pad $limit
	[ $rc = 0 ] ||
		fail "ulimit -s $limit, then exec: exit $rc under pcprof run ($(cat "$T/p1.err")); unlimited it used $before_p bytes before main, and $top_p above"
	grep -q before_main "$T/p1.out" || fail "ulimit -s $limit: no output"
	dump "$T/p1.data"
	id=$(procs | tail -1)
	[ "$(field "$id" exe)" = "$USE" ] || { cat "$T/dump"; fail "the last image is not stackuse"; }
	engine=$(field "$id" engine)
	[ -n "$engine" ] || { cat "$T/dump"; fail "ulimit -s $limit: the library did not start in stackuse"; }
	[ "$ENGINE" = auto ] || [ "$engine" = "$ENGINE" ] || fail "engine $engine, not $ENGINE"
done
echo "# ulimit -s $limit with $pad bytes of padding: runs, $(cat "$T/p1.out")"
