/* T01 [INJ] scale 0x10000: each 16-bit counter covers 2 bytes of text. */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[64] = { 0 };

	tp_manual();
	T_EQ(profil(buf, sizeof buf, 0x10000, 0x10000), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	T_EQ(__profil_inject(0x1000A, 1), 0);
	T_EQ(__profil_inject(0x1000B, 1), 0);
	for (int i = 0; i < 64; i++)
		T_EQ(buf[i], i == 5 ? 2 : 0);

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.ticks, 2);
	T_EQ(st.counted, 2);
	T_EQ(st.signals, 0); /* injected, not signalled */
	T_OK(strcmp(st.engine, "manual") == 0);
	T_EQ(tp_profil_off(), 0);
	return 0;
}
