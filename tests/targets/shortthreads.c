/*
 * shortthreads - a target for the external sampler's tests: many threads,
 * each shorter than a sample period.  Built without libprofil.
 *
 *   shortthreads ROUNDS THREADS MICROSECONDS
 *
 * ROUNDS times, THREADS threads (at most 64) are created, each runs
 * short_work for MICROSECONDS of its own CPU time, and all are joined.
 * The clock is read only every 20000 iterations, so the threads' time is
 * user time, not the clock's system calls.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long budget_us;
static volatile double sink;

__attribute__((noinline)) static void *short_work(void *arg)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	double x = 0;
	do {
		for (int i = 0; i < 20000; i++)
			x += i * 0.5;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < budget_us);
	sink = x;
	return arg;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int rounds = atoi(argv[1]), n = atoi(argv[2]);
	budget_us = atol(argv[3]);
	if (n > 64)
		n = 64;
	pthread_t th[64];
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++)
			if (pthread_create(&th[i], NULL, short_work, NULL) != 0)
				return 1;
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	}
	return 0;
}
