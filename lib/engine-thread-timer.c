/*
 * engine-thread-timer.c - "thread-timer": one POSIX timer per thread on that
 * thread's own CPU clock, delivering a thread-directed signal.
 *
 * Why this is the default: every thread is sampled on its own CPU time (no
 * process-wide signal coalescing, no bias towards one thread), it needs no
 * file descriptor and no perf permission (works in containers and under
 * seccomp), a blocked thread is never interrupted, and POSIX timers are
 * deleted at exec with their queued signals flushed.
 *
 * The kernel checks CPU timers at its tick (CONFIG_HZ), so above that rate
 * expiries are folded into the overrun count; each signal therefore weighs
 * 1 + si_overrun ticks, which keeps counts equal to CPU time x rate at any
 * rate (measured in ../shared/research/engines.md: capture 0.999 at 10 kHz).
 *
 * The timers themselves are made by timer.c, shared with process-timer.
 */
#include <time.h>

#include "engine.h"
#include "reserve.h"

static long period_ns;
static int signo;

static int probe(const struct profil_run *run, char *why, size_t len)
{
	pid_t tid = profil__gettid();
	return profil__timer_probe(profil_thread_clock(tid), tid, run->signo,
				   "the thread CPU clock", why, len);
}

static int signal_of(const struct profil_run *run)
{
	return run->signo;
}

static int start(const struct profil_run *run)
{
	period_ns = 1000000000L / (long)run->hz;
	signo = run->signo;
	return 0;
}

static int attach(struct profil_thread *t, bool inherited)
{
	(void)inherited; /* POSIX timers are never inherited */
	int id, r = profil__reserve_take(PROFIL_RES_SIGQ);
	if (r < 0)
		return r;
	r = profil__timer_create(profil_thread_clock(t->tid), t->tid, signo, &id);
	if (r < 0) {
		profil__reserve_give(PROFIL_RES_SIGQ);
		return r;
	}
	/* The first expiry is the next tick of the thread's schedule, whose
	 * phase is random (threads.c): short-lived threads are then sampled
	 * in proportion to their CPU time instead of never reaching a full
	 * first period (the Go runtime draws its first expiry the same way),
	 * and the signals fall exactly on the ticks the schedule counts. */
	r = profil__timer_arm(id, period_ns, (long)t->arm_ns);
	if (r < 0) {
		profil__timer_delete(id);
		return r;
	}
	t->handle = id;
	return 0;
}

/* The kernel hands out timer ids cyclically per process, so a timer the
 * program deleted under us (timer_delete on an id it guessed) leaves an id
 * that no new timer takes for 2^31 creations: deleting it again fails
 * instead of deleting the program's timer. */
static int detach(struct profil_thread *t)
{
	return profil__timer_delete((int)t->handle);
}

static int resignal(struct profil_thread *t, int sig)
{
	if (!t) {
		signo = sig;
		return 0;
	}
	int id = (int)t->handle,
	    r = profil__timer_resignal(&id, profil_thread_clock(t->tid), t->tid, sig);
	t->handle = id;
	return r;
}

static void stop(void)
{
}

static void fork_child(void)
{
	/* POSIX timers are not inherited by fork: nothing to forget. */
}

const struct profil_engine profil__engine_thread_timer = {
	.name = "thread-timer",
	.subtick = false,
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
