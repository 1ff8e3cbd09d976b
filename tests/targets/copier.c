/*
 * copier - a target for tests/cli-report/t-opts-callers-glob.sh: CPU time
 * in libc's memcpy, called from copy_block, as README's
 * `pcprof report --callers '*memcpy*'` example has it.  glibc picks one
 * memcpy for the CPU at load time (__memcpy_avx_unaligned_erms and the
 * like), and that is the name a profile shows.
 *
 *   copier SECONDS   copies 1 MiB blocks for SECONDS of CPU time
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char from[1 << 20], to[1 << 20];
static volatile size_t size = sizeof from; /* no inlined copy */

__attribute__((noinline)) static void copy_block(size_t i)
{
	memcpy(to + (i & 63), from, size - 64);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	size_t i = 0;
	while ((double)clock() < seconds * CLOCKS_PER_SEC)
		for (int k = 0; k < 16; k++)
			copy_block(i++);
	return to[100];
}
