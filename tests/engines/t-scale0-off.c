/*
 * T09 [RT] scale 0 turns profiling off (glibc instead sends every tick to
 * counter 0: about 50 in 0.5 s).  First the engine is shown to count
 * (0.3 s of CPU at scale 2: at least one count, at most 25 % above CPU time
 * x rate; the rate itself is t-rate's business, and over 0.3 s the thread
 * timer may still owe several ticks on a loaded machine), then
 * profil(buf, 32, 0, 0) turns it off: no buffer is written during the next
 * 0.5 s.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	static unsigned short on[16], off[16];

	tp_profil_on(on, sizeof on, 0, 2);
	tp_burn(0.3);
	T_RANGE(on[0], 1, 0.3 * profil_hz() * 1.25);

	T_EQ(profil(off, 32, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	unsigned short snap = on[0];
	tp_burn(0.5);
	T_EQ(on[0], snap);
	for (int i = 0; i < 16; i++)
		T_EQ(off[i], 0);
	/* From the off state, too. */
	T_EQ(profil(off, 32, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	tp_burn(0.1);
	T_EQ(off[0], 0);
	return 0;
}
