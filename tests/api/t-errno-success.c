/*
 * T16 a successful call leaves errno untouched (spec 3.6): enabling,
 * replacing, disabling, and the extension calls; __profil_inject never
 * changes it, even when it finds profiling off.
 */
#include <unistd.h>

#include "helpers/tprof.h"

#define KEEP(call)                                                                      \
	do {                                                                            \
		errno = 12345;                                                          \
		T_OK((call) >= 0);                                                      \
		T_EQ(errno, 12345);                                                     \
	} while (0)

int main(void)
{
	unsigned short a[8] = { 0 }, b[8] = { 0 };
	struct profil_stats st;

	KEEP(profil_set_engine("manual"));
	KEEP(profil(a, sizeof a, 0, 0x8000)); /* off -> on */
	KEEP(profil(b, sizeof b, 0, 2));      /* replace */
	KEEP(__profil_inject(4, 1));
	KEEP(profil_overflow_policy(PROFIL_OVF_WRAP));
	KEEP(profil_overflow_policy(PROFIL_OVF_QUERY));
	KEEP(profil_state());
	KEEP((int)profil_hz());
	KEEP(profil_stats(&st));
	KEEP(tp_profil_off());          /* on -> off */
	KEEP(tp_profil_off());          /* off -> off */
	KEEP(profil(a, sizeof a, 0, 1));      /* off by scale */
	errno = 12345;
	T_EQ(__profil_inject(4, 1), -1);
	T_EQ(errno, 12345);
	T_EQ(b[0], 1);
	return 0;
}
