/*
 * kernelwork - a target for the external sampler's tests: a program whose
 * CPU time is mostly system time.  Built without libprofil.
 *
 *   kernelwork SECONDS
 *
 * Until the process has used SECONDS of CPU time, map 4 MiB, touch every
 * page (a page fault each) and unmap it: the kernel zeroes and frees the
 * pages, the program itself does little.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	double secs = atof(argv[1]);
	size_t len = 4u << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	struct timespec t;
	do {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		for (size_t i = 0; i < len; i += page)
			p[i] = 1;
		munmap(p, len);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec + t.tv_nsec / 1e9 < secs);
	return 0;
}
