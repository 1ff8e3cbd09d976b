/*
 * The profiling handler preserves errno on its fault path too: the counter
 * buffer is made read-only while profiling runs at 1000 Hz, so the next
 * tick's update faults inside the handler and the fault guard recovers (and
 * profiling stops).  The errno loop of t-errno-handler runs until
 * profiling is off (at most TP_EVENT_CPU seconds of CPU); errno must never
 * have changed under it.
 */
#include "errno-loop.h"

static int profiling_off(void)
{
	return profil_state() == PROFIL_OFF;
}

int main(void)
{
	tp_skip_fault_path_under_tsan();
	T_OK(profil_set_hz(1000) > 0);
	size_t page;
	unsigned short *ro = tp_page(&page);
	tp_profil_on(ro, page, 0, 2);
	T_OK(mprotect(ro, page, PROT_READ) == 0);
	double cpu = errno_loop(9000, TP_EVENT_CPU, profiling_off);
	T_NOTE("cpu %.3f s", cpu);
	tp_note_stats();
	T_EQ(profil_state(), PROFIL_OFF);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_OK(st.lost >= 1);
	T_EQ(changed, 0);
	return 0;
}
