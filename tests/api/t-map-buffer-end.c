/* T05 [INJ] the last counter is counted, the byte after the buffer is not. */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short mem[8];
	const size_t off = 0x10000;

	for (int i = 0; i < 8; i++)
		mem[i] = 0xA5A5;
	for (int i = 0; i < 4; i++)
		mem[i] = 0;
	tp_manual();
	T_EQ(profil(mem, 8, off, 0x10000), 0);
	T_EQ(__profil_inject(off + 7, 1), 0);
	T_EQ(mem[3], 1);
	T_EQ(__profil_inject(off + 8, 1), 0);
	T_EQ(__profil_inject(off + 0x100000, 1), 0);
	for (int i = 0; i < 3; i++)
		T_EQ(mem[i], 0);
	T_EQ(mem[3], 1);
	for (int i = 4; i < 8; i++)
		T_EQ(mem[i], 0xA5A5); /* guard */
	return 0;
}
