/*
 * T29 [RT] sleeping is not counted: the time base is CPU time.  1 s of
 * nanosleep with profiling on gives at most 2 counts (the few microseconds
 * of CPU around the sleep may hold one tick).
 */
#include <time.h>
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	static unsigned short buf[4];

	tp_profil_on(buf, sizeof buf, 0, 2);
	struct timespec ts = { 1, 0 };
	while (nanosleep(&ts, &ts) != 0)
		T_OK(errno == EINTR);
	T_RANGE(buf[0], 0, 2);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	return 0;
}
