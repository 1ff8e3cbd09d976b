/*
 * T12 a scale above 0x10000 is EINVAL and leaves the previous state exactly
 * as it was: injects still count in the old buffer.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short a[8] = { 0 }, b[8] = { 0 };

	tp_manual();
	T_EQ(profil(a, sizeof a, 0, 2), 0);
	errno = 0;
	T_EQ(profil(b, sizeof b, 0, 0x10001), -1);
	T_EQ(errno, EINVAL);
	errno = 0;
	T_EQ(profil(b, sizeof b, 0, 0xFFFFFFFF), -1);
	T_EQ(errno, EINVAL);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	T_EQ(__profil_inject(0x1234, 1), 0);
	T_EQ(a[0], 1);
	T_EQ(b[0], 0);

	/* From the off state the error leaves it off. */
	T_EQ(tp_profil_off(), 0);
	T_EQ(profil(b, sizeof b, 0, 0x10001), -1);
	T_EQ(profil_state(), PROFIL_OFF);
	/* 0x10000 itself is the largest valid scale. */
	T_EQ(profil(b, sizeof b, 0, 0x10000), 0);
	return 0;
}
