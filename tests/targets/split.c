/*
 * split - a target for pcprof attach (tests/cli-attach): a running program
 * with a heartbeat and a known CPU split.  Built without libprofil.
 *
 *   split SECONDS BEATFILE [STATUS [THREADS [leader-exit]]]
 *
 * For SECONDS of wall time the main thread repeats split_a (two units of
 * work, times a random 1 to 3 each round) then split_b (one unit, times the
 * same), so split_a holds 2/3 of
 * the time spent in the two; between cycles it reads the monotonic clock
 * and every 20 ms writes the number of beats so far to BEATFILE (written
 * in place: one descriptor, opened at start).  THREADS extra threads (0)
 * sleep until the end.  At exit it prints "beats=N maxgap_ms=G
 * maxstall_ms=S" on stdout, G being the longest wall-clock time between
 * two cycles (a stopped or stalled process shows there) and S the longest
 * such time less what the thread spent waiting for a CPU in it (its
 * run_delay in /proc/thread-self/schedstat): on a loaded machine G grows
 * with the load, S only with a stop (a ptrace stop or SIGSTOP is not
 * waiting for a CPU).  Without schedstat S is G.  Exits with STATUS (0).
 * SIGUSR1 ends the run early, as if SECONDS had passed: a test gives a
 * long SECONDS and ends the target once it has what it needs, instead of
 * guessing how long a loaded machine takes to attach.
 * leader-exit: all that runs in a thread of its own (main called again
 * there) and the main thread ends with pthread_exit: the process lives on,
 * its leader a zombie, as /proc shows it; its status is that thread's
 * exit().
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define UNIT 20000 /* iterations: about 30 us */

static volatile double sink;
static volatile int done;
static volatile sig_atomic_t ended;

int main(int argc, char **argv);

static void on_usr1(int sig)
{
	(void)sig;
	ended = 1;
}

/* The calling thread's time waiting on a run queue, in seconds; 0 if
 * schedstat cannot be read. */
static double run_delay(int fd)
{
	char buf[96];
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	unsigned long long on_cpu, waited;
	return sscanf(buf, "%llu %llu", &on_cpu, &waited) == 2 ? (double)waited * 1e-9 : 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double work(int units)
{
	double x = sink;
	for (int i = 0; i < units * UNIT; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

/* Units of this round: random, so that the rounds cannot lock to the
 * sampling period on a quiet machine (the samples would then see the same
 * phase of a round again and again); split_a always does twice split_b's. */
static int units = 1;

__attribute__((noinline)) void split_a(void)
{
	sink = work(2 * units);
}

__attribute__((noinline)) void split_b(void)
{
	sink = work(units);
}

static void *sleeper(void *arg)
{
	(void)arg;
	while (!done)
		usleep(10000);
	return NULL;
}

static char **args;

static void *main_again(void *arg)
{
	(void)arg;
	exit(main(5, args));
}

int main(int argc, char **argv)
{
	if (argc > 5 && strcmp(argv[5], "leader-exit") == 0) {
		pthread_t t;
		args = argv;
		if (pthread_create(&t, NULL, main_again, NULL) != 0) {
			fprintf(stderr, "split: pthread_create failed\n");
			return 2;
		}
		pthread_exit(NULL);
	}
	if (argc < 3) {
		fprintf(stderr, "usage: split SECONDS BEATFILE [STATUS [THREADS [leader-exit]]]\n");
		return 2;
	}
	double secs = atof(argv[1]);
	int status = argc > 3 ? atoi(argv[3]) : 0;
	int nthreads = argc > 4 ? atoi(argv[4]) : 0;
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	pthread_t *t = calloc((size_t)nthreads + 1, sizeof *t);
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, sleeper, NULL) != 0) {
			fprintf(stderr, "split: pthread_create failed\n");
			return 2;
		}
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	int sfd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	double t0 = now(), last = t0, next_beat = t0, maxgap = 0, maxstall = 0;
	double delay = run_delay(sfd);
	long beats = 0;
	unsigned long r = 12345;
	for (;;) {
		r = r * 6364136223846793005UL + 1442695040888963407UL;
		units = 1 + (int)((r >> 33) % 3);
		split_a();
		split_b();
		double t = now();
		double d = run_delay(sfd);
		if (t - last > maxgap)
			maxgap = t - last;
		if (t - last - (d - delay) > maxstall)
			maxstall = t - last - (d - delay);
		last = t;
		delay = d;
		if (t >= next_beat) {
			char buf[32];
			int n = snprintf(buf, sizeof buf, "%ld\n", ++beats);
			if (pwrite(fd, buf, (size_t)n, 0) != n) {
				perror("split: heartbeat");
				return 2;
			}
			next_beat = t + 0.02;
		}
		if (t - t0 >= secs || ended)
			break;
	}
	done = 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("beats=%ld maxgap_ms=%.1f maxstall_ms=%.1f\n", beats, maxgap * 1e3, maxstall * 1e3);
	return status;
}
