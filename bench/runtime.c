/*
 * runtime.c - run a command and write its wall time, CPU time (user + sys,
 * microsecond resolution, the command and the children it waited for) and
 * peak RSS to a file: "wall_s cpu_s maxrss_kib".  /usr/bin/time prints CPU
 * time in hundredths, too coarse for ratios near 1 on runs of a few
 * seconds.  For bench/stacks-overhead.
 *
 *   runtime OUTFILE COMMAND [ARG ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: runtime OUTFILE COMMAND [ARG ...]\n");
		return 2;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%.6f %.6f %ld\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		ru.ru_maxrss);
	if (fclose(f) != 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
