/*
 * fewsignals.c - when a profile's samples rest on few signals.
 *
 * A timer engine (thread-timer, process-timer) asks the kernel for a
 * signal every period of CPU time, but the kernel checks CPU timers only
 * at its scheduler tick (CONFIG_HZ: 100, 250, 300 or 1000).  So
 *   - above the tick's rate, one signal stands for hz / CONFIG_HZ periods
 *     by design (about 4 at 1 kHz with HZ 250);
 *   - the signal of a long system call comes when the call returns, with
 *     all its periods (2 for dd bs=64M's reads of 20 ms at 100 Hz);
 *   - beside CPU-bound programs of equal priority the kernel may signal
 *     late and seldom: 1 to 36 signals for 75 periods have been seen.
 * The tick counts are right in all three (a signal weighs what the
 * thread's CPU clock says it is due, libprofil(7)), but all the ticks a
 * signal brings are charged at the one pc where it lands: the placement of
 * samples rests on the signals, not on the samples.  Its sampling error
 * goes as 1 / sqrt(signals), so when each signal brings over 3 times what
 * it should, the error is over 1.7 times what the sample count suggests:
 * the note is given from there on (seen beside two busy loops: 9 to 31
 * signals for 75 ticks at 100 Hz; 23 and fewer get it).
 *
 * What a signal should bring: one period, or one kernel tick's worth of
 * periods at rates above the tick.  The tick is not in the recording, and
 * sysconf(_SC_CLK_TCK) is USER_HZ (100), not CONFIG_HZ.  pcprof run could
 * read it off clock_getres(CLOCK_MONOTONIC_COARSE), but pcprof report,
 * reading a file made elsewhere, could not, and the two must agree.  So the
 * rule assumes the slowest tick, 100 Hz: a signal should bring
 * max(1, hz / 100) ticks.  On faster-tick kernels that overestimates it and
 * never calls a high rate a problem (1 kHz with HZ 250: 4 per signal, the
 * note above 30), at the price of seeing delays at high rates only when
 * they are worse (at 1 kHz with HZ 250, 7.5 times the due weight against 3
 * at 100 Hz).  In time: the note needs under one signal per 30 ms of CPU
 * time (per 3 periods below 100 Hz).  The one legitimate cause of that is
 * a system call as long (3 ticks of the slowest kernel, 1.5 times dd's).
 *
 * A thread also has ticks that no signal of its own brings (owed): the CPU
 * time before its first signal and after its last, each up to a period and
 * a kernel tick.  3 x max(1, hz / 100) per thread are allowed for them, so
 * that many short threads, each too short for a signal, are no delay.
 *
 * Only the timer engines count: perf's signals come from its own clock,
 * not at the tick (hence the advice), the manual engine's ticks are
 * injected without a signal, and external sampling counts each sample as
 * a signal.
 */
#include "fewsignals.h"

#include <stdio.h>
#include <string.h>

#define SIGNAL_WEIGHT_MAX 3 /* ticks per signal, in what one should bring */
#define THREAD_OWED_MAX   3 /* ticks per thread without a signal, the same */
#define SLOWEST_TICK_HZ   100

void fewsignals_add(struct fewsignals *c, const struct pp_process *p)
{
	if (strcmp(p->engine, "thread-timer") != 0 && strcmp(p->engine, "process-timer") != 0)
		return;
	double due = p->hz > SLOWEST_TICK_HZ ? (double)p->hz / SLOWEST_TICK_HZ : 1.0;
	c->ticks += p->ticks;
	c->signals += p->signals;
	c->explained += due * (SIGNAL_WEIGHT_MAX * (double)p->signals +
			       THREAD_OWED_MAX * (double)p->nthreads);
}

bool fewsignals_note(const struct fewsignals *c, const char *run, char *buf, size_t len)
{
	if ((double)c->ticks <= c->explained)
		return false;
	snprintf(buf, len,
		 "placement rests on %llu signal%s for %llu samples (the kernel delayed the "
		 "timer signals: CPU contention or long system calls? %s--engine perf, where "
		 "allowed, is not affected)",
		 (unsigned long long)c->signals, c->signals == 1 ? "" : "s",
		 (unsigned long long)c->ticks, run);
	return true;
}
