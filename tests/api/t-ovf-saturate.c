/* T17 [INJ] by default a 16-bit counter saturates at 65535 and profiling
 * stays on. */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[2] = { 65534, 0 };

	tp_manual();
	T_EQ(profil_overflow_policy(PROFIL_OVF_QUERY), PROFIL_OVF_SATURATE);
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	for (int i = 0; i < 3; i++)
		T_EQ(__profil_inject(0x100, 1), 0);
	T_EQ(buf[0], 65535);
	T_EQ(buf[1], 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.counted, 3); /* a saturated tick is still a counted tick */
	T_EQ(st.lost, 0);
	return 0;
}
