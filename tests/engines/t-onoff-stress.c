/*
 * Turning profiling on and off (and replacing it) in a tight loop cannot
 * deadlock against threads that are inside malloc/free or inside
 * pthread_create/pthread_join (the library wraps pthread_create and takes
 * its control lock on thread start and exit).  Three workers run
 * throughout: two malloc/free loops (small sizes and sizes above glibc's
 * mmap threshold) and one that creates and joins threads which themselves
 * allocate.  The main thread switches profiling
 *   1. as fast as it can for 0.5 s of its CPU (hunting for a deadlock); at
 *      this rate the switching thread holds the control lock nearly all the
 *      time, and thread creation may be starved while it lasts (the lock
 *      and the creation handshake spin with sched_yield and are not fair),
 *      so progress is required only once the switching stops: every worker
 *      must then go on;
 *   2. with 0.5 ms of its own CPU between switches for 0.5 s of its CPU:
 *      every worker must make progress meanwhile.
 * Durations are the main thread's CPU time, not wall time, so a loaded
 * machine only makes the test slower.  A watchdog thread fails the test if
 * neither the switching nor the thread creation moved for 60 s (a
 * deadlock), rather than leaving it to the runner's timeout.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "helpers/tprof.h"

static _Atomic int stop, done;
static _Atomic long allocs, creates, cycles;

static void *allocator(void *arg)
{
	size_t big = (size_t)(uintptr_t)arg;
	unsigned long r = 12345 + big;
	while (!stop) {
		void *p[16];
		for (int i = 0; i < 16; i++) {
			r = r * 6364136223846793005u + 1442695040888963407u;
			p[i] = malloc(big ? 128 * 1024 + (r >> 40) % 65536 : 1 + (r >> 40) % 512);
			T_OK(p[i] != NULL);
			*(volatile char *)p[i] = 1;
		}
		for (int i = 0; i < 16; i++)
			free(p[i]);
		allocs += 16;
	}
	return NULL;
}

static void *leaf(void *arg)
{
	(void)arg;
	free(malloc(100));
	return NULL;
}

static void *spawner(void *arg)
{
	(void)arg;
	while (!stop) {
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			T_OK(pthread_create(&t[i], NULL, leaf, NULL) == 0);
		for (int i = 0; i < 2; i++)
			T_OK(pthread_join(t[i], NULL) == 0);
		creates += 2;
	}
	return NULL;
}

/* The lock-taking work: switches and thread creations. */
static long moves(void)
{
	return cycles + creates;
}

static void *watchdog(void *arg)
{
	(void)arg;
	long last = moves();
	for (int still = 0; !done; still++) {
		struct timespec ts = { 0, 100000000L };
		nanosleep(&ts, NULL);
		if (moves() != last)
			last = moves(), still = 0;
		if (still == 600) {
			static const char msg[] = "t-onoff-stress: no progress for 60 s: deadlock\n";
			(void)!write(2, msg, sizeof msg - 1);
			_exit(1);
		}
	}
	return NULL;
}

static unsigned short a[64], b[64];

/* Switch profiling for `sec` seconds of this thread's CPU time, spinning
 * `gap` seconds of CPU between switches; returns the number of
 * on/replace/off cycles. */
static long switching(double sec, double gap)
{
	long n = 0;
	double end = t_thread_cpu() + sec;
	while (t_thread_cpu() < end) {
		tp_profil_on(a, sizeof a, 0, 2);
		tp_burn_thread(gap);
		tp_profil_on(b, sizeof b, 0, 2); /* replace while on */
		tp_burn_thread(gap);
		T_EQ(tp_profil_off(), 0);
		tp_burn_thread(gap);
		n++;
		cycles++;
	}
	return n;
}

/* Wait (the watchdog bounds it) until every worker went on. */
static void progress(void)
{
	long a0 = allocs, c0 = creates;
	while (allocs < a0 + 1000 || creates < c0 + 10) {
		struct timespec ts = { 0, 1000000L };
		nanosleep(&ts, NULL);
	}
}

int main(void)
{
	pthread_t dog, w[3];

	T_OK(pthread_create(&dog, NULL, watchdog, NULL) == 0);
	T_OK(pthread_create(&w[0], NULL, allocator, (void *)0) == 0);
	T_OK(pthread_create(&w[1], NULL, allocator, (void *)1) == 0);
	T_OK(pthread_create(&w[2], NULL, spawner, NULL) == 0);

	T_OK(switching(0.5, 0) >= 20);
	progress();

	long a0 = allocs, c0 = creates;
	T_OK(switching(0.5, 0.0005) >= 20);
	T_OK(allocs > a0);
	T_OK(creates > c0);
	progress();
	stop = 1;
	for (int i = 0; i < 3; i++)
		T_OK(pthread_join(w[i], NULL) == 0);
	done = 1;
	T_OK(pthread_join(dog, NULL) == 0);
	T_EQ(profil_state(), PROFIL_OFF);
	return 0;
}
