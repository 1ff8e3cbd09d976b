/*
 * attach-target.c - the process bench/attach-time attaches to: THREADS
 * threads (100), the main one a heartbeat, the others waking every 10 ms
 * from a nanosleep, as a service's idle workers do.
 *
 *   attach-target THREADS SECONDS GAPFILE
 *
 * The main thread spins for SECONDS of wall time reading CLOCK_MONOTONIC;
 * every gap of more than 1 ms between two readings (the thread did not
 * run: descheduled, stopped, or stalled in the kernel) goes to GAPFILE at
 * the end as "START_NS LENGTH_NS", START on CLOCK_MONOTONIC, the clock the
 * benchmark reads too.  It prints "ready" once every thread runs.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int done;

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *idle(void *arg)
{
	(void)arg;
	struct timespec ten = { 0, 10000000 };
	while (!done)
		nanosleep(&ten, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: attach-target THREADS SECONDS GAPFILE\n");
		return 2;
	}
	int n = atoi(argv[1]);
	pthread_t *t = calloc((size_t)(n > 1 ? n : 1), sizeof *t);
	for (int i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, idle, NULL) != 0)
			return 1;
	size_t cap = 1 << 16, ngap = 0;
	uint64_t(*gap)[2] = malloc(cap * sizeof *gap);
	printf("ready\n");
	fflush(stdout);
	uint64_t end = now() + (uint64_t)(atof(argv[2]) * 1e9), last = now();
	while (last < end) {
		uint64_t t1 = now();
		if (t1 - last > 1000000 && ngap < cap) {
			gap[ngap][0] = last;
			gap[ngap][1] = t1 - last;
			ngap++;
		}
		last = t1;
	}
	done = 1;
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	FILE *f = fopen(argv[3], "w");
	if (!f)
		return 1;
	for (size_t i = 0; i < ngap; i++)
		fprintf(f, "%llu %llu\n", (unsigned long long)gap[i][0], (unsigned long long)gap[i][1]);
	return fclose(f) != 0;
}
