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
 * Before, both hung.  Each case runs in a child (ts_run_case), failed
 * when it does not end within 120 s of wall time (a hang).
 */
#include <pthread.h>
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

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "case") == 0)
		return strcmp(argv[2], "sigaction") == 0 ? sigaction_case() : control_case();
	if (TP_TSAN)
		T_SKIP("ThreadSanitizer's interceptors make system calls of their own in the "
		       "filtered threads");
	static const char *const cases[][3] = { { "sigaction" }, { "control" } };
	for (size_t i = 0; i < 2; i++)
		ts_run_case(argv[0], cases[i]);
	return 0;
}
