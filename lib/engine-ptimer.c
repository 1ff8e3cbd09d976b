/*
 * engine-ptimer.c - "process-timer": one POSIX timer on the process CPU
 * clock, the last resort when neither per-thread engine can run.
 *
 * Its signal is process-directed: the kernel picks the receiving thread
 * (since Linux 6.4 preferably the one that was running), so the signal's
 * own count (1 + si_overrun, which mixes the expiries of every thread) says
 * nothing about the thread that gets it.  So every thread has a tick
 * schedule on its own CPU clock like with the per-thread engines, and the
 * signal only says "now" to the thread it lands in, which accounts what
 * its schedule says it is due: per-thread counts follow thread CPU time,
 * and the pcs are those where the signal found each thread (a thread that
 * rarely gets one has its ticks lumped at fewer pcs).  Threads without a
 * slot (made without pthread_create while it runs) count the signal's own
 * weight.  Unlike setitimer(ITIMER_PROF) it is deleted at exec and does
 * not disturb a program's own ITIMER_PROF.
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

/* No per-thread object: threads get a slot, and with it a tick schedule
 * on their own CPU clock (threads.c), so that a process-wide signal, which
 * lands in whichever thread the kernel picks, accounts the ticks of the
 * thread that receives it, and the others' ticks wait for their own next
 * signal (or for the end).  Per-thread counts then follow thread CPU time. */
static int attach(struct profil_thread *t, bool inherited)
{
	(void)inherited;
	t->handle = -1;
	return 0;
}

static int detach(struct profil_thread *t)
{
	(void)t;
	return 0;
}

static int resignal(struct profil_thread *t, int sig)
{
	if (t || timer_id < 0)
		return 0;
	int r = profil__timer_resignal(&timer_id, CLOCK_PROCESS_CPUTIME_ID, 0, sig);
	if (r < 0)
		timer_id = -1;
	return r;
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
	.by_name = true,
	.probe = probe,
	.signal = signal_of,
	.start = start,
	.attach = attach,
	.detach = detach,
	.resignal = resignal,
	.stop = stop,
	.fork_child = fork_child,
	.classify = profil__timer_classify,
};
