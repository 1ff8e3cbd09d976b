/*
 * T15 [INJ] a successful call replaces the state: the old buffer is never
 * written again, the new one counts.
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short a[4] = { 0 }, b[4] = { 0 };

	tp_manual();
	T_EQ(profil(a, sizeof a, 0, 2), 0);
	T_EQ(__profil_inject(0x5000, 1), 0);
	T_EQ(a[0], 1);
	T_EQ(profil(b, sizeof b, 0x1000, 0x10000), 0);
	T_EQ(__profil_inject(0x1002, 1), 0);
	T_EQ(__profil_inject(0x5000, 1), 0); /* outside b, and a is gone */
	T_EQ(b[1], 1);
	T_EQ(b[0] + b[2] + b[3], 0);
	T_EQ(a[0], 1);
	T_EQ(a[1] + a[2] + a[3], 0);
	/* The same buffer again with other parameters also replaces. */
	T_EQ(profil(b, sizeof b, 0x1000, 2), 0);
	T_EQ(__profil_inject(0x1002, 1), 0);
	T_EQ(b[0], 1);
	T_EQ(b[1], 1);
	return 0;
}
