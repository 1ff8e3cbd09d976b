/*
 * Under `ulimit -n 64`, a program that creates 100 threads and opens its
 * own files behaves exactly as unprofiled: the per-thread engines never
 * take the descriptors it needs (issue 8, item 4; before, perf's fasync
 * variant took one per thread until none was left).
 *
 * The program opens 8 files, creates 100 threads (each burns 10 ms of CPU
 * and waits), waits until they all run, opens 16 more files and a pipe,
 * then lets its threads end.
 * It needs 26 descriptors beyond its standard ones; the library may hold at
 * most half of the headroom it sees (libprofil(7), LIMITS), which leaves
 * them.  What the program saw (threads created, files opened, errors) must
 * be the same with and without profiling, and the profile must still have
 * counted ticks, with every thread either attached or counted as not
 * sampled, the limit named in profil_stats().why.  With the perf engine
 * both variants run (fasync, which needs a descriptor per thread, in a
 * re-executed child).
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

#include "helpers/limits.h"

#define THREADS 100
#define BEFORE  8
#define AFTER   16

static void open_files(int *fds, int n, int *opened, int *err)
{
	for (int i = 0; i < n; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fds[i] >= 0)
			++*opened;
		else if (!*err)
			*err = errno;
	}
}

static void work(char *seen, size_t len)
{
	static double burn = 0.01;
	pthread_t t[THREADS];
	int fds[BEFORE + AFTER], made = 0, terr = 0, opened = 0, ferr = 0, p[2], perr = 0;

	open_files(fds, BEFORE, &opened, &ferr);
	made = tl_start(t, THREADS, &burn, &terr);
	open_files(fds + BEFORE, AFTER, &opened, &ferr);
	if (pipe(p) < 0)
		perr = errno;
	tl_release();
	for (int i = 0; i < made; i++)
		T_OK(pthread_join(t[i], NULL) == 0);
	snprintf(seen, len, "threads %d (%s), files %d (%s), pipe %s", made, strerror(terr),
		 opened, strerror(ferr), strerror(perr));
	for (int i = 0; i < BEFORE + AFTER; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (!perr) {
		close(p[0]);
		close(p[1]);
	}
}

int main(int argc, char **argv)
{
	int fasync = argc > 1 && strcmp(argv[1], "fasync") == 0;
	if (tp_engine_is("perf") && !getenv("PROFIL_PERF_MODE")) {
		const char *env[] = { "PROFIL_PERF_MODE=fasync", NULL };
		tp_rerun_ok("fasync", env);
	}
	struct tl_run r = tl_same(RLIMIT_NOFILE, 64, work);
	tl_counted(&r, THREADS, "RLIMIT_NOFILE", fasync); /* a descriptor per thread */
	return 0;
}
