/*
 * inltarget.c - a target for t-inline.sh and t-export-pprof-stacks.sh:
 * built -O2 -g, it spends its CPU time in spin_step, a static function
 * forced inline into churn, which churn calls once per outer iteration.
 * The marks at the ends of lines (BODY, CALL) let the tests find the
 * line numbers.
 *
 * usage: inltarget [ITERATIONS]
 */
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long spin_step(unsigned long x)
{
	for (int i = 0; i < 400; i++)                                   /* BODY */
		x = x * 6364136223846793005UL + 1442695040888963407UL; /* BODY */
	return x;                                                       /* BODY */
}

__attribute__((noinline)) unsigned long churn(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = spin_step(x ^ i); /* CALL */
	return x;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	sink = churn(n);
	return 0;
}
