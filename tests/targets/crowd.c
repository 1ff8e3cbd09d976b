/*
 * crowd - a target with many threads, for the tests of resource limits and
 * of threads that end without exit handlers (tests/cli-run/t-run-limits.sh).
 *
 *   crowd files N   N threads (each burns 5 ms of CPU) wait while the
 *                   program opens 16 files of its own; exit 0 if it could,
 *                   3 if not (after printing why)
 *   crowd rawexit N N threads burn 0.1 ms each and end with a raw
 *                   SYS_exit (no exit handlers run), four at a time
 *
 * and for the address-space tests (tests/cli-run/t-run-aslimit.sh):
 *   crowd as KIB MODE ARGS...  set RLIMIT_AS to KIB KiB, then exec
 *                   "crowd MODE ARGS..." (a new image, which starts under
 *                   the limit, as after ulimit -v)
 *   crowd vm N      N threads burn 20 ms of CPU each, then print "VmPeak
 *                   VmSize" in KiB
 *   crowd threads N N threads (default attributes) burn 20 ms each;
 *                   "ok", or exit 3 after saying which pthread_create
 *                   failed and why
 *   crowd most      create threads (each waits) until pthread_create
 *                   fails; print how many it made and the KiB of the
 *                   limit still free then (the limit less VmPeak)
 *   crowd malloc N  malloc N MiB, touch every page, burn 20 ms; "ok", or
 *                   exit 3 after saying why
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, go;

static void burn(double sec)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	double end = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + sec, now;
	do {
		for (volatile int i = 0; i < 1000; i++)
			;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	} while (now < end);
}

static void *waiter(void *arg)
{
	(void)arg;
	burn(0.005);
	pthread_mutex_lock(&mu);
	ready++;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *raw_exit(void *arg)
{
	(void)arg;
	burn(0.0001);
	syscall(SYS_exit, 0);
	return NULL;
}

static int files(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	if (!t)
		return 1;
	for (int i = 0; i < n; i++)
		if ((errno = pthread_create(&t[i], NULL, waiter, NULL))) {
			perror("crowd: pthread_create");
			return 1;
		}
	pthread_mutex_lock(&mu);
	while (ready < n)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	int status = 0;
	for (int i = 0; i < 16; i++)
		if (open("/dev/null", O_RDONLY) < 0) {
			printf("crowd: file %d: %s\n", i, strerror(errno));
			status = 3;
			break;
		}
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return status;
}

static int rawexits(int n)
{
	for (int i = 0; i < n; i += 4) {
		pthread_t t[4];
		for (int j = 0; j < 4; j++)
			if ((errno = pthread_create(&t[j], NULL, raw_exit, NULL))) {
				perror("crowd: pthread_create");
				return 1;
			}
		for (int j = 0; j < 4; j++)
			pthread_join(t[j], NULL);
	}
	return 0;
}

/* A number of KiB from /proc/self/status ("VmPeak"), -1 if none. */
static long status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static void *burner(void *arg)
{
	(void)arg;
	burn(0.02);
	return NULL;
}

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

#define MOST 256

static int burners(int n, bool vm)
{
	pthread_t t[MOST];
	if (n < 0 || n > MOST)
		return 2;
	for (int i = 0; i < n; i++) {
		int r = pthread_create(&t[i], NULL, burner, NULL);
		if (r) {
			printf("pthread_create %d of %d: %s\n", i + 1, n, strerror(r));
			return 3;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	burn(0.02);
	if (vm)
		printf("%ld %ld\n", status_kib("VmPeak"), status_kib("VmSize"));
	else
		printf("ok\n");
	return 0;
}

static int most(void)
{
	pthread_t t[MOST];
	int n = 0;
	while (n < MOST && pthread_create(&t[n], NULL, idle, NULL) == 0)
		n++;
	long peak = status_kib("VmPeak");
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	struct rlimit lim;
	if (getrlimit(RLIMIT_AS, &lim) < 0 || lim.rlim_cur == RLIM_INFINITY || peak < 0)
		return 2;
	printf("%d %ld\n", n, (long)(lim.rlim_cur / 1024) - peak);
	return 0;
}

static int big_malloc(long mib)
{
	size_t n = (size_t)mib << 20;
	char *p = malloc(n);
	if (!p) {
		printf("malloc of %ld MiB: %s\n", mib, strerror(errno));
		return 3;
	}
	memset(p, 1, n);
	burn(0.02);
	free(p);
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;
	if (argc > 2 && strcmp(argv[1], "files") == 0 && n > 0)
		return files(n);
	if (argc > 2 && strcmp(argv[1], "rawexit") == 0 && n > 0)
		return rawexits(n);
	if (argc > 3 && strcmp(argv[1], "as") == 0) {
		rlim_t v = (rlim_t)atol(argv[2]) * 1024;
		struct rlimit lim = { v, v };
		if (setrlimit(RLIMIT_AS, &lim) < 0) {
			perror("crowd: setrlimit");
			return 2;
		}
		argv[2] = argv[0];
		execv("/proc/self/exe", argv + 2);
		perror("crowd: exec");
		return 2;
	}
	if (argc == 3 && strcmp(argv[1], "vm") == 0)
		return burners(n, true);
	if (argc == 3 && strcmp(argv[1], "threads") == 0)
		return burners(n, false);
	if (argc == 2 && strcmp(argv[1], "most") == 0)
		return most();
	if (argc == 3 && strcmp(argv[1], "malloc") == 0)
		return big_malloc(n);
	fprintf(stderr, "usage: crowd files|rawexit|vm|threads|malloc N | most | as KIB MODE ...\n");
	return 2;
}
