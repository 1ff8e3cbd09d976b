/* T10 [INJ] scale 1 (and 0) turns profiling off, also when it was on. */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[16] = { 0 };

	tp_manual();
	T_EQ(profil(buf, sizeof buf, 0x1000, 1), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(__profil_inject(0x1000, 1), -1);

	for (unsigned int scale = 0; scale < 2; scale++) {
		T_EQ(profil(buf, sizeof buf, 0x1000, 0x10000), 0);
		T_EQ(__profil_inject(0x1000, 1), 0);
		T_EQ(buf[0], 1);
		T_EQ(profil(buf, sizeof buf, 0x1000, scale), 0);
		T_EQ(profil_state(), PROFIL_OFF);
		T_EQ(__profil_inject(0x1000, 1), -1);
		T_EQ(buf[0], 1);
		buf[0] = 0;
	}
	for (int i = 0; i < 16; i++)
		T_EQ(buf[i], 0);
	return 0;
}
