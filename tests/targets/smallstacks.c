/*
 * smallstacks - a target for tests/engines/t-run-small-stacks.sh: CPU time
 * on small stacks of the program's own making, painted, so that the lowest
 * byte written shows how much of the interrupted stack each signal's
 * delivery took (the kernel's frame and the handler's).  Built without
 * libprofil (pcprof preloads it).
 *
 *   smallstacks MODE KIB SECONDS [trivial]
 *
 *   coro    a makecontext coroutine on a stack of KIB KiB (mmap'd, an
 *           inaccessible page right below it), 1 KiB of it in use, burns
 *           SECONDS of CPU time
 *   heap    the same on a stack of KIB KiB inside a malloc'd block, with
 *           4 KiB of the block below the stack
 *   thread  a thread on a stack of KIB KiB the program gives it
 *           (pthread_attr_setstack) inside a malloc'd block, 4 KiB below
 *           it: a stack the library knows
 *   trivial  (last argument) instead of pcprof's signals, a handler of
 *           its own that does nothing, on ITIMER_PROF at 1 kHz: the
 *           kernel's frame alone, to compare with
 *
 * It prints (stderr) "MODE: deepest D bytes below the interrupted frame,
 * B bytes below the stack written, S signals" where D is measured from the
 * burning function's own frame (it calls nothing, and reads its clock with
 * an inline system call, so a signal always interrupts that frame), and
 * exits 5 if anything below the stack was written, 0 otherwise.  A
 * handler that overflows a coro stack hits the inaccessible page and dies
 * of SIGSEGV.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../test.h"

#define PAINT  0xa5
#define BELOW  4096 /* of the block, below a heap or thread stack */
#define IN_USE 1024

static volatile double sink;
static double burn_seconds;
static uintptr_t burn_sp; /* an address in the burning frame */
static volatile sig_atomic_t trivial_signals;

static void trivial_handler(int sig)
{
	(void)sig;
	trivial_signals++;
}

/* Burns in its own frame: the clock read is an inline system call. */
__attribute__((noinline)) static void burn(void)
{
	volatile char here = 0;
	burn_sp = (uintptr_t)&here;
	double x = 1.0, t0 = t_cpu_here(CLOCK_THREAD_CPUTIME_ID);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 1.0000001 + 1e-9;
	} while (t_cpu_here(CLOCK_THREAD_CPUTIME_ID) - t0 < burn_seconds);
	sink = x + here;
}

/* 1 KiB of the stack in use, then the burn. */
__attribute__((noinline)) static void in_use(void)
{
	volatile char used[IN_USE];
	memset((char *)used, 1, sizeof used);
	burn();
	sink += used[0];
}

static ucontext_t main_uc, coro_uc;

static void coro_entry(void)
{
	in_use();
}

static void *thread_entry(void *arg)
{
	(void)arg;
	sigset_t prof;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	pthread_sigmask(SIG_UNBLOCK, &prof, NULL);
	in_use();
	return NULL;
}

/* Lowest byte of [lo, hi) written: hi if none. */
static uintptr_t lowest_written(const unsigned char *lo, const unsigned char *hi)
{
	const unsigned char *p = lo;
	while (p < hi && *p == PAINT)
		p++;
	return (uintptr_t)p;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "trivial") != 0)) {
		fprintf(stderr, "usage: smallstacks coro|heap|thread KIB SECONDS [trivial]\n");
		return 2;
	}
	const char *mode = argv[1];
	size_t size = (size_t)atoi(argv[2]) * 1024;
	burn_seconds = atof(argv[3]);
	bool trivial = argc == 5;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (size < 2 * IN_USE || size % 16) {
		fprintf(stderr, "smallstacks: bad size\n");
		return 2;
	}

	unsigned char *block, *lo;
	if (strcmp(mode, "coro") == 0) {
		/* Its end on a page boundary, the inaccessible page right
		 * below its first byte. */
		size_t span = (size + page - 1) / page * page;
		block = mmap(NULL, page + span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		if (block == MAP_FAILED)
			return 3;
		lo = block + page + span - size;
		if (mprotect(block, page, PROT_NONE) < 0)
			return 3;
		memset(block + page, PAINT, span);
	} else if (strcmp(mode, "heap") == 0 || strcmp(mode, "thread") == 0) {
		block = malloc(BELOW + size);
		if (!block)
			return 3;
		memset(block, PAINT, BELOW + size);
		lo = block + BELOW;
	} else {
		fprintf(stderr, "smallstacks: no mode %s\n", mode);
		return 2;
	}

	if (trivial) {
		struct sigaction sa = { .sa_handler = trivial_handler };
		sigemptyset(&sa.sa_mask);
		struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
		if (sigaction(SIGPROF, &sa, NULL) < 0 || setitimer(ITIMER_PROF, &it, NULL) < 0)
			return 3;
	}

	if (strcmp(mode, "thread") == 0) {
		/* Only the thread takes the process-wide SIGPROF. */
		sigset_t prof, old;
		sigemptyset(&prof);
		sigaddset(&prof, SIGPROF);
		pthread_sigmask(SIG_BLOCK, &prof, &old);
		pthread_attr_t a;
		pthread_t t;
		if (pthread_attr_init(&a) != 0 || pthread_attr_setstack(&a, lo, size) != 0 ||
		    pthread_create(&t, &a, thread_entry, NULL) != 0 || pthread_join(t, NULL) != 0) {
			fprintf(stderr, "smallstacks: no thread\n");
			return 3;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	} else {
		if (getcontext(&coro_uc) < 0)
			return 3;
		coro_uc.uc_stack.ss_sp = lo;
		coro_uc.uc_stack.ss_size = size;
		coro_uc.uc_link = &main_uc;
		makecontext(&coro_uc, coro_entry, 0);
		if (swapcontext(&main_uc, &coro_uc) < 0)
			return 3;
	}

	if (trivial) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_PROF, &off, NULL);
	}
	/* Below a coro stack is the inaccessible page (and the rest of
	 * that page, painted, when the size is not a page multiple). */
	const unsigned char *from = strcmp(mode, "coro") == 0 ? block + page : block;
	uintptr_t low = lowest_written(from, lo + size);
	size_t below = low < (uintptr_t)lo ? (size_t)((uintptr_t)lo - low) : 0;
	fprintf(stderr,
		"%s: deepest %ld bytes below the interrupted frame, %zu bytes below the "
		"stack written, %d signals\n",
		mode, (long)burn_sp - (long)low, below, (int)trivial_signals);
	return below ? 5 : 0;
}
