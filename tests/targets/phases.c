/*
 * phases - a target for tests/cli-report/t-time*.sh: CPU time in one
 * function, then in another, so that a period of the run holds one of
 * them.  Built without libprofil (pcprof preloads it).
 *
 *   phases burn SECONDS   phase_a burns SECONDS of CPU time, then phase_b
 *                         as much
 *   phases inject         no CPU time: through libprofil's test hooks
 *                         (found with dlsym; run it with
 *                         PROFIL_ENGINE=manual) ticks at chosen times of
 *                         the recording's timeline:
 *                           0.105 s  5 ticks in phase_a  (main thread)
 *                           0.995 s  2 ticks in phase_a  (main thread)
 *                           1.005 s  7 ticks in phase_b  (thread "second")
 *                           2.500 s  3 ticks in phase_b  (main thread)
 *                         then back to the clock (a tick after the
 *                         recording's start would be ambiguous: none)
 *   phases family PATH    the same hooks across fork and exec: 4 ticks in
 *                         phase_a at 0.505 s, then (50 ms of wall time
 *                         later, so that a process that counted time from
 *                         its own start would be 5 buckets off) a child
 *                         that ticks 6 times in phase_b at 1.505 s and,
 *                         50 ms later, execs "PATH inject"; waits for it
 *   phases threads N      N threads one after the other, thread i ticking
 *                         i + 1 times in phase_b at 10 ms i + 5 ms
 *   phases fill N         N ticks, tick i at its own pc (phase_a + 16 i,
 *                         as raw addresses) at 10 ms i + 5 ms: more keys
 *                         than a small table times
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test.h"

static volatile double sink;

static inline __attribute__((always_inline)) void burn(double seconds)
{
	double x = 1.0, t0 = t_cpu_here(CLOCK_THREAD_CPUTIME_ID);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 1.0000001 + 1e-9;
	} while (t_cpu_here(CLOCK_THREAD_CPUTIME_ID) - t0 < seconds);
	sink = x;
}

__attribute__((noinline)) void phase_a(double seconds)
{
	burn(seconds);
	sink += 1;
}

__attribute__((noinline)) void phase_b(double seconds)
{
	burn(seconds);
	sink += 2;
}

typedef int inject_fn(uintptr_t pc, unsigned long ticks);
typedef int time_fn(long long ns);
static inject_fn *inject;
static time_fn *at;

/* The pc of a function's second byte: inside it, whatever symbol size. */
static int tick(void (*fn)(double), long long ns, unsigned long n)
{
	at(ns);
	return inject((uintptr_t)fn + 1, n);
}

static void *second(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "second");
	return (void *)(intptr_t)tick(phase_b, 1005000000, 7);
}

static int hooks(void)
{
	inject = (inject_fn *)dlsym(RTLD_DEFAULT, "__profil_inject");
	at = (time_fn *)dlsym(RTLD_DEFAULT, "__profil_inject_time");
	if (!inject || !at) {
		fprintf(stderr, "phases: no test hooks (not under pcprof run?)\n");
		return 3;
	}
	return 0;
}

static void wall_sleep(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };
	while (nanosleep(&ts, &ts) < 0)
		;
}

static int family(const char *self)
{
	if (hooks() || tick(phase_a, 505000000, 4) < 0)
		return 4;
	wall_sleep(50);
	pid_t pid = fork();
	if (pid < 0)
		return 5;
	if (pid == 0) {
		if (tick(phase_b, 1505000000, 6) < 0)
			_exit(4);
		wall_sleep(50);
		execl(self, self, "inject", (char *)NULL);
		_exit(6);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 7;
	at(-1);
	return 0;
}

static void *one_thread(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	at((long long)i * 10000000 + 5000000);
	return (void *)(intptr_t)inject((uintptr_t)phase_b + 1, i + 1);
}

static int threads(unsigned long n)
{
	if (hooks())
		return 3;
	for (uintptr_t i = 0; i < n; i++) {
		pthread_t t;
		void *r = NULL;
		if (pthread_create(&t, NULL, one_thread, (void *)i) != 0 ||
		    pthread_join(t, &r) != 0 || r)
			return 4;
	}
	at(-1);
	return 0;
}

static int fill(unsigned long n)
{
	if (hooks())
		return 3;
	for (unsigned long i = 0; i < n; i++) {
		at((long long)i * 10000000 + 5000000);
		if (inject((uintptr_t)phase_a + 16 * i, 1) < 0)
			return 4;
	}
	at(-1);
	return 0;
}

static int inject_all(void)
{
	if (hooks())
		return 3;
	pthread_t t;
	void *r = NULL;
	if (tick(phase_a, 105000000, 5) < 0 || tick(phase_a, 995000000, 2) < 0 ||
	    pthread_create(&t, NULL, second, NULL) != 0 || pthread_join(t, &r) != 0 || r ||
	    tick(phase_b, 2500000000, 3) < 0) {
		fprintf(stderr, "phases inject: nothing recorded (PROFIL_ENGINE=manual?)\n");
		return 4;
	}
	at(-1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "burn") == 0) {
		double s = atof(argv[2]);
		phase_a(s);
		phase_b(s);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "inject") == 0)
		return inject_all();
	if (argc == 3 && strcmp(argv[1], "family") == 0)
		return family(argv[2]);
	if (argc == 3 && strcmp(argv[1], "threads") == 0)
		return threads(strtoul(argv[2], NULL, 10));
	if (argc == 3 && strcmp(argv[1], "fill") == 0)
		return fill(strtoul(argv[2], NULL, 10));
	fprintf(stderr, "usage: phases burn SECONDS | inject | family PATH | threads N | fill N\n");
	return 2;
}
