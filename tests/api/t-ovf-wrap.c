/* T18 [INJ] the wrap policy adds modulo 2^16; the policy in force when a
 * configuration is installed is the one it keeps. */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[2] = { 65534, 0 };

	tp_manual();
	T_EQ(profil_overflow_policy(PROFIL_OVF_WRAP), PROFIL_OVF_SATURATE);
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	T_EQ(profil_overflow_policy(PROFIL_OVF_SATURATE), PROFIL_OVF_WRAP);
	for (int i = 0; i < 3; i++)
		T_EQ(__profil_inject(0x100, 1), 0);
	T_EQ(buf[0], 1);
	T_EQ(profil_state(), PROFIL_CLASSIC);

	/* A new configuration takes the policy now in force: saturate. */
	buf[0] = 65534;
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	for (int i = 0; i < 3; i++)
		T_EQ(__profil_inject(0x100, 1), 0);
	T_EQ(buf[0], 65535);
	return 0;
}
