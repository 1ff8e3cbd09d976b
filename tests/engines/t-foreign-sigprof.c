/*
 * T37 [RT] a program that uses SIGPROF itself (its own handler and
 * setitimer(ITIMER_PROF) at 50 Hz) keeps receiving its signals while
 * profil() runs, profil still counts, none of the library's signals reach
 * the program's handler, and after profiling stops the program's handler
 * is installed again and still receives its signals.
 * Bounds: T_COUNT's on profil's count (CPU time x rate).  The program's
 * own count gets [0.5, 2] x nominal, or 5 sd if that is wider:
 * ITIMER_PROF runs on the kernel's tick-based CPU accounting
 * (CONFIG_TICK_CPU_ACCOUNTING), which charges whole ticks, and on this
 * 2-core machine under load it gave up to 1.5 x the precise CPU time with
 * no profiling at all (74 signals per CPU second at 50 Hz).  The library's
 * timers use the precise clocks.  The checks that signals still come wait
 * for one, up to TP_EVENT_CPU seconds of CPU.
 */
#include <math.h>
#include <sys/time.h>
#include <unistd.h>

#include "helpers/tprof.h"

static _Atomic int kernel_sigs, other_sigs;

static int more_sigs(void *before)
{
	return kernel_sigs > *(int *)before;
}

static void app_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si->si_code == SI_KERNEL)
		kernel_sigs++;
	else
		other_sigs++;
}

static void itimer(long usec)
{
	struct itimerval it = { { 0, usec }, { 0, usec } };
	T_OK(setitimer(ITIMER_PROF, &it, NULL) == 0);
}

int main(void)
{
	static unsigned short buf[4];
	struct sigaction sa, now;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = app_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	T_OK(sigaction(SIGPROF, &sa, NULL) == 0);
	itimer(20000);
	int none = 0;
	tp_burn_until(CLOCK_PROCESS_CPUTIME_ID, TP_EVENT_CPU, more_sigs, &none);
	T_OK(kernel_sigs > 0); /* the program's timer works on its own */

	int before = kernel_sigs;
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	tp_burn(1.0);
	T_EQ(tp_profil_off(), 0);
	double cpu = t_proc_cpu() - t0, own = cpu * 50;
	T_NOTE("cpu %.3f s", cpu);
	T_RANGE(kernel_sigs - before, fmin(own * 0.5, own - t_count_dev(own)),
		fmax(own * 2, own + t_count_dev(own)));
	T_COUNT(buf[0], cpu * profil_hz());
	T_EQ(other_sigs, 0);

	T_OK(sigaction(SIGPROF, NULL, &now) == 0);
	T_OK(now.sa_sigaction == app_handler);
	T_OK(now.sa_flags & SA_SIGINFO);
	T_OK(sigismember(&now.sa_mask, SIGUSR2));
	before = kernel_sigs;
	unsigned short snap = buf[0];
	tp_burn_until(CLOCK_PROCESS_CPUTIME_ID, TP_EVENT_CPU, more_sigs, &before);
	T_OK(kernel_sigs - before > 0);
	T_EQ(buf[0], snap);
	T_EQ(other_sigs, 0);
	itimer(0);
	return 0;
}
