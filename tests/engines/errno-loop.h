/*
 * errno-loop.h - the loop of t-errno-handler and t-errno-fault: it stores a
 * changing value in errno, spins a moment (the window in which a signal
 * lands) and counts in `changed` each time errno no longer holds it.
 */
#ifndef ERRNO_LOOP_H
#define ERRNO_LOOP_H

#include <unistd.h>

#include "helpers/tprof.h"

static _Atomic long changed;

/* Spin with errno set until until() or `sec` seconds of the thread's CPU;
 * returns the CPU seconds spent. */
static double errno_loop(int base, double sec, int (*until)(void))
{
	double t0 = t_thread_cpu(), now = t0;
	for (long round = 0; now - t0 < sec && !(until && round % 32 == 0 && until()); round++) {
		for (int i = 0; i < 1000; i++) {
			int v = base + (i & 0xFFF);
			errno = v;
			for (int k = 0; k < 50; k++)
				__asm__ volatile("" ::: "memory");
			if (errno != v)
				changed++;
		}
		now = t_thread_cpu();
	}
	return now - t0;
}

#endif
