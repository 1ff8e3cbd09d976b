/*
 * sigowner - programs that own signals, for tests/engines/t-run-signal-
 * owners.sh: they must run under pcprof exactly as without it.  Built
 * without libprofil; pcprof preloads it.
 *
 *   sigowner dfl ITERATIONS     every signal 1..NSIG-1 to SIG_DFL, then work
 *   sigowner ign ITERATIONS     every signal 1..NSIG-1 to SIG_IGN, then work
 *   sigowner itimer ITERATIONS FILE
 *                               its own profiler: a SIGPROF handler and
 *                               setitimer(ITIMER_PROF) at 100 Hz around the
 *                               work; appends "TICKS SECONDS CPU" to FILE:
 *                               the ticks its handler counted, the seconds
 *                               of the process's PROF clock (the clock
 *                               ITIMER_PROF runs on) from the first tick to
 *                               the last, and the process's CPU seconds
 *                               (CLOCK_PROCESS_CPUTIME_ID, exact) while
 *                               the timer was armed
 *
 * The work is a fixed number of iterations of a loop, so the output (a
 * checksum on stdout) is the same on every run.  Exit status 3 for dfl and
 * ign, so that a test sees it pass through; 0 for itimer.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* The process's PROF clock: MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_PROF). */
#define PROF_CLOCK ((clockid_t)(~0u << 3))

static volatile sig_atomic_t ticks;
static struct timespec first, last;

static void on_prof(int sig)
{
	(void)sig;
	clock_gettime(PROF_CLOCK, &last);
	if (ticks++ == 0)
		first = last;
}

static unsigned long work(unsigned long n)
{
	unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++) {
		x += i ^ (x >> 3);
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sigowner dfl|ign|itimer ITERATIONS [FILE]\n");
		return 2;
	}
	unsigned long n = strtoul(argv[2], NULL, 10);
	if (strcmp(argv[1], "dfl") == 0 || strcmp(argv[1], "ign") == 0) {
		void (*to)(int) = argv[1][0] == 'd' ? SIG_DFL : SIG_IGN;
		for (int s = 1; s < NSIG; s++)
			signal(s, to);
		printf("%lu\n", work(n));
		return 3;
	}
	if (strcmp(argv[1], "itimer") == 0 && argc > 3) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_prof;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPROF, &sa, NULL);
		struct itimerval on = { { 0, 10000 }, { 0, 10000 } }, off = { { 0, 0 }, { 0, 0 } };
		struct timespec c0, c1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
		setitimer(ITIMER_PROF, &on, NULL);
		unsigned long x = work(n);
		setitimer(ITIMER_PROF, &off, NULL);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		printf("%lu\n", x);
		FILE *f = fopen(argv[3], "a");
		if (!f)
			return 2;
		double sec = (double)(last.tv_sec - first.tv_sec) +
			     (double)(last.tv_nsec - first.tv_nsec) * 1e-9;
		double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
		fprintf(f, "%d %.6f %.6f\n", (int)ticks, sec, cpu);
		return fclose(f) == 0 ? 0 : 2;
	}
	fprintf(stderr, "sigowner: unknown mode %s\n", argv[1]);
	return 2;
}
