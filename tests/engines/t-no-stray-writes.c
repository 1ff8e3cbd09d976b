/*
 * T86 [RT] no stray writes after off: once profil() has turned profiling
 * off, the old buffer is never written, even by a signal already on its
 * way.  The buffer is refilled with a pattern right after the off call and
 * must keep it through 0.5 s of CPU.  The histogram covers the first 256
 * bytes of the burn loop (scale 0x8000: 4 bytes per counter), so the ticks
 * spread over several counters; profiling runs until they hold a count,
 * and no more than the CPU time allows (T_COUNT_MAX).
 */
#include <unistd.h>

#include "helpers/tprof.h"

static unsigned sum(const unsigned short *buf)
{
	unsigned s = 0;
	for (int i = 0; i < 64; i++)
		s += buf[i];
	return s;
}

static int any_count(void *buf)
{
	return sum(buf) != 0;
}

int main(void)
{
	static unsigned short buf[64];

	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, (size_t)tp_spin, 0x8000);
	tp_burn_until(CLOCK_PROCESS_CPUTIME_ID, TP_EVENT_CPU, any_count, buf);
	T_EQ(tp_profil_off(), 0);
	T_OK(any_count(buf));
	T_COUNT_MAX(sum(buf), (t_proc_cpu() - t0) * profil_hz());
	for (int i = 0; i < 64; i++)
		buf[i] = 0xBEEF;
	tp_burn(0.5);
	for (int i = 0; i < 64; i++)
		T_EQ(buf[i], 0xBEEF);
	return 0;
}
