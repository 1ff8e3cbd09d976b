/*
 * A program that closes the library's descriptors and reuses the numbers
 * keeps its own files: the library never closes a descriptor that is not
 * provably its own (issue 8, item 4).
 *
 * Profiling starts with two threads already running (attached at start:
 * with perf, each gets an event descriptor) and two more are created while
 * it runs.  Then the program closes every descriptor above 2 (close_range)
 * and opens its own files, which take the freed numbers: memfds with known
 * contents, an eventfd and, where perf is allowed, a perf counter of its
 * own (the same kind of descriptor the library uses, with another event
 * id).  Then, each followed by a check that every one of those files is
 * still open and reads back its contents (no EBADF anywhere):
 *   - the four threads exit (each detach);
 *   - a forked child (the engine forgets the parent's descriptors there)
 *     checks in the child, creates and joins a thread, checks again;
 *   - profiling stops; the threads whose events the program closed are
 *     counted as not sampled (profil_stats().thread_errors, for perf), and
 *     nothing is counted for the timer engines, whose timers were untouched;
 *   - profiling starts again, the program closes the one new descriptor with
 *     a loop of close() and reuses it, then execs itself (the exec stop
 *     detaches every thread) and the new image checks the files it
 *     inherited.
 * With the perf engine the whole is run for both variants (sigtrap, then
 * fasync in a re-executed child).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define FILES 16
#define MAXFD 64

static int fds[MAXFD], nfds;
static int perf_fd = -1;
static uint64_t perf_id;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;

static void *waiter(void *arg)
{
	(void)arg;
	tp_burn_thread(0.02);
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	tp_burn_thread(0.02);
	return NULL;
}

static void *short_thread(void *arg)
{
	(void)arg;
	tp_burn_thread(0.01);
	return NULL;
}

/* The contents of the memfd at descriptor fd. */
static void tag(int fd, char *out, size_t len)
{
	snprintf(out, len, "file at descriptor %d", fd);
}

static int own_perf_counter(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* Open files until every number from 3 to the highest one the library may
 * have held is taken again by the program. */
static void open_files(void)
{
	nfds = 0;
	for (int i = 0; i < FILES; i++) {
		int fd;
		if (i == 1) {
			fd = eventfd(7, 0);
		} else if (i == 2 && (fd = own_perf_counter()) >= 0) {
			perf_fd = fd;
			T_OK(ioctl(fd, PERF_EVENT_IOC_ID, &perf_id) == 0);
		} else {
			fd = memfd_create("t-fd-reuse", 0);
			T_OK(fd >= 0);
			char text[64];
			tag(fd, text, sizeof text);
			T_OK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
		}
		T_OK(fd >= 0);
		fds[nfds++] = fd;
	}
}

static void check_files(const char *when)
{
	for (int i = 0; i < nfds; i++) {
		int fd = fds[i];
		if (fcntl(fd, F_GETFD) < 0)
			T_FAIL("%s: descriptor %d: %s", when, fd, strerror(errno));
		if (fd == perf_fd) {
			uint64_t id = 0;
			T_OK(ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0);
			if (id != perf_id)
				T_FAIL("%s: descriptor %d: perf id %llu, not %llu", when, fd,
				       (unsigned long long)id, (unsigned long long)perf_id);
			continue;
		}
		char want[64], got[64] = "";
		uint64_t v;
		ssize_t n;
		if ((n = read(fd, &v, sizeof v)) == sizeof v) { /* the eventfd */
			T_EQ(v, 7);
			T_OK(write(fd, &v, sizeof v) == sizeof v);
			continue;
		}
		tag(fd, want, sizeof want);
		n = pread(fd, got, sizeof got - 1, 0);
		if (n < 0)
			T_FAIL("%s: descriptor %d: %s", when, fd, strerror(errno));
		got[n] = '\0';
		if (strcmp(got, want) != 0)
			T_FAIL("%s: descriptor %d holds \"%s\", not \"%s\"", when, fd, got, want);
	}
}

static int after_exec(int argc, char **argv)
{
	nfds = 0;
	for (int i = 2; i < argc && nfds < MAXFD; i++) {
		int fd = atoi(argv[i]);
		if (fd < 0) { /* the perf counter, as -fd:id */
			fd = -fd;
			perf_fd = fd;
			perf_id = strtoull(strchr(argv[i], ':') + 1, NULL, 10);
		}
		fds[nfds++] = fd;
	}
	check_files("after exec");
	return 0;
}

static void fork_check(void)
{
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		check_files("in the fork child");
		pthread_t t;
		T_OK(pthread_create(&t, NULL, short_thread, NULL) == 0);
		T_OK(pthread_join(t, NULL) == 0);
		check_files("in the fork child, after a thread");
		_exit(0);
	}
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	tp_child_ok(st);
}

static int run(void)
{
	static unsigned short buf[4];
	pthread_t t[4];

	for (int i = 0; i < 2; i++)
		T_OK(pthread_create(&t[i], NULL, waiter, NULL) == 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	for (int i = 2; i < 4; i++)
		T_OK(pthread_create(&t[i], NULL, waiter, NULL) == 0);
	tp_burn(0.05);

	close_range(3, ~0u, 0);
	open_files();
	check_files("after reuse");

	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 4; i++)
		T_OK(pthread_join(t[i], NULL) == 0);
	check_files("after the threads exited");

	fork_check();
	check_files("after fork");

	T_EQ(tp_profil_off(), 0);
	check_files("after profiling stopped");
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	if (tp_engine_is("perf")) {
		if (st.thread_errors < 5) /* main and the four threads */
			T_FAIL("thread_errors %llu, want >= 5 (why: %s)", st.thread_errors,
			       st.why);
		if (!strstr(st.why, "closed by the program"))
			T_FAIL("why does not say what was lost: %s", st.why);
	} else {
		T_EQ(st.thread_errors, 0);
	}

	/* Again with a loop of close(), then exec. */
	tp_profil_on(buf, sizeof buf, 0, 2);
	for (int fd = fds[nfds - 1] + 1; fd < 1024; fd++)
		close(fd);
	int fd = memfd_create("t-fd-reuse", 0);
	T_OK(fd > fds[nfds - 1]);
	char text[64];
	tag(fd, text, sizeof text);
	T_OK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	fds[nfds++] = fd;

	char *argv[MAXFD + 3] = { "t-fd-reuse", "after-exec" };
	char num[MAXFD][48];
	for (int i = 0; i < nfds; i++) {
		if (fds[i] == perf_fd)
			snprintf(num[i], sizeof num[i], "-%d:%llu", fds[i],
				 (unsigned long long)perf_id);
		else
			snprintf(num[i], sizeof num[i], "%d", fds[i]);
		argv[i + 2] = num[i];
	}
	argv[nfds + 2] = NULL;
	fflush(NULL);
	execv("/proc/self/exe", argv);
	T_FAIL("exec: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "after-exec") == 0)
		return after_exec(argc, argv);
	if (argc > 1 && strcmp(argv[1], "run") == 0)
		return run();
	if (tp_engine_is("perf") && !getenv("PROFIL_PERF_MODE")) {
		const char *env[] = { "PROFIL_PERF_MODE=fasync", NULL };
		tp_rerun_ok("run", env);
	}
	return run();
}
