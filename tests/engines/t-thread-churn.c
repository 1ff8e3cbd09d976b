/*
 * Thread churn: 2000 short-lived threads (each burns 0.4 ms of its own CPU)
 * are created and joined, four at a time, while profiling runs.  Per-thread
 * engines arm a timer or perf fd for each new thread and must release it
 * when the thread exits:
 *   - no leak: the open fds and the POSIX timers of the process are the same
 *     after the churn as before it (with profiling on), and as before
 *     profiling (once it is off).  Timers are listed by /proc/self/timers
 *     (CONFIG_CHECKPOINT_RESTORE); without it, the SigQ line of
 *     /proc/self/status is used instead: every POSIX timer holds one
 *     preallocated signal charged to the user, so 2000 leaked timers show
 *     there, though other processes of the same user add noise (tolerance
 *     100);
 *   - no crash, no thread the engine failed to arm;
 *   - counts still arrive and follow CPU time: T_COUNT around E = process
 *     CPU time x rate.  Each thread is far shorter than a period, so it
 *     owns either 0 or 1 tick (a random first expiry, or the owed-tick
 *     estimate at its exit: libprofil(7)), and the total is binomial with a
 *     variance close to E.  The slack also leaves room for the little CPU
 *     a thread spends after its last accounting (glibc's thread exit
 *     work).
 */
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define THREADS 2000
#define BATCH   4

static void *worker(void *arg)
{
	(void)arg;
	tp_burn_thread(0.0004);
	return NULL;
}

/* Queued signals of this user, from the SigQ line ("queued/limit"). */
static long sigq(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	T_OK(f != NULL);
	char line[256];
	long n = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "SigQ: %ld/", &n) == 1)
			break;
	fclose(f);
	T_OK(n >= 0);
	return n;
}

struct census {
	int fds, timers;
	long sigq;
};

static void take(struct census *c)
{
	c->fds = tp_count_fds();
	c->timers = tp_count_timers();
	c->sigq = sigq();
}

static void same(const struct census *a, const struct census *b)
{
	T_EQ(b->fds, a->fds);
	if (a->timers >= 0)
		T_EQ(b->timers, a->timers);
	else
		T_RANGE(b->sigq, 0, a->sigq + 100);
}

int main(void)
{
	if (TP_TSAN)
		T_SKIP(TP_TSAN_THREADS);
	static unsigned short buf[4];
	struct census off0, on0, on1, off1;

	take(&off0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	take(&on0);
	double t0 = t_proc_cpu();
	for (int i = 0; i < THREADS; i += BATCH) {
		pthread_t t[BATCH];
		for (int j = 0; j < BATCH; j++)
			T_OK(pthread_create(&t[j], NULL, worker, NULL) == 0);
		for (int j = 0; j < BATCH; j++)
			T_OK(pthread_join(t[j], NULL) == 0);
	}
	double cpu = t_proc_cpu() - t0;
	take(&on1);
	same(&on0, &on1);
	T_EQ(profil_state(), PROFIL_CLASSIC);

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.thread_errors, 0);
	if (!tp_engine_is("process-timer"))
		T_OK(st.threads >= THREADS);
	T_NOTE("cpu %.3f s", cpu);
	tp_note_stats();
	T_COUNT(st.ticks, cpu * profil_hz());
	T_EQ(buf[0], st.ticks);

	T_EQ(tp_profil_off(), 0);
	take(&off1);
	same(&off0, &off1);
	return 0;
}
