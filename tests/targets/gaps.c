/*
 * gaps - a target for pcprof run's CPU-time accounting (tests/cli-run,
 * t-run-gaps*.sh): programs whose CPU time the preloaded library once
 * missed, each in its own function.  Built without libprofil.
 *
 *   gaps MODE SECONDS [N]
 *
 *   sigev     a SIGEV_THREAD timer (glibc runs each expiry in a thread of
 *             its own, every signal blocked) whose callback, gap_callback,
 *             burns SECONDS / N of its thread's CPU time in
 *             gap_burn_callback, N times (20), one after the other
 *   uring     io_uring reads of /dev/zero forced to its workers
 *             (IOSQE_ASYNC): the kernel clears the buffers in worker
 *             threads of the process, SECONDS of their CPU time; exit 77
 *             if io_uring cannot be set up
 *   perfoff   gap_before burns SECONDS, then the program disables its perf
 *             counters with prctl(PR_TASK_PERF_EVENTS_DISABLE) and
 *             gap_after burns SECONDS
 *   perfoffsys  the same through syscall(SYS_prctl, ...)
 *   rawmask   gap_before burns SECONDS, then the main thread blocks every
 *             signal with a raw rt_sigprocmask (past libc) and gap_after
 *             burns SECONDS
 *   pidns     unshare(CLONE_NEWPID), then a child (pid 1 of the new
 *             namespace) runs gap_child for SECONDS and forks a grandchild
 *             that runs gap_grandchild for SECONDS; exit 77 if the
 *             namespace is refused
 *   threads   N threads (100000), 64 at a time, each burning about
 *             SECONDS / N of its CPU time in gap_thread, created and
 *             joined
 *   reuse     N children (10), one after the other, each burning SECONDS
 *             / N; before each fork after the first, the pid before the
 *             last child's is written to /proc/sys/kernel/ns_last_pid
 *             (root), so that the kernel gives the next child the same
 *             pid; prints "children N pids D" (D: distinct pids), exit 77
 *             if the file cannot be written
 *   forkstarved  gap_before burns SECONDS; then, with RLIMIT_SIGPENDING
 *             at 0 and RLIMIT_NOFILE one above the lowest free descriptor
 *             (what a new timer or perf event needs is gone, a recording
 *             file can still be made), a child runs gap_child for SECONDS
 *   maps      maps and unmaps an anonymous executable page again and
 *             again for SECONDS of CPU time: a perf side-band record
 *             (PERF_RECORD_MMAP2) each, and little else
 *
 * Durations are CPU time, read every 20000 iterations.  Prints nothing
 * unless said; exits 0 (or with the status of a child that failed).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Each burner is a function of its own, so that a test can tell where the
 * samples went. */
#define BURNER(name)                                                                               \
	__attribute__((noinline)) static void name(double secs)                                    \
	{                                                                                          \
		double t0 = thread_cpu(), x = 0;                                                   \
		do {                                                                               \
			for (int i = 0; i < 20000; i++)                                            \
				x += i * 0.5;                                                      \
		} while (thread_cpu() - t0 < secs);                                                \
		sink = x;                                                                          \
	}
BURNER(gap_before)
BURNER(gap_after)
BURNER(gap_child)
BURNER(gap_grandchild)
BURNER(gap_burn_callback)
BURNER(gap_burn_thread)

/* ---- sigev ---- */

static _Atomic int callbacks;
static int ncallbacks;
static double callback_secs;
static timer_t sigev_timer;

/* One expiry 1 ms from now: each callback arms the next one when it is
 * done, so that they never overlap and the program's CPU time is theirs. */
static void arm_once(void)
{
	struct itimerspec its = { { 0, 0 }, { 0, 1000000 } };
	timer_settime(sigev_timer, 0, &its, NULL);
}

__attribute__((noinline)) static void gap_callback(union sigval v)
{
	(void)v;
	gap_burn_callback(callback_secs);
	if (atomic_fetch_add(&callbacks, 1) + 1 < ncallbacks)
		arm_once();
}

static int run_sigev(double secs, int n)
{
	callback_secs = secs / n;
	ncallbacks = n;
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = gap_callback;
	if (timer_create(CLOCK_MONOTONIC, &sev, &sigev_timer) != 0) {
		perror("timer_create");
		return 1;
	}
	arm_once();
	while (atomic_load(&callbacks) < n) {
		struct timespec nap = { 0, 1000000 };
		nanosleep(&nap, NULL);
	}
	timer_delete(sigev_timer);
	return 0;
}

/* ---- uring ---- */

#define ENTRIES 8
#define CHUNK   (8u << 20)

static int run_uring(double secs)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	int ring = (int)syscall(SYS_io_uring_setup, ENTRIES, &p);
	if (ring < 0) {
		printf("SKIP: io_uring_setup: %s\n", strerror(errno));
		return 77;
	}
	size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
	size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
			IORING_OFF_SQ_RING);
	char *cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
			IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes =
		mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	char *buf = malloc(CHUNK);
	int zero = open("/dev/zero", O_RDONLY);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED || !buf || zero < 0) {
		perror("gaps uring");
		return 1;
	}
	_Atomic uint32_t *sq_tail = (_Atomic uint32_t *)(sq + p.sq_off.tail);
	uint32_t *sq_array = (uint32_t *)(sq + p.sq_off.array), mask = *(uint32_t *)(sq + p.sq_off.ring_mask);
	_Atomic uint32_t *cq_head = (_Atomic uint32_t *)(cq + p.cq_off.head);
	_Atomic uint32_t *cq_tail = (_Atomic uint32_t *)(cq + p.cq_off.tail);
	/* The workers' CPU time is the process's less this thread's. */
	struct timespec ts;
	double start;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	start = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - thread_cpu();
	for (;;) {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		if ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - thread_cpu() - start >= secs)
			break;
		uint32_t tail = atomic_load(sq_tail), i = tail & mask;
		memset(&sqes[i], 0, sizeof sqes[i]);
		sqes[i].opcode = IORING_OP_READ;
		sqes[i].flags = IOSQE_ASYNC; /* to a worker, not inline */
		sqes[i].fd = zero;
		sqes[i].addr = (uintptr_t)buf;
		sqes[i].len = CHUNK;
		sqes[i].off = 0;
		sq_array[i] = i;
		atomic_store(sq_tail, tail + 1);
		if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
			perror("io_uring_enter");
			return 1;
		}
		uint32_t head = atomic_load(cq_head);
		if (head != atomic_load(cq_tail))
			atomic_store(cq_head, head + 1);
	}
	return 0;
}

/* ---- perfoff, rawmask ---- */

static int run_perfoff(double secs, bool sys)
{
	gap_before(secs);
	if ((sys ? syscall(SYS_prctl, PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0)
		 : prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0)) != 0) {
		perror("prctl");
		return 1;
	}
	gap_after(secs);
	return 0;
}

static int run_rawmask(double secs)
{
	gap_before(secs);
	uint64_t all = ~UINT64_C(0);
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof all) != 0) {
		perror("rt_sigprocmask");
		return 1;
	}
	gap_after(secs);
	return 0;
}

/* ---- pidns ---- */

static int run_pidns(double secs)
{
	if (unshare(CLONE_NEWPID) != 0) {
		printf("SKIP: unshare(CLONE_NEWPID): %s\n", strerror(errno));
		return 77;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		gap_child(secs);
		pid_t g = fork();
		if (g == 0) {
			gap_grandchild(secs);
			exit(0);
		}
		int st = 0;
		if (g < 0 || waitpid(g, &st, 0) != g)
			exit(1);
		exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	int st = 0;
	if (waitpid(child, &st, 0) != child)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ---- threads ---- */

static double thread_secs;

static void *gap_thread(void *arg)
{
	gap_burn_thread(thread_secs);
	return arg;
}

static int run_threads(double secs, int n)
{
	thread_secs = secs / n;
	pthread_t th[64];
	for (int done = 0; done < n;) {
		int k = n - done < 64 ? n - done : 64;
		for (int i = 0; i < k; i++)
			if (pthread_create(&th[i], NULL, gap_thread, NULL) != 0) {
				perror("pthread_create");
				return 1;
			}
		for (int i = 0; i < k; i++)
			pthread_join(th[i], NULL);
		done += k;
	}
	return 0;
}

/* ---- reuse ---- */

static int run_reuse(double secs, int n)
{
	pid_t pids[256];
	int distinct = 0;
	if (n > 256)
		n = 256;
	for (int i = 0; i < n; i++) {
		if (i) {
			FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
			if (!f || fprintf(f, "%d", (int)pids[i - 1] - 1) < 0 || fclose(f) != 0) {
				printf("SKIP: cannot write /proc/sys/kernel/ns_last_pid: %s\n",
				       strerror(errno));
				return 77;
			}
		}
		pid_t p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			gap_child(secs / n);
			exit(0);
		}
		int st = 0;
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		pids[i] = p;
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen |= pids[k] == p;
		distinct += !seen;
	}
	printf("children %d pids %d\n", n, distinct);
	return 0;
}

/* ---- forkstarved ---- */

static int run_forkstarved(double secs)
{
	gap_before(secs);
	int fd = open("/dev/null", O_RDONLY);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	close(fd);
	struct rlimit none = { 0, 0 }, files = { (rlim_t)fd + 1, (rlim_t)fd + 1 };
	if (setrlimit(RLIMIT_SIGPENDING, &none) != 0 || setrlimit(RLIMIT_NOFILE, &files) != 0) {
		perror("setrlimit");
		return 1;
	}
	pid_t p = fork();
	if (p < 0) {
		perror("fork");
		return 1;
	}
	if (p == 0) {
		gap_child(secs);
		exit(0);
	}
	int st = 0;
	if (waitpid(p, &st, 0) != p)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ---- maps ---- */

static int run_maps(double secs)
{
	struct timespec ts;
	double t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	t0 = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	do {
		for (int i = 0; i < 100; i++) {
			void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
				       -1, 0);
			if (p == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			munmap(p, 4096);
		}
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	} while (t - t0 < secs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gaps MODE SECONDS [N]\n");
		return 2;
	}
	const char *mode = argv[1];
	double secs = atof(argv[2]);
	int n = argc > 3 ? atoi(argv[3]) : 0;
	if (strcmp(mode, "sigev") == 0)
		return run_sigev(secs, n > 0 ? n : 20);
	if (strcmp(mode, "uring") == 0)
		return run_uring(secs);
	if (strcmp(mode, "perfoff") == 0 || strcmp(mode, "perfoffsys") == 0)
		return run_perfoff(secs, strcmp(mode, "perfoffsys") == 0);
	if (strcmp(mode, "rawmask") == 0)
		return run_rawmask(secs);
	if (strcmp(mode, "pidns") == 0)
		return run_pidns(secs);
	if (strcmp(mode, "threads") == 0)
		return run_threads(secs, n > 0 ? n : 100000);
	if (strcmp(mode, "reuse") == 0)
		return run_reuse(secs, n > 0 ? n : 10);
	if (strcmp(mode, "maps") == 0)
		return run_maps(secs);
	if (strcmp(mode, "forkstarved") == 0)
		return run_forkstarved(secs);
	fprintf(stderr, "gaps: unknown mode %s\n", mode);
	return 2;
}
