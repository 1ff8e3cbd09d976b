/*
 * T19 [INJ] the stop policy (Solaris): a tick that would take a counter above
 * 32767 leaves it unchanged and turns all profiling off.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[2] = { 32766, 0 };

	tp_manual();
	T_EQ(profil_overflow_policy(PROFIL_OVF_STOP), PROFIL_OVF_SATURATE);
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	T_EQ(__profil_inject(0x100, 1), 0);
	T_EQ(buf[0], 32767);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	T_EQ(__profil_inject(0x100, 1), 0); /* was active; it stops here */
	T_EQ(buf[0], 32767);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(__profil_inject(0x100, 1), -1);
	T_EQ(buf[0], 32767);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.counted, 1);
	T_EQ(st.lost, 1);

	/* A weight that would cross the limit stops too, even from below. */
	buf[0] = 32760;
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	T_EQ(__profil_inject(0x100, 7), 0);
	T_EQ(buf[0], 32767);
	T_EQ(__profil_inject(0x100, 100), 0);
	T_EQ(buf[0], 32767);
	T_EQ(profil_state(), PROFIL_OFF);
	/* After an automatic stop, a new call starts afresh. */
	buf[0] = 0;
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	T_EQ(__profil_inject(0x100, 1), 0);
	T_EQ(buf[0], 1);
	return 0;
}
