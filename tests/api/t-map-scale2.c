/*
 * T07 [INJ] scale 2 puts every pc at or above the offset in counter 0 (IRIX,
 * Tru64, AIX and illumos convention), however far from the offset.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[4] = { 0 };
	const size_t x = 0x400000;

	tp_manual();
	T_EQ(profil(buf, sizeof buf, x, 2), 0);
	T_EQ(__profil_inject(x + 0x7fffffff, 1), 0);
	T_EQ(buf[0], 1);
	T_EQ(__profil_inject(x - 1, 1), 0);
	T_EQ(buf[0], 1);
	T_EQ(__profil_inject(x, 1), 0);
	T_EQ(__profil_inject(UINTPTR_MAX, 1), 0);
	T_EQ(buf[0], 3);
	T_EQ(buf[1] | buf[2] | buf[3], 0);
	return 0;
}
