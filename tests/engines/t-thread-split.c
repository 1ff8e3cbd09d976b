/*
 * Two busy threads with a 2:1 split of CPU time (issue 8, item 13) get
 * their ticks in that proportion.  Threads A and B run at the same time,
 * each in its own function placed in its own section, A for 0.6 s and B
 * for 0.3 s of its own CPU time, profiled at 1 kHz with one sprofil region
 * per section.  Each region's count must be its thread's CPU time x rate
 * within 5 standard deviations, sqrt(E) (about 20 %), and A's share of the
 * two within 5 standard deviations of a binomial share, sqrt(p (1 - p) /
 * N), of A's share of the CPU time (about +-0.08 around 2/3).
 *
 * The per-thread engines sample each thread on its own clock.  The process
 * timer's signal goes to whichever thread the kernel picks, and its weight
 * mixes the expiries of both: before its ticks were accounted by each
 * thread's own schedule, A's share came out anywhere from 0.38 to 0.97.
 */
#include <math.h>
#include <pthread.h>
#include <sys/profil.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define HZ     1000
#define A_SECS 0.6
#define B_SECS 0.3

/* Start and end of each thread's code, from the linker. */
extern char __start_t_split_a[], __stop_t_split_a[], __start_t_split_b[], __stop_t_split_b[];

static double cpu_a, cpu_b;

/* Each loop reads its clock every ~0.1 ms, with the system call made from
 * the loop itself (t_cpu_here), so that every tick, also one delivered on
 * the return from the clock read, is the thread's own section's: a late
 * signal is delivered at the next return to user mode, and with the read
 * in libc a loaded run (load 12) put 70 of thread A's 600 ticks there. */
#define BURN(name, sec, seconds, out)                                                              \
	__attribute__((noinline, used, section(sec))) static void *name(void *arg)                 \
	{                                                                                          \
		double x = 1.0;                                                                    \
		while (t_cpu_here(CLOCK_THREAD_CPUTIME_ID) < (seconds))                            \
			for (int i = 0; i < 300000; i++)                                           \
				__asm__ volatile("" : "+x"(x));                                    \
		out = t_cpu_here(CLOCK_THREAD_CPUTIME_ID);                                         \
		return arg;                                                                        \
	}
BURN(burn_a, "t_split_a", A_SECS, cpu_a)
BURN(burn_b, "t_split_b", B_SECS, cpu_b)

static unsigned int sum(const unsigned int *c, size_t n)
{
	unsigned int s = 0;
	for (size_t i = 0; i < n; i++)
		s += c[i];
	return s;
}

int main(void)
{
	/* scale 0x10000: one 4-byte counter per 4 bytes of code. */
	/* A region's size is a whole number of counters (sprofil: EINVAL). */
	size_t la = (((size_t)(__stop_t_split_a - __start_t_split_a) + 3) & ~(size_t)3) + 4;
	size_t lb = (((size_t)(__stop_t_split_b - __start_t_split_b) + 3) & ~(size_t)3) + 4;
	unsigned int *ca = calloc(la / 4 + 1, 4), *cb = calloc(lb / 4 + 1, 4);
	T_OK(ca && cb);
	struct prof p[2] = {
		{ .pr_base = ca,
		  .pr_size = la,
		  .pr_off = (size_t)__start_t_split_a,
		  .pr_scale = 0x10000 },
		{ .pr_base = cb,
		  .pr_size = lb,
		  .pr_off = (size_t)__start_t_split_b,
		  .pr_scale = 0x10000 },
	};
	T_OK(profil_set_hz(HZ) > 0);
	if (sprofil(p, 2, NULL, PROF_UINT) != 0) {
		if (tp_engine_is("perf") && (errno == EACCES || errno == EPERM || errno == ENOENT))
			T_SKIP("perf engine cannot run here: %s", strerror(errno));
		T_FAIL("sprofil: %s", strerror(errno));
	}
	pthread_t a, b;
	T_OK(pthread_create(&a, NULL, burn_a, NULL) == 0);
	T_OK(pthread_create(&b, NULL, burn_b, NULL) == 0);
	T_OK(pthread_join(a, NULL) == 0);
	T_OK(pthread_join(b, NULL) == 0);
	T_EQ(sprofil(NULL, 0, NULL, 0), 0); /* off: what is owed is paid now */

	unsigned int na = sum(ca, la / 4 + 1), nb = sum(cb, lb / 4 + 1);
	double ea = cpu_a * HZ, eb = cpu_b * HZ, n = na + nb;
	double want = cpu_a / (cpu_a + cpu_b), share = n ? na / n : 0;
	double dev = 5 * sqrt(want * (1 - want) / (n ? n : 1));
	printf("%s: thread A %u ticks for %.3f s, B %u for %.3f s: A's share %.3f, want %.3f "
	       "+- %.3f\n",
	       tp_engine(), na, cpu_a, nb, cpu_b, share, want, dev);
	T_RANGE(na, ea - 5 * sqrt(ea), ea + 5 * sqrt(ea));
	T_RANGE(nb, eb - 5 * sqrt(eb), eb + 5 * sqrt(eb));
	T_RANGE(share, want - dev, want + dev);
	return 0;
}
