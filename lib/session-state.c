/*
 * session-state.c - the control path's state (session-int.h) and the
 * small queries on it.
 */
#include <stdlib.h>
#include <time.h>

#include "session-int.h"

struct profil_env profil__env;
uint64_t profil__pcs_last_count;

struct profil_session profil__session = {
	/* Usable before our constructor runs (another library's constructor
	 * may call profil first): USER_HZ, saturate. */
	.base_hz = 100,
	.policy = PROFIL_OVF_SATURATE,
};

/* ---- small queries ---- */

int profil__policy(void)
{
	return atomic_load(&S.policy);
}

unsigned int profil__base_hz(void)
{
	return atomic_load(&S.base_hz);
}

unsigned int profil__kernel_hz(void)
{
	/* The coarse clocks advance once per tick, so their resolution is the
	 * tick length: 4 ms with CONFIG_HZ=250.  (sysconf(_SC_CLK_TCK) is
	 * USER_HZ, always 100 on x86-64, and says nothing about the tick.) */
	static unsigned int hz;
	if (!hz) {
		struct timespec res;
		if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 && res.tv_sec == 0 &&
		    res.tv_nsec > 0)
			hz = (unsigned int)((1000000000L + res.tv_nsec / 2) / res.tv_nsec);
	}
	return hz;
}
