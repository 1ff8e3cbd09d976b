/*
 * T35 atomic updates: 8 threads each inject 100000 single ticks into one
 * sprofil counter at the same time; the counter must be exactly 800000.
 * Once with 32-bit (PROF_UINT) and once with 64-bit (PROF_UINT64) counters.
 */
#include <pthread.h>
#include <sys/profil.h>

#include "family.h"

#define THREADS 8
#define TICKS   100000

static pthread_barrier_t start;

static void *injector(void *arg)
{
	uintptr_t pc = 0x10000 + (uintptr_t)arg * 64; /* all map to counter 0 */
	pthread_barrier_wait(&start);
	for (int i = 0; i < TICKS; i++)
		if (__profil_inject(pc, 1) != 0)
			return (void *)1;
	return NULL;
}

static void run(unsigned int flags)
{
	static union {
		uint32_t u32;
		uint64_t u64;
	} c;
	pthread_t t[THREADS];
	/* Scale 2 with a nonzero offset: an ordinary (coarse) region whose
	 * first counter covers 2^15 * E bytes, enough for every pc above. */
	struct prof p = { .pr_base = &c, .pr_size = flags == PROF_UINT ? 4 : 8,
			  .pr_off = 0x10000, .pr_scale = 2 };
	fam_manual();
	T_EQ(sprofil(&p, 1, NULL, flags), 0);
	T_EQ(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (uintptr_t i = 0; i < THREADS; i++)
		T_EQ(pthread_create(&t[i], NULL, injector, (void *)i), 0);
	for (int i = 0; i < THREADS; i++) {
		void *r;
		T_EQ(pthread_join(t[i], &r), 0);
		T_OK(r == NULL);
	}
	if (flags == PROF_UINT)
		T_EQ(c.u32, THREADS * TICKS);
	else
		T_EQ(c.u64, THREADS * TICKS);
}

static void uint32(void)
{
	run(PROF_UINT);
}

static void uint64(void)
{
	run(PROF_UINT64);
}

int main(void)
{
	fam_case("T35 PROF_UINT", uint32);
	fam_case("T35 PROF_UINT64", uint64);
	return fam_status();
}
