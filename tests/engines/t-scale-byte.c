/*
 * A classic profil() at scale 0x20000 on a real engine, the call LTP's
 * profil01 makes (this is our own test of the same idea): every byte of
 * text has its own 16-bit counter (B = 2d, I = d).  A busy loop lives alone
 * in the section tscale_loop, so [start, stop) is exactly its code; the
 * buffer covers four times that length from start, so that a count that
 * landed on the wrong counter would show beyond the loop.  The loop burns
 * 1 s of its thread's CPU.
 *   - the buffer's counts are the ticks the library counted (profil_stats),
 *     and nearly all of the run's ticks (>= 90 %; the loop reads its clock
 *     with t_cpu_here, so that ticks in the clock reads are its own);
 *   - every count lies on the loop's own bytes: none beyond stop;
 *   - the ticks follow CPU time: T_COUNT's 5-sd bound around CPU x rate.
 */
#include <unistd.h>

#include "helpers/tprof.h"

__attribute__((noinline, section("tscale_loop"))) static void loop(double sec)
{
	double end = t_cpu_here(CLOCK_THREAD_CPUTIME_ID) + sec;
	while (t_cpu_here(CLOCK_THREAD_CPUTIME_ID) < end) {
		unsigned long x = 0;
		for (unsigned long i = 0; i < 50000; i++) {
			x += i ^ (x >> 3);
			__asm__ volatile("" : "+r"(x));
		}
	}
}
extern char __start_tscale_loop[], __stop_tscale_loop[];

int main(void)
{
	uintptr_t start = (uintptr_t)__start_tscale_loop, stop = (uintptr_t)__stop_tscale_loop;
	size_t len = stop - start, n = 4 * len; /* counters: one per byte */
	T_OK(len > 0 && len < 65536);
	unsigned short *buf = calloc(n, sizeof *buf);
	T_OK(buf != NULL);

	double t0 = t_proc_cpu();
	tp_profil_on(buf, n * sizeof *buf, start, 0x20000);
	loop(1.0);
	T_EQ(tp_profil_off(), 0);
	double cpu = t_proc_cpu() - t0;

	unsigned long in = 0, beyond = 0;
	for (size_t i = 0; i < n; i++)
		*(i < len ? &in : &beyond) += buf[i];
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_NOTE("cpu %.3f s; loop [%#lx, %#lx); counts in the loop %lu, beyond it %lu", cpu,
	       (unsigned long)start, (unsigned long)stop, in, beyond);
	tp_note_stats();
	T_EQ(beyond, 0);
	T_EQ(in, st.counted);
	T_OK(in >= st.ticks * 0.9);
	T_COUNT(st.ticks, cpu * profil_hz());
	return 0;
}
