/*
 * T25 [RT] the base rate: scale 2 and offset 0 catch every pc, so 2 s of
 * CPU give 2 x profil_hz() counts (200 at the default 100 Hz), within
 * T_COUNT's 5 standard deviations of the CPU time measured x rate (each
 * engine's signals are weighted by their overruns, so the total follows
 * CPU time even where the kernel delivers fewer signals).  Every tick is
 * counted: the statistics agree with the counter.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	static unsigned short buf[4];

	T_EQ(profil_hz(), sysconf(_SC_CLK_TCK));
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	tp_burn(2.0);
	T_EQ(tp_profil_off(), 0);
	double cpu = t_proc_cpu() - t0;
	T_NOTE("cpu %.3f s", cpu);
	tp_note_stats();
	T_COUNT(buf[0], cpu * profil_hz());

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.counted, buf[0]);
	T_EQ(st.ticks, st.counted);
	T_EQ(st.outside + st.lost, 0);
	T_OK(st.signals >= 1 && st.signals <= st.ticks);
	if (!tp_engine_is("auto"))
		T_OK(strcmp(st.engine, tp_engine()) == 0);
	return 0;
}
