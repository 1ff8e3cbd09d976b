/*
 * When the threads that exist at start cannot all have a timer within the
 * reserve of RLIMIT_SIGPENDING, the thread-timer engine is passed over for
 * the next one in the order, which covers every thread; chosen by name, it
 * runs and counts the threads it leaves unsampled (libprofil(7), LIMITS).
 * When no engine can cover every thread, the first one refused for lack of
 * resources samples the threads it can; the process timer, whose signal
 * can interrupt a sleeping thread, is never chosen by itself (issue 19,
 * item 6).
 *
 * Under a limit of 40 queued signals (in a user namespace of its own, so
 * that other processes of the user do not count), 60 threads wait while
 * profiling starts.
 *   - Automatic choice: not thread-timer, whose reason says its start
 *     failed with EAGAIN: perf, with no thread left unsampled, where perf
 *     can run; else thread-timer "not for every thread".  The program can
 *     still make its own 10 timers.
 *   - By name: thread-timer runs, with some threads counted as not sampled
 *     because of the limit, and the program can still make its 10 timers.
 *   - Automatic choice with RLIMIT_NOFILE 10 above the lowest free
 *     descriptor as well, so that perf cannot have a descriptor per thread
 *     either: thread-timer, some threads not sampled, never process-timer
 *     (before: process-timer, whose signal went to whichever thread did not
 *     block it, sleeping or not).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "helpers/tprof.h"

#include "helpers/limits.h"

#define THREADS 60
#define TIMERS  10

static void own_timers(void)
{
	timer_t tm[TIMERS];
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_NONE;
	for (int i = 0; i < TIMERS; i++)
		if (timer_create(CLOCK_MONOTONIC, &sev, &tm[i]) < 0)
			T_FAIL("the program's timer %d: %s", i, strerror(errno));
	for (int i = 0; i < TIMERS; i++)
		T_OK(timer_delete(tm[i]) == 0);
}

int main(void)
{
	static unsigned short buf[4];
	static double burn = 0.001;
	pthread_t t[THREADS];
	struct profil_stats st;

	if (unshare(CLONE_NEWUSER) < 0)
		T_SKIP("no user namespace to count queued signals apart: %s", strerror(errno));
	struct rlimit rl;
	T_OK(getrlimit(RLIMIT_SIGPENDING, &rl) == 0);
	rl.rlim_cur = 40;
	T_OK(setrlimit(RLIMIT_SIGPENDING, &rl) == 0);
	int err = 0;
	T_EQ(tl_start(t, THREADS, &burn, &err), THREADS);

	T_OK(profil_set_engine("auto") == 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	T_EQ(profil_stats(&st), 0);
	bool perf = strcmp(st.engine, "perf") == 0;
	if (!strstr(st.why, "thread-timer: start failed: EAGAIN") ||
	    (perf ? st.thread_errors != 0
		  : strcmp(st.engine, "thread-timer") != 0 || st.thread_errors == 0 ||
			    !strstr(st.why, "not for every thread")))
		T_FAIL("engine %s, %llu threads not sampled: %s", st.engine, st.thread_errors,
		       st.why);
	own_timers();
	T_EQ(tp_profil_off(), 0);

	T_OK(profil_set_engine("thread-timer") == 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	T_EQ(profil_stats(&st), 0);
	if (strcmp(st.engine, "thread-timer") != 0 || st.thread_errors == 0 ||
	    !strstr(st.why, "RLIMIT_SIGPENDING"))
		T_FAIL("engine %s, %llu threads not sampled: %s", st.engine, st.thread_errors,
		       st.why);
	own_timers();
	T_EQ(tp_profil_off(), 0);

	/* Neither per-thread engine can cover every thread. */
	int low = open("/dev/null", O_RDONLY);
	T_OK(low >= 0);
	close(low);
	struct rlimit saved, nofile;
	T_OK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
	nofile = saved;
	nofile.rlim_cur = (rlim_t)low + 10;
	T_OK(setrlimit(RLIMIT_NOFILE, &nofile) == 0);
	T_OK(profil_set_engine("auto") == 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	T_EQ(profil_stats(&st), 0);
	if (strcmp(st.engine, "thread-timer") != 0 || st.thread_errors == 0 ||
	    !strstr(st.why, "not for every thread"))
		T_FAIL("both limits: engine %s, %llu threads not sampled: %s", st.engine,
		       st.thread_errors, st.why);
	own_timers();
	T_EQ(tp_profil_off(), 0);
	T_OK(setrlimit(RLIMIT_NOFILE, &saved) == 0);

	tl_release();
	for (int i = 0; i < THREADS; i++)
		T_OK(pthread_join(t[i], NULL) == 0);
	return 0;
}
