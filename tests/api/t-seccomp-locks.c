/*
 * A seccomp filter's SECCOMP_RET_KILL_THREAD ends one thread in the middle
 * of a system call, whatever it holds (issue 19, item 1).  The library
 * looks for a filter before it takes a lock, but a filter can be in place
 * unseen: installed on one thread with the raw system call, or answering
 * prctl(PR_GET_SECCOMP) itself.  A thread killed holding one of the
 * library's locks must not leave it held for the others, who would spin
 * for ever with every signal blocked (only SIGKILL ended them):
 *   - sigaction: a thread under a filter that kills rt_sigaction calls
 *     sigaction(SIGUSR1) (the library's lock on the program's signal
 *     actions is held across the real call) and dies there, as it would
 *     alone; another thread's sigaction(SIGUSR2) must still work;
 *   - the control lock: with thread-timer running, a thread under a
 *     filter that kills timer_create and hides itself from
 *     PR_GET_SECCOMP creates a thread, which dies arming its timer with
 *     the control lock held; profil_stats() in the main thread must
 *     return, the library then stopped for good (profil_state() off,
 *     profil_stats() says why), and profil() off must return 0.
 *   - the same lock held by a main thread killed in a pid namespace of
 *     its own (unshare(CLONE_NEWPID), then fork: /proc names threads by
 *     the ids of the namespace that mounted it, the lock by the process's
 *     own): the main thread, alone under the filter, turns profiling off
 *     and dies in timer_delete with the lock held, a zombie until the
 *     process ends; another thread's profil_stats() must return.  On the
 *     merge of the seccomp and pid-namespace work (77d0bca) it spun for
 *     ever: the check for a zombie holder read /proc/self/task/1/stat.
 *     SKIP where the namespace is refused.
 * Before, all hung.  Each case runs in a child (ts_run_case), failed
 * when it does not end within 120 s of wall time (a hang).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "helpers/tprof.h"
/* after test.h: its ts_run_case */
#include "helpers/seccomp.h"

static void on_usr(int sig)
{
	(void)sig;
}

/* Installs the filter on itself, then does what kills it. */
static void *sigaction_victim(void *arg)
{
	(void)arg;
	if (ts_install(SECCOMP_RET_KILL_THREAD, "raw", false) != 0)
		_exit(77);
	signal(SIGUSR1, on_usr); /* killed here, in rt_sigaction */
	_exit(3);                /* not reached */
}

static int sigaction_case(void)
{
	pthread_t t;
	/* glibc's first pthread_create calls rt_sigaction: not in the victim. */
	T_EQ(pthread_create(&t, NULL, sigaction_victim, NULL), 0);
	T_EQ(pthread_join(t, NULL), 0); /* returns once the kernel killed it */
	T_OK(signal(SIGUSR2, on_usr) != SIG_ERR);
	return 0;
}

static void *nothing(void *arg)
{
	return arg;
}

static void *creator(void *arg)
{
	(void)arg;
	if (ts_install(SECCOMP_RET_KILL_THREAD, "raw", true) != 0)
		_exit(77);
	pthread_t t;
	/* The new thread has the filter too, and dies in timer_create. */
	if (pthread_create(&t, NULL, nothing, NULL) == 0)
		pthread_join(t, NULL);
	return NULL;
}

static int control_case(void)
{
	static unsigned short buf[64];
	T_EQ(profil_set_engine("thread-timer"), 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	pthread_t t;
	T_EQ(pthread_create(&t, NULL, creator, NULL), 0);
	T_EQ(pthread_join(t, NULL), 0);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	if (!strstr(st.why, "died holding a lock"))
		T_FAIL("profil_stats().why does not say why: \"%s\"", st.why);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(tp_profil_off(), 0);
	return 0;
}

/* The main thread dead (a zombie: its /proc/self/stat says Z), the
 * control lock it held must still be had. */
static void *survivor(void *arg)
{
	(void)arg;
	char buf[512];
	for (int i = 0; i < 100000; i++) {
		FILE *f = fopen("/proc/self/stat", "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		const char *p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'Z')
			break;
		usleep(1000);
	}
	struct profil_stats st;
	if (profil_stats(&st) != 0)
		_exit(4);
	if (!strstr(st.why, "died holding a lock")) {
		printf("profil_stats().why does not say why: \"%s\"\n", st.why);
		fflush(stdout);
		_exit(5);
	}
	_exit(profil_state() == PROFIL_OFF ? 0 : 6);
}

static int main_pidns_case(void)
{
	if (unshare(CLONE_NEWPID) != 0)
		T_SKIP("unshare(CLONE_NEWPID): %s", strerror(errno));
	fflush(NULL);
	pid_t c = fork();
	T_OK(c >= 0);
	if (c == 0) {
		static unsigned short buf[64];
		T_EQ(profil_set_engine("thread-timer"), 0);
		tp_profil_on(buf, sizeof buf, 0, 2);
		pthread_t t;
		T_EQ(pthread_create(&t, NULL, survivor, NULL), 0);
		if (ts_install(SECCOMP_RET_KILL_THREAD, "raw", true) != 0)
			_exit(77);
		tp_profil_off(); /* killed here, in timer_delete, the lock held */
		_exit(3);        /* not reached */
	}
	int status;
	T_OK(waitpid(c, &status, 0) == c);
	tp_child_ok(status);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "case") == 0)
		return strcmp(argv[2], "sigaction") == 0    ? sigaction_case()
		       : strcmp(argv[2], "main-pidns") == 0 ? main_pidns_case()
							    : control_case();
	if (TP_TSAN)
		T_SKIP("ThreadSanitizer's interceptors make system calls of their own in the "
		       "filtered threads");
	static const char *const cases[][3] = { { "sigaction" }, { "control" }, { "main-pidns" } };
	for (size_t i = 0; i < 3; i++)
		ts_run_case(argv[0], cases[i]);
	return 0;
}
