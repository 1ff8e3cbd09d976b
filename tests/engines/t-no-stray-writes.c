/*
 * T86 [RT] no stray writes after off: once profil() has turned profiling
 * off, the old buffer is never written, even by a signal already on its
 * way.  The buffer is refilled with a pattern right after the off call and
 * must keep it through 0.5 s of CPU.  The histogram covers the first 256
 * bytes of the burn loop (scale 0x8000: 4 bytes per counter), so the ticks
 * spread over several counters.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	static unsigned short buf[64];

	tp_profil_on(buf, sizeof buf, (size_t)tp_spin, 0x8000);
	tp_burn(0.2);
	unsigned sum = 0;
	for (int i = 0; i < 64; i++)
		sum += buf[i];
	T_RANGE(sum, 1, 0.2 * profil_hz() * 1.25);
	T_EQ(tp_profil_off(), 0);
	for (int i = 0; i < 64; i++)
		buf[i] = 0xBEEF;
	tp_burn(0.5);
	for (int i = 0; i < 64; i++)
		T_EQ(buf[i], 0xBEEF);
	return 0;
}
