/*
 * pcsample on the real timer (default engine, 100 Hz base rate):
 * T76 basic: 0.5 s of CPU in hot stores k pcs, k within T_COUNT's bound
 *     around the CPU time x rate, and at least 90 % of them lie inside
 *     hot's code;
 * T77 buffer full: capacity 20 followed by a guard, hot until the state is
 *     OFF (at most TP_EVENT_CPU seconds): the next call returns exactly 20
 *     and the guard is untouched.
 */
#include <pcsample.h>

#include "family.h"

static void t76(void)
{
	static uintptr_t s[1000];
	double t0 = t_proc_cpu();
	T_EQ(pcsample(s, 1000), 0);
	hot(0.5);
	long k = pcsample(s, 0);
	double cpu = t_proc_cpu() - t0;
	T_NOTE("cpu %.3f s", cpu);
	T_COUNT(k, cpu * profil_hz());
	long in = 0;
	for (long i = 0; i < k; i++)
		in += fam_in_hot(s[i]);
	if (in * 10 < k * 9)
		T_FAIL("only %ld of %ld samples inside hot [%p, %p)", in, k,
		       (const void *)__start_fam_hot, (const void *)__stop_fam_hot);
}

static void t77(void)
{
	static uintptr_t s[20 + 16];
	for (int i = 20; i < 36; i++)
		s[i] = 0xdeadbeef;
	T_EQ(pcsample(s, 20), 0);
	T_EQ(profil_state(), PROFIL_PCSAMPLE);
	for (int i = 0; i < 100 && profil_state() != PROFIL_OFF; i++)
		hot(0.1);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(pcsample(s, 0), 20);
	for (int i = 20; i < 36; i++)
		T_EQ(s[i], 0xdeadbeef);
	for (int i = 0; i < 20; i++)
		T_OK(s[i] != 0);
}

int main(void)
{
	fam_case("T76 basic", t76);
	fam_case("T77 buffer full", t77);
	return fam_status();
}
