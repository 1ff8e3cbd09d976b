/*
 * T34 [RT] threads are summed: two threads burn 0.5 s of their own CPU
 * each while main sleeps in pthread_join; the shared counter holds the
 * process's CPU time x rate (100 at 100 Hz), T_COUNT.
 */
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

static void *worker(void *arg)
{
	(void)arg;
	tp_burn_thread(0.5);
	return NULL;
}

int main(void)
{
	static unsigned short buf[4];
	pthread_t t[2];

	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	for (int i = 0; i < 2; i++)
		T_OK(pthread_create(&t[i], NULL, worker, NULL) == 0);
	for (int i = 0; i < 2; i++)
		T_OK(pthread_join(t[i], NULL) == 0);
	T_EQ(tp_profil_off(), 0);
	double cpu = t_proc_cpu() - t0;
	T_NOTE("cpu %.3f s", cpu);
	tp_note_stats();
	T_COUNT(buf[0], cpu * profil_hz());
	return 0;
}
