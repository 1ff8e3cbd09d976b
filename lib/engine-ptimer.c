/*
 * engine-ptimer.c - "process-timer": one POSIX timer on the process CPU
 * clock, the last resort when neither per-thread engine can run.
 *
 * Its signal is process-directed: the kernel picks the receiving thread
 * (since Linux 6.4 preferably the one that was running), so the sampled pc
 * is not always the one that consumed the tick, and with several busy
 * threads expiries coalesce.  Weighting each signal by 1 + si_overrun keeps
 * the total right; attribution between threads is only approximate
 * (libprofil(7) BUGS).  Unlike setitimer(ITIMER_PROF) it is deleted at exec
 * and does not disturb a program's own ITIMER_PROF.
 */
#include <time.h>

#include "engine.h"
#include "reserve.h"

static int timer_id = -1;

static int probe(const struct profil_run *run, char *why, size_t len)
{
	return profil__timer_probe(CLOCK_PROCESS_CPUTIME_ID, 0, run->signo, "the process CPU clock",
				   why, len);
}

static int signal_of(const struct profil_run *run)
{
	return run->signo;
}

static int start(const struct profil_run *run)
{
	int id, r = profil__reserve_take(PROFIL_RES_SIGQ);
	if (r < 0)
		return r;
	r = profil__timer_create(CLOCK_PROCESS_CPUTIME_ID, 0, run->signo, &id);
	if (r < 0) {
		profil__reserve_give(PROFIL_RES_SIGQ);
		return r;
	}
	long period = 1000000000L / (long)run->hz;
	r = profil__timer_arm(id, period, period);
	if (r < 0) {
		profil__timer_delete(id);
		return r;
	}
	timer_id = id;
	return 0;
}

static void stop(void)
{
	if (timer_id >= 0)
		profil__timer_delete(timer_id);
	timer_id = -1;
}

static void fork_child(void)
{
	/* The parent's timer is not inherited; start() makes the child's. */
	timer_id = -1;
}

const struct profil_engine profil__engine_process_timer = {
	.name = "process-timer",
	.subtick = false,
	.probe = probe,
	.signal = signal_of,
	.start = start,
	.stop = stop,
	.fork_child = fork_child,
	.classify = profil__timer_classify,
};
