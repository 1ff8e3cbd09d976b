/*
 * T36 [RT] quiescence: when profil() returns from turning profiling off,
 * no handler is still writing the old buffer, even with other threads
 * burning CPU (and taking profiling signals) at that very moment.
 *   1. 100 cycles of on / 3 ms of CPU / off / munmap at once / 1 ms off: a
 *      late write would hit an unmapped page with the fault guard already
 *      gone, and a late profiling signal would find the program's default
 *      disposition back in place (the sampling signal's or, for perf's
 *      sigtrap variant, SIGTRAP's): either kills the process.  Afterwards
 *      each worker burns 0.25 s more of its own CPU.
 *   2. 20 cycles of on / off / snapshot, then 10 ms of each worker's CPU:
 *      the buffer must equal its snapshot.
 * 1000 Hz (profil_set_hz) puts many signals in flight around each switch.
 * The waits for the workers are measured on their CPU clocks, not the wall
 * clock: on a loaded machine a worker may not run at all for 10 ms.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define WORKERS 2

static _Atomic int stop;

static void *worker(void *arg)
{
	(void)arg;
	while (!stop)
		tp_spin(20000);
	return NULL;
}

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

static clockid_t clocks[WORKERS];

/* Sleep until every worker has burnt `sec` more seconds of its own CPU
 * (a minute of wall time at most, which only a stuck worker needs). */
static void workers_burn(double sec)
{
	double start[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		start[i] = t_cpu(clocks[i]);
	for (int ms = 0; ms < 60000; ms++) {
		int behind = 0;
		for (int i = 0; i < WORKERS; i++)
			behind += t_cpu(clocks[i]) - start[i] < sec;
		if (!behind)
			return;
		nap_ms(1);
	}
	T_FAIL("the workers burnt less than %g s of CPU in a minute", sec);
}

int main(void)
{
	pthread_t t[WORKERS];

	T_OK(profil_set_hz(1000) > 0);
	for (int i = 0; i < WORKERS; i++) {
		T_OK(pthread_create(&t[i], NULL, worker, NULL) == 0);
		T_OK(pthread_getcpuclockid(t[i], &clocks[i]) == 0);
	}

	unsigned long total = 0;
	for (int cycle = 0; cycle < 100; cycle++) {
		size_t page;
		unsigned short *buf = tp_page(&page);
		tp_profil_on(buf, page, 0, 2);
		tp_burn_thread(0.003);
		T_EQ(tp_profil_off(), 0);
		total += buf[0];
		T_OK(munmap(buf, page) == 0);
		nap_ms(1);
	}
	T_OK(total > 0);
	workers_burn(0.25);

	static unsigned short buf[64], snap[64];
	for (int cycle = 0; cycle < 20; cycle++) {
		tp_profil_on(buf, sizeof buf, 0, 2);
		tp_burn_thread(0.005);
		T_EQ(tp_profil_off(), 0);
		memcpy(snap, buf, sizeof buf);
		workers_burn(0.01);
		T_OK(memcmp(snap, buf, sizeof buf) == 0);
	}
	stop = 1;
	for (int i = 0; i < WORKERS; i++)
		T_OK(pthread_join(t[i], NULL) == 0);
	return 0;
}
