/*
 * Under `ulimit -i 40` (RLIMIT_SIGPENDING: every POSIX timer holds one
 * queued-signal slot, and so does every queued signal), a program that
 * creates 60 threads and waits until they run, then makes 10 POSIX timers
 * of its own and queues 6 real-time signals to itself behaves exactly as
 * unprofiled (issue 8,
 * item 4; before, the thread-timer engine took a timer per thread until
 * the program's timer_create and sigqueue failed with EAGAIN).
 *
 * The library may hold at most half of the headroom it sees (libprofil(7),
 * LIMITS), which leaves the program its 16.  What the program saw must be
 * the same with and without profiling, and the profile must still have
 * counted ticks, with every thread either attached or counted as not
 * sampled, the limit named in profil_stats().why.
 *
 * The limit counts every process of the user, so the test runs in a user
 * namespace of its own, where the count starts at zero whatever else the
 * user runs (it skips where unprivileged user namespaces are not allowed).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "helpers/tprof.h"

#include "helpers/limits.h"

#define THREADS 60
#define TIMERS  10
#define QUEUED  6

static void work(char *seen, size_t len)
{
	static double burn = 0.01;
	pthread_t t[THREADS];
	timer_t tm[TIMERS];
	int made = 0, terr = 0, timers = 0, tmerr = 0, queued = 0, qerr = 0, got = 0;
	int tsig = SIGRTMIN + 2, qsig = SIGRTMIN + 3;

	/* Every thread blocks qsig, so the signals stay queued until taken. */
	sigset_t q;
	sigemptyset(&q);
	sigaddset(&q, qsig);
	T_OK(pthread_sigmask(SIG_BLOCK, &q, NULL) == 0);
	made = tl_start(t, THREADS, &burn, &terr);
	for (int i = 0; i < TIMERS; i++) {
		struct sigevent sev;
		memset(&sev, 0, sizeof sev);
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = tsig;
		if (timer_create(CLOCK_MONOTONIC, &sev, &tm[timers]) == 0)
			timers++;
		else if (!tmerr)
			tmerr = errno;
	}
	for (int i = 0; i < QUEUED; i++) {
		if (sigqueue(getpid(), qsig, (union sigval){ .sival_int = i }) == 0)
			queued++;
		else if (!qerr)
			qerr = errno;
	}
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&q, NULL, &zero) == qsig)
		got++;
	for (int i = 0; i < timers; i++)
		T_OK(timer_delete(tm[i]) == 0);
	tl_release();
	for (int i = 0; i < made; i++)
		T_OK(pthread_join(t[i], NULL) == 0);
	snprintf(seen, len, "threads %d (%s), timers %d (%s), queued %d (%s), received %d", made,
		 strerror(terr), timers, strerror(tmerr), queued, strerror(qerr), got);
}

int main(void)
{
	if (unshare(CLONE_NEWUSER) < 0)
		T_SKIP("no user namespace to count queued signals apart: %s", strerror(errno));
	struct tl_run r = tl_same(RLIMIT_SIGPENDING, 40, work);
	tl_counted(&r, THREADS, "RLIMIT_SIGPENDING", tp_engine_is("thread-timer"));
	return 0;
}
