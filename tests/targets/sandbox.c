/*
 * sandbox - a program that sandboxes itself with a seccomp filter, then
 * starts threads and forks, as a browser's renderer or a server's worker
 * does (t-run-seccomp*.sh).  Built without libprofil and without
 * libseccomp: the filter is tests/helpers/seccomp.h's plain BPF program.
 *
 *   sandbox ACTION ROUTE BEFORE AFTER [exec]
 *   sandbox outer PROGRAM [ARGS...]
 *
 * ACTION is what the filter answers timer_create, timer_settime,
 * timer_delete, perf_event_open and rt_sigaction with (every other call is
 * allowed): kill-process (SECCOMP_RET_KILL_PROCESS), trap
 * (SECCOMP_RET_TRAP: SIGSYS, which the program does not handle),
 * kill-thread (SECCOMP_RET_KILL_THREAD, libseccomp's SCMP_ACT_KILL), or
 * none (no filter: the control).  None of those calls is the program's own
 * after the filter (it starts a thread first, since glibc sets up its
 * cancellation signal with rt_sigaction at the first pthread_create), so
 * alone it runs to the end whatever the action.
 *
 * ROUTE is how it installs the filter: prctl (prctl(PR_SET_SECCOMP)),
 * seccomp (syscall(SYS_seccomp, ...), as libseccomp does), tsync (the
 * same with SECCOMP_FILTER_FLAG_TSYNC, while a thread of its own is
 * running: the filter then applies to that thread too), or raw (the
 * system call instruction itself, which no library can interpose, as
 * Chromium's sandbox does).
 *
 * It burns BEFORE seconds of CPU time in main before the filter; then,
 * under it, two threads burn AFTER seconds each, a forked child burns
 * AFTER and starts a thread of its own that burns AFTER (with "exec", the
 * child execs this program again, "sandbox child AFTER", which burns
 * twice AFTER in its main thread: a new image's first pthread_create would
 * call rt_sigaction to set up glibc's cancellation signal), and main burns
 * AFTER more: five times AFTER under the filter.  Last it prints
 *
 *   sandbox: before=B after=A children=C
 *
 * B its process CPU time when it installed the filter, A its own CPU time
 * since, C what its children used (all in seconds), and exits 0.
 *
 * "outer" installs a container's filter (tests/helpers/seccomp.h, with
 * the raw system call: no library sees it) and execs PROGRAM under it.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../helpers/seccomp.h" /* by its path: targets have no -Itests */

static volatile double sink;

static double cpu_of(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Burn secs of the calling thread's own CPU time. */
__attribute__((noinline)) static void burn(double secs)
{
	double end = cpu_of(CLOCK_THREAD_CPUTIME_ID) + secs;
	while (cpu_of(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			sink = sink * 1.0000001 + 1e-9;
}

static _Atomic int started; /* burners running their own code */

static void *burner(void *arg)
{
	started++;
	burn(*(double *)arg);
	return NULL;
}

/* secs in a thread of its own and as much in the caller. */
static void burn_two(double secs)
{
	pthread_t t;
	int e = pthread_create(&t, NULL, burner, &secs);
	if (e) {
		fprintf(stderr, "sandbox: pthread_create: %s\n", strerror(e));
		exit(1);
	}
	burn(secs);
	pthread_join(t, NULL);
}

static void *spinner(void *arg)
{
	volatile int *stop = arg;
	while (!*stop)
		sink = sink * 1.0000001 + 1e-9;
	return NULL;
}

static void install(const char *action, const char *route)
{
	unsigned ret;
	if (!ts_action(action, &ret)) {
		fprintf(stderr, "sandbox: unknown action %s\n", action);
		exit(2);
	}
	int r;
	if (strcmp(route, "tsync") == 0) {
		/* A thread of ours runs while the filter goes in, and gets it. */
		static volatile int stop;
		pthread_t t;
		if (pthread_create(&t, NULL, spinner, (void *)&stop) != 0)
			exit(1);
		r = ts_install(ret, route, false);
		stop = 1;
		pthread_join(t, NULL);
	} else {
		r = ts_install(ret, route, false);
	}
	if (r != 0) {
		fprintf(stderr, "sandbox: installing the filter (%s): %s\n", route,
			strerror(errno));
		exit(errno == EINVAL ? 2 : 1);
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "outer") == 0) {
		/* A container's filter, then PROGRAM ARGS under it. */
		if (ts_install_outer() != 0) {
			fprintf(stderr, "sandbox: installing the filter (outer): %s\n",
				strerror(errno));
			return 1;
		}
		execvp(argv[2], argv + 2);
		perror("sandbox: exec");
		return 127;
	}
	if (argc == 3 && strcmp(argv[1], "child") == 0) {
		/* A new image under the filter: no thread (glibc's first
		 * pthread_create would call rt_sigaction), twice the time. */
		burn(2 * atof(argv[2]));
		return 0;
	}
	if (argc != 5 && !(argc == 6 && strcmp(argv[5], "exec") == 0)) {
		fprintf(stderr, "usage: sandbox ACTION ROUTE BEFORE AFTER [exec]\n");
		return 2;
	}
	double secs = atof(argv[4]);
	/* glibc installs its cancellation handler (rt_sigaction) at a
	 * process's first pthread_create: a program that sandboxes itself
	 * has started a thread before, or the filter would kill it there. */
	double none = 0;
	pthread_t warm;
	if (pthread_create(&warm, NULL, burner, &none) != 0 || pthread_join(warm, NULL) != 0)
		return 1;
	burn(atof(argv[3]));
	double before = cpu_of(CLOCK_PROCESS_CPUTIME_ID);
	if (strcmp(argv[1], "none") != 0)
		install(argv[1], argv[2]);
	before = (before + cpu_of(CLOCK_PROCESS_CPUTIME_ID)) / 2;

	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, burner, &secs) != 0) {
			fprintf(stderr, "sandbox: pthread_create failed\n");
			return 1;
		}
	/* Fork once both threads run their own code: a sanitizer's runtime,
	 * preloaded into this program by a sanitizer build of pcprof, takes
	 * its allocator's lock while a thread starts, and a fork then would
	 * leave it taken in the child (glibc's malloc is safe, ASan's is not). */
	bool gone[2] = { false, false };
	while (started < 3 && !(gone[0] && gone[1])) {
		for (int i = 0; i < 2; i++)
			if (!gone[i] && pthread_tryjoin_np(t[i], NULL) == 0)
				gone[i] = true; /* ended, perhaps killed before its code ran */
		sched_yield();
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("sandbox: fork");
		return 1;
	}
	if (pid == 0) {
		if (argc == 6) {
			execl("/proc/self/exe", argv[0], "child", argv[4], (char *)NULL);
			perror("sandbox: exec");
			_exit(127);
		}
		burn_two(secs);
		exit(0);
	}
	for (int i = 0; i < 2; i++)
		if (!gone[i])
			pthread_join(t[i], NULL);
	burn(secs);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "sandbox: the child ended with status %#x\n", st);
		return 1;
	}
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	double children = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
			  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	printf("sandbox: before=%.3f after=%.3f children=%.3f\n", before,
	       cpu_of(CLOCK_PROCESS_CPUTIME_ID) - before, children);
	return 0;
}
