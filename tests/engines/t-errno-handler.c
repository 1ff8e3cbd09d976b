/*
 * The profiling handler preserves errno.  Two threads (main and one more)
 * each spend 0.5 s of their own CPU in a loop that stores a changing value
 * in errno, spins a moment (the window in which a signal lands), and checks
 * that errno still holds it, while profiling runs at 1000 Hz
 * (profil_set_hz), i.e. hundreds of handler runs per thread.  Then the
 * same through the fault path: the counter buffer is made read-only, so
 * the next tick's update faults inside the handler and the fault guard
 * recovers (and profiling stops); errno must survive that too.
 */
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

static _Atomic long changed;

/* Spin with errno set; returns how many checks were made. */
static long errno_loop(int base, double sec, int (*until)(void))
{
	double end = t_thread_cpu() + sec;
	long checks = 0;
	while (t_thread_cpu() < end && !(until && until())) {
		for (int i = 0; i < 1000; i++, checks++) {
			int v = base + (i & 0xFFF);
			errno = v;
			for (int k = 0; k < 50; k++)
				__asm__ volatile("" ::: "memory");
			if (errno != v)
				changed++;
		}
	}
	return checks;
}

static void *other(void *arg)
{
	(void)arg;
	errno_loop(7000, 0.5, NULL);
	return NULL;
}

static int profiling_off(void)
{
	return profil_state() == PROFIL_OFF;
}

int main(void)
{
	static unsigned short buf[4];

	T_OK(profil_set_hz(1000) > 0);
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	pthread_t t;
	T_OK(pthread_create(&t, NULL, other, NULL) == 0);
	errno_loop(3000, 0.5, NULL);
	T_OK(pthread_join(t, NULL) == 0);
	T_EQ(tp_profil_off(), 0);
	double cpu = t_proc_cpu() - t0;
	T_EQ(changed, 0);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_OK(st.signals >= 100); /* the handler really ran, often */
	TP_NEAR(st.ticks, cpu * 1000, 0.25);

	/* The fault path. */
	size_t page;
	unsigned short *ro = tp_page(&page);
	tp_profil_on(ro, page, 0, 2);
	T_OK(mprotect(ro, page, PROT_READ) == 0);
	errno_loop(9000, 1.0, profiling_off);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(profil_stats(&st), 0);
	T_OK(st.lost >= 1);
	T_EQ(changed, 0);
	return 0;
}
