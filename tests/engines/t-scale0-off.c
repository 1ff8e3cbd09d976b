/*
 * T09 [RT] scale 0 turns profiling off (glibc instead sends every tick to
 * counter 0: about 50 in 0.5 s).  First the engine is shown to count
 * (0.5 s of CPU at scale 2: T_COUNT's bound around CPU time x rate), then
 * profil(buf, 32, 0, 0) turns it off: no buffer is written during the next
 * 0.5 s.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	static unsigned short on[16], off[16];

	double t0 = t_proc_cpu();
	tp_profil_on(on, sizeof on, 0, 2);
	tp_burn(0.5);
	T_EQ(profil(off, 32, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	double cpu = t_proc_cpu() - t0;
	T_NOTE("cpu %.3f s", cpu);
	tp_note_stats();
	T_COUNT(on[0], cpu * profil_hz());
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
