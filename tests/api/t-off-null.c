/* T11 a NULL buffer turns profiling off (glibc's convention) whatever the
 * other arguments say, and is not an error. */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short buf[4] = { 0 };

	tp_manual();
	T_EQ(profil(tp_null(), 100, 0, 0x10000), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(__profil_inject(0, 1), -1);

	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	T_EQ(profil(tp_null(), 100, 0, 0x10000), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(__profil_inject(0, 1), -1);
	T_EQ(buf[0], 0);
	return 0;
}
