/*
 * T06 [INJ] an odd buffer size: bufsiz 5 holds two whole counters; the odd
 * fifth byte is never written, whatever pc is injected.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	union {
		unsigned short s[8];
		unsigned char b[16];
	} mem;
	const size_t off = 0x10000;

	memset(mem.b, 0x5A, sizeof mem.b);
	mem.s[0] = mem.s[1] = 0;
	tp_manual();
	T_EQ(profil(mem.s, 5, off, 0x10000), 0);
	T_EQ(__profil_inject(off + 4, 1), 0); /* byte 4: counter 2 does not exist */
	T_EQ(__profil_inject(off + 5, 1), 0);
	T_EQ(__profil_inject(off + 3, 1), 0); /* counter 1 does */
	T_EQ(mem.s[0], 0);
	T_EQ(mem.s[1], 1);
	for (int i = 4; i < 16; i++)
		T_EQ(mem.b[i], 0x5A);
	return 0;
}
