/*
 * T38 [RT] a classic buffer made read-only while profiling: the first
 * failed update turns profiling off and the process lives on; once write
 * access is back, the counters stay as they were (profiling is really off,
 * not paused).  A later profil() call starts afresh.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	tp_skip_fault_path_under_tsan();
	size_t page;
	unsigned short *buf = tp_counting_page(&page);
	T_OK(mprotect(buf, page, PROT_READ) == 0);
	tp_burn_until_off();
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_OK(st.lost >= 1);

	T_OK(mprotect(buf, page, PROT_READ | PROT_WRITE) == 0);
	unsigned short snap = buf[0];
	tp_burn(0.5);
	T_EQ(buf[0], snap);
	T_EQ(profil_state(), PROFIL_OFF);

	buf[0] = 0;
	tp_profil_on(buf, page, 0, 2);
	tp_burn_until_counted(buf);
	T_EQ(tp_profil_off(), 0);
	return 0;
}
