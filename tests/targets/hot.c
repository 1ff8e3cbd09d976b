/*
 * hot - a target for pcprof run's end-to-end tests (tests/cli-run): known
 * hot functions, and every way a process can end.  Built without
 * libprofil; pcprof preloads it.
 *
 *   hot MODE SECONDS [FILE]
 *
 * Each hot_* function burns SECONDS of its thread's CPU time in its own
 * loop (the clock is read only every 100000 iterations, so nearly every
 * sample lands in the loop itself).
 *
 *   main        hot_main; exit 0
 *   threads     threads "worker-a" and "worker-b" run hot_thread_a and
 *               hot_thread_b, SECONDS each, at the same time; exit 0
 *   fork        the parent runs hot_parent, its child hot_child; the
 *               parent waits and exits with the child's status (0)
 *   exec        hot_before_exec, then exec "hot after-exec SECONDS"
 *   after-exec  hot_after_exec; exit 0
 *   exit        hot_main, then _exit(7): no exit handlers
 *   abort       hot_main, then abort()
 *   segv        hot_main, then a write through a null pointer
 *   dlopen      load libz.so.1 with dlopen(), run its crc32() over a buffer
 *               for SECONDS, close it again, then exit 0
 *   wait        hot_main, then write FILE and sleep until a signal
 *   sigint      SIGINT handled; write FILE, then hot_main until SIGINT
 *               arrives (at most SECONDS), then exit 42 (43 if none came)
 *   starved     like threads, after taking away what a new thread's timer
 *               or perf event needs (RLIMIT_SIGPENDING 0, RLIMIT_NOFILE at
 *               the lowest free descriptor)
 *   split       like threads, but worker-a burns 2 x SECONDS and worker-b
 *               SECONDS; write to FILE "TID-A NS-A TID-B NS-B", each
 *               thread's id and CPU nanoseconds
 *   rw          alternately read 8 MiB from /dev/zero (the kernel clears
 *               them: system time in read) and write them to /dev/null
 *               (next to nothing) for SECONDS of CPU time; write to FILE
 *               "READ WRITE ALL USER", the CPU nanoseconds spent inside the
 *               read calls, inside the write calls, in all, and in user
 *               mode (getrusage)
 *   tree        "hot tree 0 FILE CMD...": run CMD, wait for it, write to
 *               FILE "ALL USER", the CPU nanoseconds of the whole tree
 *               (every descendant reaped, and this process) and the part
 *               in user mode; exit with CMD's status
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../test.h"

static volatile double sink;
static volatile sig_atomic_t got_sigint;

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The hot loops read their clock with the system call made from the loop
 * itself (t_cpu_here, tests/test.h): a late profiling signal is delivered
 * on the return from the read, which in libc's clock_gettime would put
 * its ticks outside the hot function (a loaded run of t-thread-split lost
 * 12 % of a thread's ticks that way). */
#define HOT(name)                                                                                  \
	__attribute__((noinline)) void name(double seconds)                                        \
	{                                                                                          \
		double x = 1.0, t0 = t_cpu_here(CLOCK_THREAD_CPUTIME_ID);                          \
		do {                                                                               \
			for (int i = 0; i < 100000; i++)                                           \
				x = x * 1.0000001 + 1e-9;                                          \
		} while (t_cpu_here(CLOCK_THREAD_CPUTIME_ID) - t0 < seconds && !got_sigint);       \
		sink = x;                                                                          \
	}
HOT(hot_main)
HOT(hot_thread_a)
HOT(hot_thread_b)
HOT(hot_parent)
HOT(hot_child)
HOT(hot_before_exec)
HOT(hot_after_exec)

static double secs;

/* Time spent in a library the program loads and unloads itself. */
static int run_libz(double seconds)
{
	void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	typedef unsigned long crc_fn(unsigned long, const unsigned char *, unsigned);
	crc_fn *crc = h ? (crc_fn *)dlsym(h, "crc32") : NULL;
	if (!crc) {
		fprintf(stderr, "hot: %s\n", dlerror());
		return 1;
	}
	static unsigned char buf[1 << 16];
	unsigned long c = 0;
	double t0 = cpu();
	/* The clock is read once per 1 MiB of crc32, not per 64 KiB: a late
	 * sample is delivered at the next return to user mode, which the
	 * clock's system call gives, and charged to the vDSO, not to libz (in
	 * an ASan run at load 10, 21 of 81 ticks, and libz's share fell to
	 * 67% of the 70% t-run-dlopen.sh asks). */
	do
		for (int i = 0; i < 16; i++)
			c = crc(c, buf, sizeof buf);
	while (cpu() - t0 < seconds);
	sink = (double)c;
	return dlclose(h) != 0;
}

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	if (strcmp(arg, "worker-a") == 0)
		hot_thread_a(secs);
	else
		hot_thread_b(secs);
	return NULL;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

static void write_file(const char *path)
{
	char pid[32];
	snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	write_text(path, pid);
}

static unsigned long long ns(double s)
{
	return (unsigned long long)(s * 1e9);
}

struct split {
	const char *name;
	void (*burn)(double);
	double seconds, cpu;
	pid_t tid;
};

static void *split_worker(void *arg)
{
	struct split *w = arg;
	pthread_setname_np(pthread_self(), w->name);
	w->tid = (pid_t)syscall(SYS_gettid);
	w->burn(w->seconds);
	w->cpu = cpu();
	return NULL;
}

static int split(const char *file)
{
	struct split w[2] = { { "worker-a", hot_thread_a, 2 * secs, 0, 0 },
			      { "worker-b", hot_thread_b, secs, 0, 0 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, split_worker, &w[i]) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	char text[128];
	snprintf(text, sizeof text, "%d %llu %d %llu\n", (int)w[0].tid, ns(w[0].cpu),
		 (int)w[1].tid, ns(w[1].cpu));
	write_text(file, text);
	return 0;
}

static unsigned long long tv_ns(struct timeval tv)
{
	return (unsigned long long)tv.tv_sec * 1000000000ull + (unsigned long long)tv.tv_usec * 1000;
}

static int read_write(const char *file)
{
	enum { CHUNK = 8 << 20 };
	char *buf = malloc(CHUNK);
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	if (!buf || in < 0 || out < 0)
		return 1;
	double in_read = 0, in_write = 0, t0 = cpu();
	while (cpu() - t0 < secs) {
		double a = cpu();
		if (read(in, buf, CHUNK) != CHUNK)
			return 1;
		double b = cpu();
		if (write(out, buf, CHUNK) != CHUNK)
			return 1;
		double c = cpu();
		in_read += b - a;
		in_write += c - b;
	}
	double all = cpu() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	char text[128];
	snprintf(text, sizeof text, "%llu %llu %llu %llu\n", ns(in_read), ns(in_write), ns(all),
		 tv_ns(ru.ru_utime));
	write_text(file, text);
	return 0;
}

static int tree(const char *file, char **argv)
{
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	struct rusage kids, self;
	getrusage(RUSAGE_CHILDREN, &kids);
	getrusage(RUSAGE_SELF, &self);
	unsigned long long user = tv_ns(kids.ru_utime) + tv_ns(self.ru_utime);
	char text[64];
	snprintf(text, sizeof text, "%llu %llu\n",
		 user + tv_ns(kids.ru_stime) + tv_ns(self.ru_stime), user);
	write_text(file, text);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hot MODE SECONDS [FILE]\n");
		return 2;
	}
	const char *mode = argv[1], *file = argc > 3 ? argv[3] : NULL;
	secs = atof(argv[2]);

	if (strcmp(mode, "main") == 0) {
		hot_main(secs);
	} else if (strcmp(mode, "threads") == 0 || strcmp(mode, "starved") == 0) {
		if (mode[0] == 's') {
			int lowest = dup(0);
			struct rlimit r;
			if (lowest < 0 || close(lowest) < 0 || getrlimit(RLIMIT_NOFILE, &r) < 0)
				return 1;
			r.rlim_cur = (rlim_t)lowest;
			if (setrlimit(RLIMIT_NOFILE, &r) < 0 || getrlimit(RLIMIT_SIGPENDING, &r) < 0)
				return 1;
			r.rlim_cur = 0;
			if (setrlimit(RLIMIT_SIGPENDING, &r) < 0)
				return 1;
		}
		pthread_t a, b;
		pthread_create(&a, NULL, worker, "worker-a");
		pthread_create(&b, NULL, worker, "worker-b");
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else if (strcmp(mode, "fork") == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			hot_child(secs);
			exit(0);
		}
		hot_parent(secs);
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return 1;
		return WEXITSTATUS(st);
	} else if (strcmp(mode, "exec") == 0) {
		hot_before_exec(secs);
		execl("/proc/self/exe", "hot", "after-exec", argv[2], (char *)NULL);
		perror("exec");
		return 1;
	} else if (strcmp(mode, "after-exec") == 0) {
		hot_after_exec(secs);
	} else if (strcmp(mode, "exit") == 0) {
		hot_main(secs);
		_exit(7);
	} else if (strcmp(mode, "abort") == 0) {
		hot_main(secs);
		abort();
	} else if (strcmp(mode, "segv") == 0) {
		hot_main(secs);
		volatile int *volatile null = NULL;
		*null = 1;
	} else if (strcmp(mode, "dlopen") == 0) {
		return run_libz(secs);
	} else if (strcmp(mode, "wait") == 0 && file) {
		hot_main(secs);
		write_file(file);
		for (;;)
			pause();
	} else if (strcmp(mode, "sigint") == 0 && file) {
		struct sigaction sa = { .sa_handler = on_sigint };
		sigaction(SIGINT, &sa, NULL);
		write_file(file);
		hot_main(secs);
		return got_sigint ? 42 : 43;
	} else if (strcmp(mode, "split") == 0 && file) {
		return split(file);
	} else if (strcmp(mode, "rw") == 0 && file) {
		return read_write(file);
	} else if (strcmp(mode, "tree") == 0 && argc > 4) {
		return tree(file, argv + 4);
	} else {
		fprintf(stderr, "hot: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
