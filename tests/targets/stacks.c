/*
 * stacks - a target for tests/cli-run/t-run-stacks.sh: CPU time in one
 * function reached by known call paths.  Built without libprofil (pcprof
 * preloads it), with frame pointers, like every target.
 *
 *   stacks MODE SECONDS
 *
 *   main   main -> mid -> hot_leaf, which burns SECONDS of CPU time
 *   deep   main -> deep, 300 levels of recursion -> hot_leaf: deeper than
 *          the 256 frames a recorded stack keeps
 *
 * Every call is followed by work of its caller, so that none becomes a
 * jump (a tail call would drop the caller from the stack).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The clock is read every 100000 iterations: nearly every sample lands in
 * the loop itself. */
__attribute__((noinline)) void hot_leaf(double seconds)
{
	double x = 1.0, t0 = cpu();
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 1.0000001 + 1e-9;
	} while (cpu() - t0 < seconds);
	sink = x;
}

__attribute__((noinline)) void mid(double seconds)
{
	hot_leaf(seconds);
	sink += 1;
}

__attribute__((noinline)) void deep(int n, double seconds)
{
	if (n == 0)
		hot_leaf(seconds);
	else
		deep(n - 1, seconds);
	sink += n;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: stacks main|deep SECONDS\n");
		return 2;
	}
	double seconds = atof(argv[2]);
	if (strcmp(argv[1], "main") == 0)
		mid(seconds);
	else if (strcmp(argv[1], "deep") == 0)
		deep(300, seconds);
	else
		return 2;
	sink += 1;
	return 0;
}
