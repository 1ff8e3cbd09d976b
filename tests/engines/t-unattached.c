/*
 * Threads the engine cannot attach to are counted, not dropped (issue 8,
 * item 11).  Once profiling runs at 1 kHz, the process takes away what a
 * new thread's timer or event needs (thread-timer: RLIMIT_SIGPENDING 0, so
 * timer_create fails; perf, in its fasync variant: RLIMIT_NOFILE at the
 * lowest free descriptor), then two threads burn 0.3 s each while the main thread
 * burns 0.2 s.  profil_stats() must name the two threads in thread_errors
 * and count their CPU time x rate in `unsampled`, within 5 standard
 * deviations, while `ticks` holds the main thread's.  The process timer
 * needs nothing per thread: nothing may be lost there.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define HZ 1000

static double cpu[2];

static void *worker(void *arg)
{
	double *out = arg;
	tp_burn_thread(0.3);
	*out = t_thread_cpu();
	return NULL;
}

int main(int argc, char **argv)
{
	if (TP_TSAN)
		T_SKIP(TP_TSAN_THREADS);
	(void)argc;
	/* The sigtrap variant needs nothing per thread either: take fasync. */
	if (tp_engine_is("perf") && !getenv("PROFIL_PERF_MODE")) {
		T_OK(setenv("PROFIL_PERF_MODE", "fasync", 1) == 0);
		execv("/proc/self/exe", argv);
		T_FAIL("execv: %s", strerror(errno));
	}
	static unsigned short buf[4];
	T_OK(profil_set_hz(HZ) > 0);
	tp_profil_on(buf, sizeof buf, 0, 2);

	bool lose = !tp_engine_is("process-timer");
	struct rlimit old, none;
	int res = tp_engine_is("perf") ? RLIMIT_NOFILE : RLIMIT_SIGPENDING;
	T_OK(getrlimit(res, &old) == 0);
	none = old;
	/* RLIMIT_NOFILE bounds descriptor numbers: the lowest free one. */
	int lowest = dup(0);
	T_OK(lowest >= 0 && close(lowest) == 0);
	none.rlim_cur = res == RLIMIT_NOFILE ? (rlim_t)lowest : 0;
	if (lose)
		T_OK(setrlimit(res, &none) == 0);
	double m0 = t_thread_cpu();
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		T_OK(pthread_create(&t[i], NULL, worker, &cpu[i]) == 0);
	tp_burn_thread(0.2);
	for (int i = 0; i < 2; i++)
		T_OK(pthread_join(t[i], NULL) == 0);
	double main_cpu = t_thread_cpu() - m0;
	T_EQ(tp_profil_off(), 0);
	if (lose)
		T_OK(setrlimit(res, &old) == 0);

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	double lost = lose ? (cpu[0] + cpu[1]) * HZ : 0, own = main_cpu * HZ;
	if (!lose)
		own += (cpu[0] + cpu[1]) * HZ;
	printf("%s: %llu thread errors, %llu ticks (want %.0f), %llu unsampled (want %.0f)\n",
	       st.engine, st.thread_errors, st.ticks, own, st.unsampled, lost);
	T_EQ(st.thread_errors, (lose ? 2 : 0));
	T_RANGE(st.unsampled, lost - 5 * sqrt(lost) - 2, lost + 5 * sqrt(lost) + 2);
	T_RANGE(st.ticks, own - 5 * sqrt(own) - 2, own + 5 * sqrt(own) + 2);
	return 0;
}
