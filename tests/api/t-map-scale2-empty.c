/*
 * T08 [INJ] scale 2 with bufsiz 0 (or 1, less than one counter): profiling
 * is on but ineffective; nothing is ever written.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned char mem[8] __attribute__((aligned(2)));

	tp_manual();
	for (size_t size = 0; size < 2; size++) {
		memset(mem, 0x77, sizeof mem);
		T_EQ(profil((unsigned short *)mem, size, 0x1000, 2), 0);
		T_EQ(profil_state(), PROFIL_CLASSIC);
		T_EQ(__profil_inject(0x1000, 1), 0);
		T_EQ(__profil_inject(0x123456, 7), 0);
		T_EQ(__profil_inject(0, 1), 0);
		for (int i = 0; i < 8; i++)
			T_EQ(mem[i], 0x77);
		T_EQ(profil_state(), PROFIL_CLASSIC);
	}
	return 0;
}
