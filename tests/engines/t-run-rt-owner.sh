#!/bin/sh
# A program that uses the library's default sampling signal (SIGRTMAX)
# itself runs under pcprof run exactly as without it, and is still
# profiled (run once per engine, PROFIL_ENGINE).  tests/targets/rtowner:
#   - wait: blocks SIGRTMAX, then 1000 times sends it to itself with
#     sigqueue and collects it with sigtimedwait or sigwaitinfo while its
#     disposition is SIG_DFL (it died of the first one, status 192, when
#     the library kept sampling with SIGRTMAX);
#   - handler: its own SIGRTMAX handler, raised 1000 times with sigqueue
#     (it ran, but saw SIGRTMAX unblocked inside it);
#   - all: the same after giving every real-time signal a handler, so that
#     no signal is left for the library: it gives them all back and counts
#     the CPU time as not sampled (perf's sigtrap variant samples with
#     SIGTRAP and goes on): the samples plus the lost ones near the CPU
#     time x rate, and pcprof says why.
# perf runs every case with each variant (PROFIL_PERF_MODE).
# Each value must arrive once, in order, as SI_QUEUE (the target checks),
# the output and status must be those of an unprofiled run, and the
# samples near the CPU time x rate (`near`: 5 sd).  The library gives
# SIGRTMAX back and samples on another real-time signal: nothing is lost
# (but system time with perf's fasync variant, which samples user time
# only).
. "$(dirname "$0")/owners.sh"
RT=$PWD/${B:-build}/tests/targets/rtowner
[ -x "$RT" ] || fail "missing $RT (make all)"

# cases: every case, with PROFIL_PERF_MODE as exported (perf runs both of
# its variants).
cases()
{
	nothing=none
	[ "${PROFIL_PERF_MODE:-}" = fasync ] && nothing='system time (perf could sample user time only)'

	for mode in wait handler; do
		profiled "$mode" "$RT" "$mode" 1000 1000000
		near "$ticks" "$(awk -v c="$cpu_ms" -v h="$hz" 'BEGIN { print c / 1000 * h }')" "$mode: samples"
		# perf's fasync variant samples user time only, and says so.
		grep -q -e "lost: $nothing ->" -e "lost: $nothing;" "$T/$mode.err" || fail "$mode: pcprof reports a loss: $(cat "$T/$mode.err")"
	done

	same all "$RT" all 1000 1000000
	lost=$(sed -n 's/.*lost: \([0-9]*\) samples of [0-9]* threads* not sampled.*/\1/p' "$T/all.err")
	near "$((ticks + ${lost:-0}))" "$(awk -v c="$cpu_ms" -v h="$hz" 'BEGIN { print c / 1000 * h }')" \
		"all: samples $ticks + not sampled ${lost:-0}"
	if [ "${PROFIL_PERF_MODE:-}" != sigtrap ]; then
		[ "${lost:-0}" -gt 0 ] || fail "all: nothing counted as not sampled: $(cat "$T/all.err")"
		grep -q 'claimed every free signal' "$T/all.err" || fail "all: no reason given: $(cat "$T/all.err")"
	fi
}

if [ "$ENGINE" = perf ]; then
	for PROFIL_PERF_MODE in sigtrap fasync; do
		export PROFIL_PERF_MODE
		cases
	done
else
	cases
fi
exit 0
