/* T04 [INJ] a pc below the offset is never counted (no wrap-around). */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[16] = { 0 };
	const size_t off = 0x10000;

	tp_manual();
	T_EQ(profil(buf, sizeof buf, off, 0x10000), 0);
	T_EQ(__profil_inject(off - 2, 1), 0);
	T_EQ(__profil_inject(off - 1, 1), 0);
	T_EQ(__profil_inject(0, 1), 0);
	for (int i = 0; i < 16; i++)
		T_EQ(buf[i], 0);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.outside, 3);
	T_EQ(st.counted, 0);
	T_EQ(__profil_inject(off, 1), 0); /* the offset itself is counted */
	T_EQ(buf[0], 1);
	return 0;
}
