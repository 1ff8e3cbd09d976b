#!/bin/sh
# A program that sets PROFIL_ENGINE=manual for its children (issue 19):
# the manual engine takes ticks only from __profil_inject, so every child
# went unsampled, and pcprof run said "lost: none".  What a user expects:
# the recordings sample with the engine pcprof run was asked for (the
# library learns it from PCPROF_ENGINE), and the variable still governs
# the program's own profiling calls, which must count exactly as they do
# alone; from such a call on the image's recording stops, and the summary,
# the data file and pcprof report name the CPU time it no longer samples.
#   - a child that only inherits the variable is sampled (CPU x rate, 5 sd);
#   - a child that calls profil() with it injects 1000 ticks and finds
#     exactly 1000 in its buffer (real ticks would land there with a real
#     engine), and "not sampled with the manual engine the program chose:
#     N s CPU", N its CPU time after the call;
#   - PROFIL_ENGINE=manual given to pcprof run itself (the user's choice,
#     as the tests of pcprof's own reports make it) records with manual,
#     with nothing said.
. "$(dirname "$0")/lib.sh"

# The program: linked with the library, as a program that profiles itself.
cat >"$T/self.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/profil.h>
#include <profil_ext.h>
#include <time.h>

static volatile double sink;

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void burn(double secs)
{
	double end = cpu() + secs;
	while (cpu() < end)
		for (int i = 0; i < 20000; i++)
			sink = sink * 1.0000001 + 1e-9;
}

static unsigned short buf[1 << 16];

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	burn(atof(argv[1]));
	/* One counter per 2 bytes of text from burn on. */
	size_t offset = (size_t)(uintptr_t)burn;
	double at = cpu();
	if (profil(buf, sizeof buf, offset, 0x10000) != 0) {
		perror("profil");
		return 2;
	}
	for (int i = 0; i < 1000; i++)
		__profil_inject(offset + 16, 1);
	burn(atof(argv[2]));
	profil(NULL, 0, 0, 0);
	unsigned long sum = 0;
	for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
		sum += buf[i];
	printf("self: engine=%s counted=%lu at=%.3f after=%.3f\n", profil_engine_name(), sum, at,
	       cpu() - at);
	return sum == 1000 ? 0 : 1;
}
EOF
# shellcheck disable=SC2086
${CC:-cc} -O1 -g ${SAN_CFLAGS:-} -I"$PWD/${B:-build}/include/libprofil" -o "$T/self" "$T/self.c" \
	-L"$PWD/${B:-build}" -Wl,-rpath,"$PWD/${B:-build}" -lprofil 2>"$T/cc" ||
	fail "cannot build the program: $(cat "$T/cc")"
# In the TSan build the program is instrumented: libtsan's initial-exec
# TLS (786 KB) does not fit the static TLS glibc leaves once an LD_AUDIT
# module (pcprof run's) has a namespace of its own, and the program fails
# to load ("cannot allocate memory in static TLS block"), with or without
# the library's own code.  The tunable gives glibc the room; nothing else
# in the suite runs an instrumented program under pcprof run.
case "${SANITIZE:-}" in
*thread*) export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=1048576 ;;
esac

# Alone, the program counts exactly what it injected.
PROFIL_ENGINE=manual "$T/self" 0.01 0.01 >"$T/out" 2>&1 || fail "alone: exit $?: $(cat "$T/out")"
grep -q "engine=manual counted=1000 " "$T/out" || fail "alone: $(cat "$T/out")"

# A child that only inherits the variable is sampled.
env -u PROFIL_ENGINE "$PCPROF" run --hz 500 -o "$T/a.data" -- \
	sh -c "PROFIL_ENGINE=manual exec '$HOT' main 0.3" >"$T/out" 2>"$T/err" ||
	fail "inherited: exit $?: $(cat "$T/err")"
grep -q "; lost: none" "$T/err" || fail "inherited: summary: $(cat "$T/err")"
dump "$T/a.data"
id=$(procs | tail -n 1)
[ "$(field "$id" engine)" != manual ] || fail "inherited: recorded with manual: $(cat "$T/dump")"
near "$(field "$id" ticks)" "$(awk -v ms="$(field "$id" cpu_ms)" 'BEGIN { print ms / 2 }')" \
	"inherited: samples of hot"

# A child that profiles itself with it: exact counts, and named.
env -u PROFIL_ENGINE "$PCPROF" run --hz 500 -o "$T/b.data" -- \
	sh -c "PROFIL_ENGINE=manual exec '$T/self' 0.12 0.2" >"$T/out" 2>"$T/err" ||
	fail "self: exit $?, alone 0: $(cat "$T/out" "$T/err")"
grep -q "engine=manual counted=1000 " "$T/out" || fail "self: counts: $(cat "$T/out")"
after=$(sed -n 's/.* after=\([0-9.]*\)$/\1/p' "$T/out")
n=$(sed -n 's/.*not sampled with the manual engine the program chose (PROFIL_ENGINE=manual or profil_set_engine): \([0-9.]*\) s CPU (1 process image: self).*/\1/p' "$T/err")
[ -n "$n" ] || fail "self: not named: $(cat "$T/err")"
awk -v n="$n" -v a="$after" 'BEGIN {
	printf "# not sampled after profil(): %.2f s; the program used %.3f since\n", n, a
	exit !(n >= a - 0.03 && n <= a + 0.03) }' || fail "self: $n s named, $after used: $(cat "$T/err")"
dump "$T/b.data"
id=$(procs | tail -n 1)
[ "$(field "$id" stop)" = 2 ] || fail "self: data file: stop=$(field "$id" stop)"
# the samples before the call are the recording's (the injected ones are not)
near "$(field "$id" ticks)" "$(awk -v ms="$(field "$id" cpu_ms)" -v s="$(field "$id" stop_ms)" \
	'BEGIN { print (ms - s) / 2 }')" "self: samples before profil()"
"$PCPROF" report -n 1 "$T/b.data" >"$T/rep" 2>&1 || fail "report: $(cat "$T/rep")"
grep -q "^stopped    not sampled with the manual engine the program chose: $n s CPU (1 image)" \
	"$T/rep" || fail "report header: $(sed -n 1,9p "$T/rep")"

# The user's own PROFIL_ENGINE=manual: the recordings take it, nothing said.
PROFIL_ENGINE=manual "$PCPROF" run -o "$T/c.data" -- "$HOT" main 0.05 >"$T/out" 2>"$T/err" ||
	fail "user's manual: exit $?: $(cat "$T/err")"
grep -q "; lost: none" "$T/err" || fail "user's manual: summary: $(cat "$T/err")"
dump "$T/c.data"
[ "$(field "$(procs)" engine)" = manual ] || fail "user's manual: engine=$(field "$(procs)" engine)"
no_raw_dirs
exit 0
