/*
 * pool - a worker pool whose workers end with _exit, as Python's
 * multiprocessing and most fork servers end theirs (t-run-quick-exit.sh).
 *
 *   pool N SECONDS
 *
 * Forks N workers, two at a time; each burns SECONDS of its own CPU time
 * and ends with _exit(0), without exit handlers.  The parent waits for
 * each, and exits 0 if every worker did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void work(double secs)
{
	double end = cpu_now() + secs;
	volatile unsigned long n = 0;
	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			n++;
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: pool N SECONDS\n");
		return 2;
	}
	int n = atoi(argv[1]), bad = 0, running = 0;
	double secs = atof(argv[2]);
	for (int i = 0; i < n || running; i++) {
		if (i < n) {
			pid_t p = fork();
			if (p == 0)
				work(secs);
			if (p < 0) {
				perror("fork");
				return 1;
			}
			running++;
		}
		if (running == 2 || i >= n) {
			int st;
			if (wait(&st) < 0)
				return 1;
			bad += !WIFEXITED(st) || WEXITSTATUS(st);
			running--;
		}
	}
	return bad != 0;
}
