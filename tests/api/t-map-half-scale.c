/* T02 [INJ] scale 0x8000: each counter covers 4 bytes of text. */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[16] = { 0 };

	tp_manual();
	T_EQ(profil(buf, sizeof buf, 0x10000, 0x8000), 0);
	T_EQ(__profil_inject(0x10000 + 7, 1), 0); /* byte 3: counter 1 */
	T_EQ(__profil_inject(0x10000 + 8, 1), 0); /* byte 4: counter 2 */
	for (int i = 0; i < 16; i++)
		T_EQ(buf[i], i == 1 || i == 2);
	return 0;
}
