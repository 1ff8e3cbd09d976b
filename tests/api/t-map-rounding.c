/*
 * T03 [INJ] rounding order at a scale that is not a power of two: the byte
 * offset is computed first (multiply-first rule), B = floor(3 * 0.75) = 2,
 * so counter 1; glibc divides first and would use counter 0.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[16] = { 0 };
	const size_t off = 0x10000;

	tp_manual();
	T_EQ(profil(buf, sizeof buf, off, 0xC000), 0);
	T_EQ(__profil_inject(off + 3, 1), 0);
	T_EQ(buf[0], 0);
	T_EQ(buf[1], 1);
	/* d = 5: B = 3, still counter 1; d = 6: B = 4, counter 2. */
	T_EQ(__profil_inject(off + 5, 1), 0);
	T_EQ(__profil_inject(off + 6, 1), 0);
	T_EQ(buf[1], 2);
	T_EQ(buf[2], 1);
	return 0;
}
