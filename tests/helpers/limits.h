/*
 * helpers/limits.h - running a program's work under a low resource limit,
 * once without profiling and once with it, to compare what the program saw
 * (tests/engines/t-limit-*.c).  Header only; include after "helpers/tprof.h".
 */
#ifndef TLIMITS_H
#define TLIMITS_H

#include <pthread.h>
#include <sys/resource.h>

/* What one run saw: the program's own account of its work (a line that
 * must be the same with and without profiling) and, when profiled, the
 * library's statistics and the ticks its counter got. */
struct tl_run {
	char seen[512];
	struct profil_stats st;
	unsigned long counted;
};

/* A thread that burns `burn` s of its CPU, says it is ready, then waits for
 * tl_release(). */
static pthread_mutex_t tl_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tl_cv = PTHREAD_COND_INITIALIZER;
static int tl_go, tl_ready;

TP_FN void *tl_waiter(void *burn)
{
	tp_burn_thread(*(double *)burn);
	pthread_mutex_lock(&tl_mu);
	tl_ready++;
	pthread_cond_broadcast(&tl_cv);
	while (!tl_go)
		pthread_cond_wait(&tl_cv, &tl_mu);
	pthread_mutex_unlock(&tl_mu);
	return NULL;
}

/* Wait until n tl_waiter threads are ready. */
TP_FN void tl_wait_ready(int n)
{
	pthread_mutex_lock(&tl_mu);
	while (tl_ready < n)
		pthread_cond_wait(&tl_cv, &tl_mu);
	pthread_mutex_unlock(&tl_mu);
}

/* Start up to n tl_waiter threads burning *burn s each into t[], as a
 * program would: the first error is kept in *err, not fatal.  Returns how
 * many run, once they are all ready. */
TP_FN int tl_start(pthread_t *t, int n, double *burn, int *err)
{
	int made = 0;
	for (int i = 0; i < n; i++) {
		int e = pthread_create(&t[made], NULL, tl_waiter, burn);
		if (e && !*err)
			*err = e;
		made += !e;
	}
	tl_wait_ready(made);
	return made;
}

TP_FN void tl_release(void)
{
	pthread_mutex_lock(&tl_mu);
	tl_go = 1;
	pthread_cond_broadcast(&tl_cv);
	pthread_mutex_unlock(&tl_mu);
}

/*
 * In a child: set limit `res` to `soft` (hard unchanged), turn profiling
 * on if `profiled`, run work(seen, len), and send the result back.  A
 * child that skips (perf not allowed) makes the test skip.
 */
TP_FN void tl_run_child(int res, rlim_t soft, int profiled, void (*work)(char *, size_t),
			struct tl_run *out)
{
	static unsigned short buf[4];
	int p[2];
	T_OK(pipe(p) == 0);
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		struct rlimit rl;
		T_OK(getrlimit(res, &rl) == 0);
		rl.rlim_cur = soft;
		T_OK(setrlimit(res, &rl) == 0);
		struct tl_run r;
		memset(&r, 0, sizeof r);
		if (profiled)
			tp_profil_on(buf, sizeof buf, 0, 2);
		work(r.seen, sizeof r.seen);
		if (profiled) {
			T_EQ(tp_profil_off(), 0);
			T_EQ(profil_stats(&r.st), 0);
			r.counted = buf[0];
		}
		T_OK(write(p[1], &r, sizeof r) == (ssize_t)sizeof r);
		_exit(0);
	}
	close(p[1]);
	ssize_t n = read(p[0], out, sizeof *out);
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	close(p[0]);
	tp_child_ok(st);
	T_EQ(n, sizeof *out);
}

/* The program's work under the limit behaves exactly as without profiling;
 * returns the profiled run for further checks. */
TP_FN struct tl_run tl_same(int res, rlim_t soft, void (*work)(char *, size_t))
{
	struct tl_run plain, prof;
	tl_run_child(res, soft, 0, work, &plain);
	tl_run_child(res, soft, 1, work, &prof);
	if (strcmp(plain.seen, prof.seen) != 0)
		T_FAIL("the program saw\n  %s\nprofiled, and\n  %s\nwithout (engine %s: %s)",
		       prof.seen, plain.seen, prof.st.engine, prof.st.why);
	return prof;
}

/*
 * The profiled run still recorded what it could and counted the rest: some
 * ticks, every one of the program's `threads` (and main) either attached or
 * counted as not sampled, the limit named when threads were not sampled,
 * and, if `must_lose`, at least one thread left unsampled (an engine that
 * needs one object per thread under a limit too low for all of them).
 */
TP_FN void tl_counted(const struct tl_run *r, int threads, const char *limit, int must_lose)
{
	const struct profil_stats *st = &r->st;
	if (r->counted == 0)
		T_FAIL("no tick counted (engine %s: %s)", st->engine, st->why);
	if (!tp_engine_is("process-timer") && st->threads + st->thread_errors < threads + 1ull)
		T_FAIL("threads attached %llu + not sampled %llu < %d (%s)", st->threads,
		       st->thread_errors, threads + 1, st->why);
	if (st->thread_errors && !strstr(st->why, limit))
		T_FAIL("%llu threads not sampled, but why does not name %s: %s",
		       st->thread_errors, limit, st->why);
	if (must_lose && st->thread_errors == 0)
		T_FAIL("every one of %d threads had its own object under the %s: %s",
		       threads + 1, limit, st->why);
}

#endif
