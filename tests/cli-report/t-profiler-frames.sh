#!/bin/sh
# The profiler's own frames are not in the stacks: a program whose two
# threads burn their CPU time in worker (built here), run under pcprof run,
# has libprofil's start_thread wrapper (lib/threads.c) between libc's
# start_thread and worker in every recorded stack of those threads.  The
# report names libc's start_thread as worker's only caller, and no frame of
# libprofil.so is anyone's caller: each of its functions is only ever a leaf
# (self = total, --no-inline).  A --no-inline view so that a leaf inlined
# into a libprofil function cannot make the latter a caller.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || skip "cc not installed: no program to profile"
cat >"$T/thr.c" <<'END'
#include <pthread.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void *worker(void *arg)
{
	unsigned long x = (unsigned long)arg;
	for (unsigned long i = 0; i < 200000000; i++)
		x = x * 6364136223846793005UL + i;
	sink = x;
	return 0;
}
int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], 0, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	return 0;
}
END
cc -O2 -g -pthread -o "$T/thr" "$T/thr.c" 2>"$T/err" || fail "cc: $(cat "$T/err")"
PROFIL_HZ=1000 "$PCPROF" run -q -o "$T/t.data" "$T/thr" >"$T/runout" 2>&1 ||
	fail "pcprof run: $(cat "$T/runout")"

"$PCPROF" report --callers worker "$T/t.data" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
table "$T/out" 'total%    samples' >"$T/cl"
# "total% samples caller module"; [root]: a stack the unwinder recorded
# as worker alone.  Under a sanitizer build (B=build-asan), whose runtime
# wraps the thread start too, the caller is the runtime's.
case ${B:-build} in
*san*) awk '$4 ~ /^libprofil/' "$T/cl" | grep -q . &&
	fail "libprofil calls worker: $(cat "$T/out")" ;;
*) awk '$3 != "[root]" { print $3, $4 }' "$T/cl" >"$T/who"
	[ "$(cat "$T/who")" = "start_thread libc.so.6" ] ||
		fail "worker's callers are not libc's start_thread alone: $(cat "$T/out")" ;;
esac
awk '$3 != "[root]" && $2 > 200' "$T/cl" | grep -q . ||
	fail "too few samples of worker under its caller: $(cat "$T/out")"

"$PCPROF" report -F --no-inline "$T/t.data" >"$T/out" 2>&1 || fail "report: $(cat "$T/out")"
table "$T/out" ' self%  total%' >"$T/fn"
awk '$NF == "libprofil.so.1" && $1 != $2' "$T/fn" | grep -q . &&
	fail "a function of libprofil.so.1 is a caller: $(cat "$T/out")"
# and the leaves of the profiler stay: its own CPU time is real (not
# asserted present: building unwind tables may take no sample at all)
exit 0
