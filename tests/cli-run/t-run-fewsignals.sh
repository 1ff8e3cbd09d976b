#!/bin/sh
# When the kernel delivers a timer engine's signals late and seldom, each
# brings many ticks, all charged where it lands: pcprof run's summary and
# pcprof report's header say that the placement rests on few signals
# (cli/fewsignals.c: more than 3 x max(1, hz / 100) ticks per signal, after
# 3 x that per thread), and never for what the rate or the threads explain.
# Exact recordings, no real timer: a program compiled here injects ticks
# through the manual engine, then writes into its own recording (as its
# last act, lib/record-format.h) the engine and the number of signals that
# brought them, and no owed ticks.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
cat >"$T/fewsig.c" <<'C'
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record-format.h"

static int (*inject)(uintptr_t, unsigned long);
static unsigned long ticks;

__attribute__((noinline)) void burn(void)
{
	__asm__ volatile("");
}

static void *thread(void *arg)
{
	(void)arg;
	if (inject((uintptr_t)&burn, ticks) < 0)
		exit(2);
	return NULL;
}

static void put(int fd, const void *v, size_t n, size_t off)
{
	if (pwrite(fd, v, n, (off_t)off) != (ssize_t)n)
		exit(3);
}

/* fewsig THREADS TICKS SIGNALS ENGINE: THREADS threads one after the
 * other, TICKS ticks each, in SIGNALS signals of ENGINE. */
int main(int argc, char **argv)
{
	const char *dir = getenv("PCPROF_DIR");
	inject = (int (*)(uintptr_t, unsigned long))dlsym(RTLD_DEFAULT, "__profil_inject");
	if (argc != 5 || !dir || !inject)
		return 1;
	ticks = strtoul(argv[2], NULL, 10);
	for (int i = 0, n = atoi(argv[1]); i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread, NULL) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	}
	char path[4096], engine[24] = "";
	snprintf(path, sizeof path, "%s/%d.0.raw", dir, (int)getpid());
	snprintf(engine, sizeof engine, "%s", argv[4]);
	uint64_t signals = strtoull(argv[3], NULL, 10), owed = 0;
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return 1;
	put(fd, &signals, sizeof signals, offsetof(struct pcprof_raw_header, signals));
	put(fd, &owed, sizeof owed, offsetof(struct pcprof_raw_header, owed));
	put(fd, engine, sizeof engine, offsetof(struct pcprof_raw_header, engine));
	return close(fd) != 0;
}
C
cc -O1 -pthread -Ilib -o "$T/fewsig" "$T/fewsig.c" -ldl >"$T/cc" 2>&1 || fail "cc: $(cat "$T/cc")"

NOTE='placement rests on'

# rec NAME HZ THREADS TICKS SIGNALS ENGINE: record into $T/NAME.data, the
# summary into $T/NAME.err, and check the recording has what was asked for
rec()
{
	PROFIL_ENGINE=manual "$PCPROF" run --hz "$2" -o "$T/$1.data" -- "$T/fewsig" "$3" "$4" "$5" "$6" \
		2>"$T/$1.err" || fail "$1: pcprof run exited $?: $(cat "$T/$1.err")"
	dump "$T/$1.data"
	id=$(procs)
	got="$(field "$id" hz) $(field "$id" engine) $(field "$id" signals) $(field "$id" ticks)"
	[ "$got" = "$2 $6 $5 $(($3 * $4))" ] ||
		fail "$1: recorded hz, engine, signals, ticks: $got: $(grep '^proc' "$T/dump")"
}

# noted NAME WHAT: the summary has the clause WHAT, and the report's header
# the same as a line of its own
noted()
{
	grep -qF "; $2 (the kernel delayed the timer signals: CPU contention or long system calls? --engine perf, where allowed, is not affected)" "$T/$1.err" ||
		fail "$1: no '$2' in the summary: $(cat "$T/$1.err")"
	"$PCPROF" report "$T/$1.data" >"$T/$1.rep" 2>&1 || fail "$1: report: $(cat "$T/$1.rep")"
	grep -qxF "note       $2 (the kernel delayed the timer signals: CPU contention or long system calls? pcprof run --engine perf, where allowed, is not affected)" "$T/$1.rep" ||
		fail "$1: no '$2' in the report: $(sed -n 1,8p "$T/$1.rep")"
}

# quiet NAME: neither says it
quiet()
{
	! grep -qF "$NOTE" "$T/$1.err" || fail "$1: a note in the summary: $(cat "$T/$1.err")"
	"$PCPROF" report "$T/$1.data" >"$T/$1.rep" 2>&1 || fail "$1: report: $(cat "$T/$1.rep")"
	grep -q '^samples ' "$T/$1.rep" || fail "$1: no header: $(sed -n 1,8p "$T/$1.rep")"
	! grep -qF "$NOTE" "$T/$1.rep" || fail "$1: a note in the report: $(sed -n 1,8p "$T/$1.rep")"
}

# One late signal for 0.75 s of CPU at 100 Hz.
rec one 100 1 75 1 thread-timer
noted one "placement rests on 1 signal for 75 samples"
# The same with the process-wide timer.
rec proc 100 1 75 1 process-timer
noted proc "placement rests on 1 signal for 75 samples"
# The edge: 75 ticks are 3 per signal and 3 for the thread with 24 signals.
rec edge23 100 1 75 23 thread-timer
noted edge23 "placement rests on 23 signals for 75 samples"
rec edge24 100 1 75 24 thread-timer
quiet edge24
# A signal per tick but one (a short program's last tick, owed).
rec most 100 1 75 74 thread-timer
quiet most
# dd bs=64M: its reads of 20 ms bring 2 ticks each at 100 Hz.
rec dd 100 1 76 38 thread-timer
quiet dd
# 1 kHz on a kernel that ticks at 250 Hz: a signal per 4 ticks by design,
# and 2.5 times more on one that ticks at 100 Hz; 7.5 times more is late.
rec khz 1000 1 752 188 thread-timer
quiet khz
rec khz100 1000 1 752 76 thread-timer
quiet khz100
rec khzlate 1000 1 752 24 thread-timer
noted khzlate "placement rests on 24 signals for 752 samples"
# Below 100 Hz a signal should still bring one tick, not hz/100 of one.
rec slow23 50 1 75 23 thread-timer
noted slow23 "placement rests on 23 signals for 75 samples"
rec slow24 50 1 75 24 thread-timer
quiet slow24
# 40 threads too short for a signal (and the main thread): their ticks
# are paid owed, up to 3 each (123), not more.
rec short 100 40 3 0 thread-timer
quiet short
rec short4 100 40 4 0 thread-timer
noted short4 "placement rests on 0 signals for 160 samples"
# perf's signals are not the tick's; the manual engine's ticks are injected.
rec perf 100 1 75 1 perf
quiet perf
rec manual 100 1 75 0 manual
quiet manual
exit 0
