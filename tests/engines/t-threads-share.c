/*
 * Per-thread attribution.  Two threads burn their own CPU time in two
 * different hot functions, 1.0 s in hot_a and 0.5 s in hot_b, while main
 * sleeps in pthread_join, at 1000 Hz (profil_set_hz: more samples, so
 * tighter statistical bounds for the same CPU time).  Each function lives
 * in its own section, so its exact address range is known (__start_/__stop_
 * symbols), and one histogram at scale 0x10000 covers both.
 *
 * What must hold, and the bounds:
 *   - the total number of ticks follows process CPU time x rate (every
 *     engine weights its signals by their overruns): T_COUNT;
 *   - nearly all of them are in the two functions (>= 90 %: the rest is
 *     thread start and exit; the loops read their clock with t_cpu_here, so
 *     the clock reads are theirs);
 *   - per-thread engines (thread-timer, perf) sample each thread on its own
 *     CPU clock, so each function's count follows its thread's CPU time x
 *     rate: T_COUNT for each.  (A thread timer is only checked at kernel
 *     ticks that find its thread running, so on a loaded machine a thread
 *     can end owing ticks; the library credits them when the thread exits.)
 *   - process-timer has one process-wide timer whose signal the kernel
 *     gives to a thread of its choice (since Linux 6.4, preferably the one
 *     running when the timer expired; before, any thread): attribution is
 *     only statistical, and one signal may carry overrun ticks consumed by
 *     the other thread.  For it only the total and a share within 0.2 of
 *     the CPU share (well outside chance for a correct kernel, and still
 *     excluding "everything to one thread") are required.
 */
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

/* The same loop twice, in two sections. */
#define HOT(name)                                                                       \
	__attribute__((noinline, section("tshare_" #name))) static void name(double sec) \
	{                                                                               \
		double end = t_cpu_here(CLOCK_THREAD_CPUTIME_ID) + sec;                 \
		while (t_cpu_here(CLOCK_THREAD_CPUTIME_ID) < end) {                     \
			unsigned long x = 0;                                            \
			for (unsigned long i = 0; i < 50000; i++) {                     \
				x += i ^ (x >> 3);                                      \
				__asm__ volatile("" : "+r"(x));                         \
			}                                                               \
		}                                                                       \
	}
HOT(hot_a)
HOT(hot_b)
extern char __start_tshare_hot_a[], __stop_tshare_hot_a[];
extern char __start_tshare_hot_b[], __stop_tshare_hot_b[];

struct job {
	void (*fn)(double);
	double sec, cpu;
};

static void *worker(void *p)
{
	struct job *j = p;
	double t0 = t_thread_cpu();
	j->fn(j->sec);
	j->cpu = t_thread_cpu() - t0;
	return NULL;
}

static unsigned long hits(const unsigned short *buf, uintptr_t off, const char *lo,
			  const char *hi)
{
	unsigned long n = 0;
	for (uintptr_t pc = (uintptr_t)lo & ~(uintptr_t)1; pc < (uintptr_t)hi; pc += 2)
		n += buf[(pc - off) / 2];
	return n;
}

int main(void)
{
	uintptr_t lo = (uintptr_t)__start_tshare_hot_a, hi = (uintptr_t)__stop_tshare_hot_a;
	if ((uintptr_t)__start_tshare_hot_b < lo)
		lo = (uintptr_t)__start_tshare_hot_b;
	if ((uintptr_t)__stop_tshare_hot_b > hi)
		hi = (uintptr_t)__stop_tshare_hot_b;
	lo &= ~(uintptr_t)1;
	size_t size = (hi - lo + 2) & ~(size_t)1; /* scale 0x10000: 1 byte per byte */
	T_OK(size < (1 << 20));
	unsigned short *buf = calloc(size / 2, 2);
	T_OK(buf != NULL);

	struct job a = { hot_a, 1.0, 0 }, b = { hot_b, 0.5, 0 };
	pthread_t ta, tb;
	T_OK(profil_set_hz(1000) > 0);
	double t0 = t_proc_cpu();
	tp_profil_on(buf, size, lo, 0x10000);
	T_OK(pthread_create(&ta, NULL, worker, &a) == 0);
	T_OK(pthread_create(&tb, NULL, worker, &b) == 0);
	T_OK(pthread_join(ta, NULL) == 0);
	T_OK(pthread_join(tb, NULL) == 0);
	T_EQ(tp_profil_off(), 0);
	double cpu = t_proc_cpu() - t0, hz = 1000;

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	unsigned long ha = hits(buf, lo, __start_tshare_hot_a, __stop_tshare_hot_a);
	unsigned long hb = hits(buf, lo, __start_tshare_hot_b, __stop_tshare_hot_b);
	T_NOTE("cpu %.3f s (thread a %.3f s, b %.3f s); hot_a %lu, hot_b %lu", cpu, a.cpu, b.cpu,
	       ha, hb);
	tp_note_stats();
	T_COUNT(st.ticks, cpu * hz);
	T_OK(ha + hb >= st.ticks * 0.9); /* nearly all CPU is in the hot loops */

	if (tp_engine_is("process-timer")) {
		double share = (double)ha / (double)(ha + hb), want = a.cpu / (a.cpu + b.cpu);
		T_RANGE(share, want - 0.2, want + 0.2);
		return 0;
	}
	T_COUNT(ha, a.cpu * hz);
	T_COUNT(hb, b.cpu * hz);
	return 0;
}
