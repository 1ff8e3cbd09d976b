/*
 * timer.c - the POSIX timers of the two timer engines (thread-timer,
 * engine-thread-timer.c, and process-timer, engine-process-timer.c):
 * create, arm, move to another signal, delete, probe, and recognise their
 * signals.
 *
 * Timers are created with raw syscalls: glibc's timer_create may start a
 * helper thread for SIGEV_THREAD and is not async-signal-safe in general.
 */
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "engine.h"
#include "reserve.h"

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

/* Both timer engines' signals are SI_TIMER with our cookie, so either
 * engine's classifier recognises both (harmless: same weight). */
bool profil__timer_classify(int sig, const siginfo_t *si, unsigned long *weight)
{
	(void)sig;
	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != (void *)profil__cookie)
		return false;
	*weight = 1 + (unsigned long)(si->si_overrun > 0 ? si->si_overrun : 0);
	return true;
}
