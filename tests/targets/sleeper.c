/*
 * sleeper - a target whose own checks fail when a profiling signal
 * interrupts one of its sleeps (tests/cli-run/t-run-sleepers.sh; issue 19,
 * item 6).  Built without libprofil; pcprof preloads it.
 *
 *   sleeper SECONDS
 *
 * While the main thread sleeps, CPU time is burnt where a process-directed
 * signal cannot go (threads that block every signal), so the kernel has to
 * pick a sleeping thread to deliver one:
 *   - a glibc SIGEV_THREAD timer every 5 ms whose callback burns 1 ms of
 *     CPU time (glibc runs the callbacks in threads that block every
 *     signal);
 *   - a thread that blocks every signal with the raw rt_sigprocmask system
 *     call (not the library's view) and burns CPU time until told to stop.
 *
 * The main thread, until it has slept at least 100 times and used SECONDS
 * of its own CPU time, alternates:
 *   - usleep(2000), which must return 0 after at least 2 ms;
 *   - 200 calls of nanosleep(1 us), each of which spends a little CPU time
 *     in the kernel before it sleeps (most of the main thread's CPU time):
 *     a signal raised then (a perf overflow signalled from the timer
 *     interrupt) ends the sleep with EINTR;
 * then prints "ok N sleeps" and exits 0, or names the first failure
 * ("usleep: Interrupted system call after N us", "usleep returned after N
 * us of 2000", "nanosleep: ...") with the counts, and exits 1.  The amount
 * of work is the main thread's CPU time, not a duration, so it does not
 * depend on the load.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_bool done;
static volatile unsigned long sink;

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void burn_for(double secs)
{
	double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	while (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0 < secs)
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i;
}

static void on_timer(union sigval v)
{
	(void)v;
	burn_for(0.001);
}

static void *masked(void *arg)
{
	/* Raw, so that a preloaded library's view of the mask cannot keep
	 * any signal open here. */
	sigset_t all;
	sigfillset(&all);
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8) != 0) {
		perror("sleeper: rt_sigprocmask");
		exit(2);
	}
	while (!atomic_load(&done))
		burn_for(0.005);
	return arg;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sleeper SECONDS\n");
		return 2;
	}
	double secs = atof(argv[1]);
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = on_timer;
	timer_t tm;
	struct itimerspec its = { { 0, 5000000 }, { 0, 5000000 } };
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) != 0 || timer_settime(tm, 0, &its, NULL) != 0) {
		perror("sleeper: timer");
		return 2;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, masked, NULL) != 0) {
		fprintf(stderr, "sleeper: pthread_create failed\n");
		return 2;
	}
	double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	long sleeps = 0, naps = 0, bad = 0;
	char first[128] = "";
	while (sleeps < 100 || clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0 < secs) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		int r = usleep(2000);
		int e = errno;
		clock_gettime(CLOCK_MONOTONIC, &b);
		long us = (b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000;
		sleeps++;
		if (r != 0 && !bad++)
			snprintf(first, sizeof first, "usleep: %s after %ld us", strerror(e), us);
		else if (r == 0 && us < 2000 && !bad++)
			snprintf(first, sizeof first, "usleep returned after %ld us of 2000", us);
		for (int i = 0; i < 200; i++) {
			struct timespec nap = { 0, 1000 };
			if (nanosleep(&nap, NULL) != 0 && !bad++)
				snprintf(first, sizeof first, "nanosleep: %s", strerror(errno));
			naps++;
		}
	}
	atomic_store(&done, true);
	timer_delete(tm);
	pthread_join(t, NULL);
	if (bad) {
		printf("FAIL: %s (%ld bad of %ld usleeps and %ld nanosleeps)\n", first, bad, sleeps,
		       naps);
		return 1;
	}
	printf("ok %ld sleeps\n", sleeps);
	return 0;
}
