/*
 * T39 [RT] a classic buffer unmapped while profiling, with a second thread
 * burning too: the process lives, and profiling turns off (within
 * TP_EVENT_CPU seconds of CPU).  A new buffer can be installed afterwards
 * and counts.
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
	tp_skip_fault_path_under_tsan();
	size_t page;
	unsigned short *buf = tp_counting_page(&page);
	T_OK(munmap(buf, page) == 0);
	pthread_t t;
	T_OK(pthread_create(&t, NULL, worker, NULL) == 0);
	tp_burn_until_off();
	T_OK(pthread_join(t, NULL) == 0);

	static unsigned short again[4];
	tp_profil_on(again, sizeof again, 0, 2);
	tp_burn_until_counted(again);
	T_EQ(tp_profil_off(), 0);
	return 0;
}
