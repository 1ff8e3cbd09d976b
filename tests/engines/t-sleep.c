/*
 * T29 [RT] sleeping is not counted: the time base is CPU time.  1 s of
 * nanosleep with profiling on gives no more counts than the CPU time the
 * process spent meanwhile allows (T_COUNT_MAX: a tick or two for the
 * microseconds around the sleep).
 */
#include <time.h>
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	static unsigned short buf[4];

	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	struct timespec ts = { 1, 0 };
	while (nanosleep(&ts, &ts) != 0)
		T_OK(errno == EINTR);
	double cpu = t_proc_cpu() - t0;
	T_NOTE("cpu %.6f s", cpu);
	T_COUNT_MAX(buf[0], cpu * profil_hz());
	T_EQ(profil_state(), PROFIL_CLASSIC);
	return 0;
}
