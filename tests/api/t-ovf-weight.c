/*
 * T20 [INJ] one signal can stand for several ticks (timer overruns): the
 * weight is added at once, under the policy in force.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[2] = { 65533, 0 };

	tp_manual();
	T_EQ(profil(buf, sizeof buf, 0, 2), 0); /* saturate */
	T_EQ(__profil_inject(0x100, 5), 0);
	T_EQ(buf[0], 65535);
	buf[0] = 10;
	T_EQ(__profil_inject(0x100, 5), 0);
	T_EQ(buf[0], 15);

	T_EQ(profil_overflow_policy(PROFIL_OVF_WRAP), PROFIL_OVF_SATURATE);
	buf[0] = 10;
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	T_EQ(__profil_inject(0x100, 5), 0);
	T_EQ(buf[0], 15);
	buf[0] = 65533;
	T_EQ(__profil_inject(0x100, 5), 0);
	T_EQ(buf[0], 2);
	T_EQ(__profil_inject(0x100, 65536 * 3 + 4), 0);
	T_EQ(buf[0], 6);

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.ticks, 4 * 5 + 65536 * 3 + 4); /* one run: replacing does not reset */
	T_EQ(st.counted, st.ticks);
	return 0;
}
