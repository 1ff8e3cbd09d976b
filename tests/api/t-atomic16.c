/*
 * T35, classic 16-bit variant [INJ]: 8 threads inject 8000 single ticks each,
 * concurrently, into the same 16-bit counter (scale 2): every increment
 * must survive, so the counter is exactly 64000 (a plain ++ loses some).
 * The threads start together on a barrier to maximise contention.
 */
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define THREADS 8
#define EACH    8000

static pthread_barrier_t go;

static void *injector(void *arg)
{
	uintptr_t pc = (uintptr_t)arg;
	pthread_barrier_wait(&go);
	for (int i = 0; i < EACH; i++)
		if (__profil_inject(pc + (uintptr_t)i, 1) != 0)
			return (void *)1;
	return NULL;
}

int main(void)
{
	static unsigned short buf[4];
	pthread_t t[THREADS];

	tp_manual();
	T_EQ(profil(buf, sizeof buf, 0x1000, 2), 0);
	T_OK(pthread_barrier_init(&go, NULL, THREADS) == 0);
	for (int i = 0; i < THREADS; i++)
		T_OK(pthread_create(&t[i], NULL, injector, (void *)(uintptr_t)(0x1000 + i)) == 0);
	for (int i = 0; i < THREADS; i++) {
		void *r;
		T_OK(pthread_join(t[i], &r) == 0);
		T_OK(r == NULL);
	}
	T_EQ(buf[0], THREADS * EACH);
	T_EQ(buf[1] + buf[2] + buf[3], 0);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.counted, THREADS * EACH);
	return 0;
}
