#!/bin/sh
# pcprof run leaves a program its resources and says what that cost
# (issue 8, items 4 and 6):
#   - 2000 threads that end with a raw SYS_exit: the summary names them as
#     threads whose CPU after the last sample was not counted;
#   - under `ulimit -n 64`, a program with 100 waiting threads still opens
#     its 16 files (exit 0, as unprofiled) with the perf engine's fasync
#     variant, which needs a descriptor per thread, and the summary counts
#     the threads left unsampled.
. "$(dirname "$0")/lib.sh"
CROWD=$PWD/${B:-build}/tests/targets/crowd

# Not under ASan (tests/README.md): its runtime, which pcprof run of a
# sanitizer build preloads into the target, fails a CHECK on raw SYS_exit
# threads.
if [ -z "${SANITIZE:-}" ] || [ "${SANITIZE#*thread}" != "$SANITIZE" ]; then
	"$PCPROF" run -o "$T/r.data" -- "$CROWD" rawexit 2000 2>"$T/err" ||
		fail "crowd rawexit exited $?: $(cat "$T/err")"
	grep -q "lost: .*[0-9] s CPU after the last sample of 2000 threads that ended without exit handlers" \
		"$T/err" || fail "summary: $(cat "$T/err")"
fi

(ulimit -n 64 && "$CROWD" files 100) >"$T/out" || fail "unprofiled under ulimit -n 64: $(cat "$T/out")"
(ulimit -n 64 && PROFIL_PERF_MODE=fasync "$PCPROF" run -o "$T/f.data" --engine perf -- \
	"$CROWD" files 100) >"$T/out" 2>"$T/err"
rc=$?
grep -q "(perf" "$T/err" || { echo "SKIP: the perf engine cannot run here: $(cat "$T/err")"; exit 77; }
[ $rc = 0 ] || fail "profiled under ulimit -n 64: exit $rc: $(cat "$T/out" "$T/err")"
grep -q "lost: .*[0-9][0-9]* threads not sampled" "$T/err" || fail "summary: $(cat "$T/err")"
no_raw_dirs
