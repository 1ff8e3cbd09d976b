/*
 * annstep.h - for anntarget.c: a step forced inline into its caller, so
 * that its lines belong to this file while its code sits in hot_loop
 * (t-annotate.sh: inlined lines are shown under their own file).
 */
static inline __attribute__((always_inline)) unsigned long mix_step(unsigned long x)
{
	x ^= x >> 29; /* STEP */
	return x * 0xbf58476d1ce4e5b9UL;
}
