/*
 * pingpong.c - programs that switch contexts far more than they compute,
 * for bench/switch-cost (issue 19, item 3): what a profiler costs a program
 * per context switch rather than per sample.
 *
 *   pingpong pipe N      two processes (fork) pass a byte back and forth
 *                        over two pipes, N round trips
 *   pingpong futex N     two threads of one process hand a word back and
 *                        forth with FUTEX_WAIT/FUTEX_WAKE, N round trips
 *   pingpong pipe1 N     pipe, both processes pinned to one CPU
 *   pingpong futex1 N    futex, both threads pinned to one CPU
 *   pingpong blocked T S T threads blocked in read(2) on a pipe while the
 *                        main thread burns S seconds of CPU time
 *   pingpong cpu S       burn S seconds of CPU time, nothing else
 *   pingpong spawn N PROG run PROG (no arguments) N times, one after the
 *                        other, waiting for each (a loop of /bin/true)
 *
 * Unpinned, each side of a ping-pong usually has a CPU of its own and every
 * hand-over is a wake-up of a sleeping thread on the other CPU (two
 * switches to and from idle per round trip on each CPU).  Pinned ("pipe1",
 * "futex1": the first CPU the process may use), every hand-over is one
 * switch from one task to the other, which is the cleanest figure of a
 * per-switch cost and the least sensitive to other load.
 *
 * Prints one line, "pingpong MODE wall=W user=U sys=S": seconds of wall
 * time from the start of the work to its end (the exec, the loader and a
 * preloaded library's start are outside it), and the user and system CPU
 * time of the process and the children it waited for.  Exit 1 on a failed
 * system call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long rounds;
static _Atomic int word; /* futex: 1 = the peer's turn, 0 = main's */

static void die(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Pin the calling thread (inherited by its later threads and children) to
 * the first CPU it may use. */
static void pin(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) < 0)
		die("sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			CPU_ZERO(&set);
			CPU_SET(c, &set);
			if (sched_setaffinity(0, sizeof set, &set) < 0)
				die("sched_setaffinity");
			return;
		}
}

static void xread(int fd, char *c)
{
	while (read(fd, c, 1) != 1)
		if (errno != EINTR)
			die("read");
}

static void xwrite(int fd, const char *c)
{
	while (write(fd, c, 1) != 1)
		if (errno != EINTR)
			die("write");
}

static void pipes(void)
{
	int there[2], back[2];
	char c = 'x';
	if (pipe(there) < 0 || pipe(back) < 0)
		die("pipe");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (long i = 0; i < rounds; i++) {
			xread(there[0], &c);
			xwrite(back[1], &c);
		}
		_exit(0);
	}
	for (long i = 0; i < rounds; i++) {
		xwrite(there[1], &c);
		xread(back[0], &c);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("the peer process");
}

/* Wait while the word is v, then hand the turn over: set it to !v and
 * wake the other side. */
static void await_not(int v)
{
	while (atomic_load(&word) == v)
		if (syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EINTR)
			die("FUTEX_WAIT");
}

static void hand(int v)
{
	atomic_store(&word, v);
	if (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0)
		die("FUTEX_WAKE");
}

static void *peer(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		await_not(0);
		hand(0);
	}
	return arg;
}

static void futexes(void)
{
	pthread_t t;
	if ((errno = pthread_create(&t, NULL, peer, NULL)) != 0)
		die("pthread_create");
	for (long i = 0; i < rounds; i++) {
		hand(1);
		await_not(1);
	}
	pthread_join(t, NULL);
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void burn(double secs)
{
	static volatile unsigned long sink;
	double t0 = cpu_now();
	while (cpu_now() - t0 < secs)
		for (int i = 0; i < 200000; i++)
			sink += (unsigned long)i;
}

static int block_fd;

static void *blocked(void *arg)
{
	char c;
	while (read(block_fd, &c, 1) < 0 && errno == EINTR)
		continue;
	return arg;
}

static void blocked_threads(long n, double secs)
{
	int p[2];
	if (pipe(p) < 0)
		die("pipe");
	block_fd = p[0];
	pthread_t *t = calloc((size_t)n, sizeof *t);
	if (!t)
		die("calloc");
	for (long i = 0; i < n; i++)
		if ((errno = pthread_create(&t[i], NULL, blocked, NULL)) != 0)
			die("pthread_create");
	burn(secs);
	close(p[1]); /* end of file: every reader returns */
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
}

static void spawn(long n, char *prog)
{
	char *argv[] = { prog, NULL };
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			execv(prog, argv);
			_exit(127);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			die(prog);
	}
}

static double since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) + (b.tv_nsec - a->tv_nsec) * 1e-9;
}

static double tv(struct timeval a, struct timeval b)
{
	return (double)(a.tv_sec + b.tv_sec) + (a.tv_usec + b.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: pingpong pipe|futex|pipe1|futex1 N | blocked T S | cpu S | "
				"spawn N PROG\n");
		return 2;
	}
	const char *m = argv[1];
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (strcmp(m, "cpu") == 0) {
		burn(atof(argv[2]));
	} else if (strcmp(m, "blocked") == 0) {
		blocked_threads(atol(argv[2]), argc > 3 ? atof(argv[3]) : 1.0);
	} else if (strcmp(m, "spawn") == 0 && argc > 3) {
		spawn(atol(argv[2]), argv[3]);
	} else {
		rounds = atol(argv[2]);
		if (strcmp(m, "pipe1") == 0 || strcmp(m, "futex1") == 0)
			pin();
		if (strncmp(m, "pipe", 4) == 0)
			pipes();
		else if (strncmp(m, "futex", 5) == 0)
			futexes();
		else {
			fprintf(stderr, "pingpong: unknown mode %s\n", m);
			return 2;
		}
	}
	double wall = since(&t0);
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	printf("pingpong %s wall=%.6f user=%.6f sys=%.6f\n", m, wall, tv(self.ru_utime, kids.ru_utime),
	       tv(self.ru_stime, kids.ru_stime));
	return 0;
}
