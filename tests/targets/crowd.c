/*
 * crowd - a target with many threads, for the tests of resource limits and
 * of threads that end without exit handlers (tests/cli-run/t-run-limits.sh).
 *
 *   crowd files N   N threads (each burns 5 ms of CPU) wait while the
 *                   program opens 16 files of its own; exit 0 if it could,
 *                   3 if not (after printing why)
 *   crowd rawexit N N threads burn 0.1 ms each and end with a raw
 *                   SYS_exit (no exit handlers run), four at a time
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;
	if (argc > 2 && strcmp(argv[1], "files") == 0 && n > 0)
		return files(n);
	if (argc > 2 && strcmp(argv[1], "rawexit") == 0 && n > 0)
		return rawexits(n);
	fprintf(stderr, "usage: crowd files|rawexit N\n");
	return 2;
}
