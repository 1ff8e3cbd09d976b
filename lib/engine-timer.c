/*
 * engine-timer.c - "thread-timer": one POSIX timer per thread on that
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
 * Timers are created with raw syscalls: glibc's timer_create may start a
 * helper thread for SIGEV_THREAD and is not async-signal-safe in general.
 */
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "engine.h"
#include "reserve.h"

static long period_ns;
static int signo;

int profil__timer_create(clockid_t clock, pid_t tid, int sig, int *id)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = tid ? SIGEV_THREAD_ID : SIGEV_SIGNAL;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_ptr = (void *)profil__cookie;
	sev._sigev_un._tid = tid;
	int kid;
	if (syscall(SYS_timer_create, clock, &sev, &kid) < 0)
		return -errno;
	*id = kid;
	return 0;
}

int profil__timer_arm(int id, long period_ns, long first_ns)
{
	struct itimerspec its;
	its.it_interval.tv_sec = period_ns / 1000000000L;
	its.it_interval.tv_nsec = period_ns % 1000000000L;
	its.it_value.tv_sec = first_ns / 1000000000L;
	its.it_value.tv_nsec = first_ns % 1000000000L;
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) < 0)
		return -errno;
	return 0;
}

int profil__timer_delete(int id)
{
	int r = syscall(SYS_timer_delete, id) < 0 ? -EBADF : 0;
	profil__reserve_give(PROFIL_RES_SIGQ);
	return r;
}

int profil__timer_resignal(int *id, clockid_t clock, pid_t tid, int sig)
{
	struct itimerspec off, left;
	memset(&off, 0, sizeof off);
	/* Disarming reads what was left: the new timer goes on from there. */
	if (syscall(SYS_timer_settime, *id, 0, &off, &left) < 0) {
		profil__reserve_give(PROFIL_RES_SIGQ);
		return -EBADF; /* the program deleted it */
	}
	syscall(SYS_timer_delete, *id);
	int nid, r = profil__timer_create(clock, tid, sig, &nid);
	if (r < 0) {
		profil__reserve_give(PROFIL_RES_SIGQ);
		return r;
	}
	if (!left.it_value.tv_sec && !left.it_value.tv_nsec)
		left.it_value = left.it_interval;
	if (syscall(SYS_timer_settime, nid, 0, &left, NULL) < 0) {
		r = -errno;
		profil__timer_delete(nid);
		return r;
	}
	*id = nid;
	return 0;
}

int profil__timer_probe(clockid_t clock, pid_t tid, int sig, const char *what, char *why,
			size_t len)
{
	int id, r = profil__timer_create(clock, tid, sig, &id);
	if (r < 0) {
		profil__strlcat(why, len, "timer_create on ");
		profil__strlcat(why, len, what);
		profil__strlcat(why, len, ": ");
		profil__strlcat(why, len, profil__errname(-r));
		return r;
	}
	syscall(SYS_timer_delete, id);
	return 0;
}

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

/* Shared with engine-ptimer.c: both engines' signals are SI_TIMER with our
 * cookie, so either classifier recognises both (harmless: same weight). */
bool profil__timer_classify(int sig, const siginfo_t *si, unsigned long *weight)
{
	(void)sig;
	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != (void *)profil__cookie)
		return false;
	*weight = 1 + (unsigned long)(si->si_overrun > 0 ? si->si_overrun : 0);
	return true;
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
