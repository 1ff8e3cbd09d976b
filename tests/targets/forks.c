/*
 * forks - a target for pcprof's external mode (t-run-external-fork.sh): a
 * process tree with a known CPU owner in each process.  Built without
 * libprofil; the test links it statically too.
 *
 *   forks SECONDS [STATUS]
 *
 * The parent forks a child that burns SECONDS of its own CPU time in
 * burn_forked and exits with 5, then a second child that execs this program
 * again ("forks -exec SECONDS") which burns SECONDS in burn_execd and exits
 * with 6; meanwhile it burns SECONDS in burn_parent, then waits for both.
 * Each process prints "NAME pid=PID cpu=SECONDS" (its own user + system
 * time) as it ends; the parent exits with STATUS (0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

static double cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* The three burners: the same loop, each a function of its own. */
#define BURNER(name)                                                                               \
	__attribute__((noinline)) static void name(double secs)                                    \
	{                                                                                          \
		while (cpu() < secs)                                                               \
			for (int i = 0; i < 20000; i++)                                            \
				sink = sink * 1.0000001 + 1e-9;                                    \
	}
BURNER(burn_parent)
BURNER(burn_forked)
BURNER(burn_execd)

static void done(const char *name)
{
	printf("%s pid=%d cpu=%.3f\n", name, (int)getpid(), cpu());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "-exec") == 0) {
		burn_execd(atof(argv[2]));
		done("execd");
		return 6;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: forks SECONDS [STATUS]\n");
		return 2;
	}
	double secs = atof(argv[1]);
	fflush(stdout);
	pid_t a = fork();
	if (a == 0) {
		burn_forked(secs);
		done("forked");
		_exit(5);
	}
	pid_t b = fork();
	if (b == 0) {
		execl("/proc/self/exe", argv[0], "-exec", argv[1], (char *)NULL);
		_exit(127);
	}
	if (a < 0 || b < 0) {
		perror("fork");
		return 1;
	}
	burn_parent(secs);
	int st;
	waitpid(a, &st, 0);
	waitpid(b, &st, 0);
	done("parent");
	return argc > 2 ? atoi(argv[2]) : 0;
}
