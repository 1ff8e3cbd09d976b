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
 *   altstack  main's path, on a thread with an alternate signal stack of
 *          the least size the kernel needs plus 2 KiB, above an
 *          inaccessible page (SA_ONSTACK: the profiling signal's handler
 *          runs there)
 *   altstack8k  main's path on an alternate signal stack of 8 KiB, the
 *          size Rust's runtime gives every thread (SIGSTKSZ), which the
 *          kernel's frame fills to less than the handler keeps for a walk
 *          that may fault: the walk there is a bounded one
 *   altthread8k  the same in a created thread: thread start -> mid ->
 *          hot_leaf
 *   libc   main -> qsort -> (libc's own frames) -> by_value -> mid ->
 *          hot_leaf: a walk reaches main only through libc's unwind table
 *   fill   no CPU time: through libprofil's test hook __profil_inject_stack
 *          (found with dlsym: pcprof preloads the library; run it with
 *          PROFIL_ENGINE=manual), one tick for each of 20 made-up stacks of
 *          100 callers under one outermost caller 0x10000000, leaves
 *          0x100000 + 16 i: more than the stack table of --slots 1024
 *          (768 frames) holds
 *
 * Every call is followed by work of its caller, so that none becomes a
 * jump (a tail call would drop the caller from the stack).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../test.h"

static volatile double sink;

/* The clock is read every 100000 iterations, with the system call made
 * from the loop itself (t_cpu_here): every sample, also one delivered late
 * on the return from a clock read, lands in the loop itself. */
__attribute__((noinline)) void hot_leaf(double seconds)
{
	double x = 1.0, t0 = t_cpu_here(CLOCK_THREAD_CPUTIME_ID);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 1.0000001 + 1e-9;
	} while (t_cpu_here(CLOCK_THREAD_CPUTIME_ID) - t0 < seconds);
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

static double qsort_seconds;

static int by_value(const void *a, const void *b)
{
	static int once;
	if (!once++)
		mid(qsort_seconds);
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int through_libc(double seconds)
{
	int v[2] = { 2, 1 };
	qsort_seconds = seconds;
	qsort(v, 2, sizeof v[0], by_value);
	return v[0] == 1 ? 0 : 5;
}

static int fill(void)
{
	typedef int inject_fn(const uintptr_t *pcs, int n, unsigned ticks);
	inject_fn *inject = (inject_fn *)dlsym(RTLD_DEFAULT, "__profil_inject_stack");
	if (!inject) {
		fprintf(stderr, "stacks fill: no __profil_inject_stack (not under pcprof run?)\n");
		return 3;
	}
	for (uintptr_t i = 0; i < 20; i++) {
		uintptr_t pcs[101];
		pcs[0] = 0x100000 + 16 * i;
		for (uintptr_t j = 1; j < 100; j++)
			pcs[j] = 0x20000000 + (i << 20) + 16 * j;
		pcs[100] = 0x10000000;
		if (inject(pcs, 101, 1) < 0) {
			fprintf(stderr, "stacks fill: nothing recorded (PROFIL_ENGINE=manual?)\n");
			return 4;
		}
	}
	return 0;
}

static __thread unsigned char *alt_lo;
static __thread size_t alt_size;

/* How much of the calling thread's alternate stack was never written. */
static void altstack_report(void)
{
	size_t i = 0;
	while (i < alt_size && alt_lo[i] == 0xa5)
		i++;
	fprintf(stderr, "altstack: %zu of %zu bytes never written\n", i, alt_size);
}

/* An alternate signal stack of size bytes (0: the least the kernel needs
 * plus 2 KiB) for the calling thread; 0, or 3 on failure. */
static int use_altstack(size_t size)
{
	/* The kernel's own figure: glibc's MINSIGSTKSZ is sysconf(_SC_SIGSTKSZ)
	 * under _GNU_SOURCE, a comfortable size, not the least. */
	if (!size) {
		size = getauxval(AT_MINSIGSTKSZ);
		size = (size ? size : 2048) + 2048;
	}
	/* An inaccessible page right below it: a handler that overflows it
	 * faults there (and, on the alternate stack, dies) instead of writing
	 * over whatever lies below. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *m =
		mmap(NULL, page + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) < 0) {
		perror("stacks altstack");
		return 3;
	}
	/* Painted, so that the lowest byte a handler wrote shows how close
	 * it came to the bottom (printed at exit: altstack_report). */
	memset(m + page, 0xa5, size);
	alt_lo = (unsigned char *)m + page;
	alt_size = size;
	stack_t ss = { .ss_sp = m + page, .ss_size = size, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) < 0) {
		perror("stacks altstack");
		return 3;
	}
	return 0;
}

static int altstack(size_t size, double seconds)
{
	int r = use_altstack(size);
	if (!r) {
		mid(seconds);
		altstack_report();
	}
	return r;
}

static double thread_seconds;

static void *alt_thread(void *arg)
{
	(void)arg;
	intptr_t r = altstack(8192, thread_seconds);
	sink += 1;
	return (void *)r;
}

static int altthread(double seconds)
{
	pthread_t t;
	void *r;
	thread_seconds = seconds;
	if (pthread_create(&t, NULL, alt_thread, NULL) != 0 || pthread_join(t, &r) != 0) {
		fprintf(stderr, "stacks altthread8k: no thread\n");
		return 3;
	}
	return (int)(intptr_t)r;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: stacks main|deep|altstack|altstack8k|altthread8k|libc|fill "
				"SECONDS\n");
		return 2;
	}
	double seconds = atof(argv[2]);
	if (strcmp(argv[1], "main") == 0)
		mid(seconds);
	else if (strcmp(argv[1], "deep") == 0)
		deep(300, seconds);
	else if (strcmp(argv[1], "altstack") == 0)
		return altstack(0, seconds);
	else if (strcmp(argv[1], "altstack8k") == 0)
		return altstack(8192, seconds);
	else if (strcmp(argv[1], "altthread8k") == 0)
		return altthread(seconds);
	else if (strcmp(argv[1], "libc") == 0)
		return through_libc(seconds);
	else if (strcmp(argv[1], "fill") == 0)
		return fill();
	else
		return 2;
	sink += 1;
	return 0;
}
