/*
 * A program that uses the library's sampling signal itself keeps it, and
 * profil() keeps counting.  The default sampling signal is SIGRTMAX; while
 * profiling runs, the program (each case in its own process):
 *   - wait: blocks SIGRTMAX, then 1000 times sends it to itself with
 *     sigqueue and collects it with sigtimedwait or sigwaitinfo at SIG_DFL
 *     (it died of the first one when the library kept the signal);
 *   - handler: gives SIGRTMAX its own handler and sends it 1000 times: each
 *     value arrives once, in order, with SIGRTMAX blocked inside it (the
 *     kernel's rule, which the library's forwarding did not keep);
 *   - threads: the same as wait, beside a thread that blocked every signal
 *     and burns CPU: its view of SIGRTMAX (blocked) becomes real when the
 *     library gives it back, so the program's signals wait for sigwaitinfo
 *     instead of reaching that thread at SIG_DFL;
 *   - most: blocks every signal but SIGRTMIN, 50 times, as thread pools
 *     do: no claim, the library keeps SIGRTMAX (each such call once took
 *     two signals, until none was left);
 *   - exhaust: gives every real-time signal a handler, SIGRTMAX first: the
 *     library moves until none is left, then stops sampling (perf's
 *     sigtrap variant samples with SIGTRAP and goes on) and counts the CPU
 *     time since as unsampled; profil_stats() says why.
 * The library samples with another signal after a claim (profil_stats()
 * names it), gives SIGRTMAX back to the kernel as the program set it, and
 * the counts follow CPU time x rate (T_COUNT), nothing lost.
 */
#include <pthread.h>
#include <unistd.h>

#include "helpers/tprof.h"

#define N 1000

static int sigtrap_variant(void)
{
	return tp_sampling_signal() == SIGTRAP;
}

static void send(int sig, int i)
{
	T_OK(sigqueue(getpid(), sig, (union sigval){ .sival_int = i }) == 0);
}

/* Block SIGRTMAX and collect n values of our own, each exactly once. */
static void dance(int n)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMAX);
	T_OK(pthread_sigmask(SIG_BLOCK, &set, NULL) == 0);
	for (int i = 0; i < n; i++) {
		tp_burn(0.001);
		send(SIGRTMAX, i);
		siginfo_t si;
		struct timespec ts = { 10, 0 }, zero = { 0, 0 };
		int r = i % 2 ? sigwaitinfo(&set, &si) : sigtimedwait(&set, &si, &ts);
		T_EQ(r, SIGRTMAX);
		T_EQ(si.si_code, SI_QUEUE);
		T_EQ(si.si_value.sival_int, i);
		T_EQ(sigtimedwait(&set, &si, &zero), -1);
		T_EQ(errno, EAGAIN);
	}
	T_OK(tp_kernel_mask() & TP_BIT(SIGRTMAX));
	struct tp_kaction k;
	tp_kernel_action(SIGRTMAX, &k);
	T_OK(k.handler == SIG_DFL);
}

static _Atomic int got, bad;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sigset_t now;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	if (!sigismember(&now, sig) || si->si_code != SI_QUEUE || si->si_value.sival_int != got)
		bad++;
	else
		got++;
}

static void handled(void)
{
	tp_handle(SIGRTMAX, on_rt, 0, SIGUSR1);
	for (int i = 0; i < N; i++) {
		tp_burn(0.001);
		send(SIGRTMAX, i);
		T_EQ(bad, 0);
		T_EQ(got, i + 1);
	}
	T_OK(!tp_kernel_has_ours(SIGRTMAX, (void *)on_rt));
}

static _Atomic int stop;

static void *blocker(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	T_OK(pthread_sigmask(SIG_BLOCK, &all, NULL) == 0);
	stop = 1;
	while (stop != 2)
		tp_spin(20000);
	/* Its view of SIGRTMAX, blocked, is real now. */
	T_OK(tp_kernel_mask() & TP_BIT(SIGRTMAX));
	return NULL;
}

/* Profile what fn does; the counts follow the CPU time. */
static int profiled(const char *how)
{
	static unsigned short buf[4];
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	T_NOTE("signal at start %d", tp_sampling_signal());
	pthread_t t;
	if (strcmp(how, "wait") == 0) {
		dance(N);
	} else if (strcmp(how, "handler") == 0) {
		handled();
	} else if (strcmp(how, "most") == 0) {
		sigset_t most, old;
		sigfillset(&most);
		sigdelset(&most, SIGRTMIN);
		for (int i = 0; i < 50; i++) {
			T_OK(pthread_sigmask(SIG_BLOCK, &most, &old) == 0);
			tp_burn(0.01);
			T_OK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
		}
		int sig = tp_sampling_signal();
		T_OK(sig == SIGRTMAX || sig == SIGTRAP);
		T_OK(tp_kernel_has_ours(SIGRTMAX, NULL) || sig == SIGTRAP);
		tp_burn(0.3);
	} else if (strcmp(how, "threads") == 0) {
		T_OK(pthread_create(&t, NULL, blocker, NULL) == 0);
		while (stop != 1)
			sched_yield();
		dance(N);
		stop = 2;
		T_OK(pthread_join(t, NULL) == 0);
	} else {
		T_FAIL("unknown case %s", how);
	}
	int now = tp_sampling_signal();
	T_EQ(tp_profil_off(), 0);
	double want = (t_proc_cpu() - t0) * profil_hz();
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_NOTE("signal %d, why: %s", now, st.why);
	tp_note_stats();
	if (strcmp(how, "most") == 0) {
		if (strstr(st.why, "claimed"))
			T_FAIL("a set of most signals was taken as a claim: %s", st.why);
	} else if (now != SIGTRAP) {
		T_EQ(now, SIGRTMAX - 1);
		if (!strstr(st.why, "SIGRTMAX claimed by the program, now SIGRTMAX-1"))
			T_FAIL("why does not say the signal moved: %s", st.why);
	}
	T_COUNT(buf[0], want);
	T_EQ(st.lost, 0);
	T_EQ(st.unsampled, 0);
	return 0;
}

static _Atomic int rt_calls[65];

static void count_rt(int sig)
{
	rt_calls[sig]++;
}

static int exhaust(void)
{
	static unsigned short buf[4];
	tp_profil_on(buf, sizeof buf, 0, 2);
	tp_burn_until_counted(buf);
	for (int s = SIGRTMAX; s >= SIGRTMIN; s--)
		T_OK(signal(s, count_rt) != SIG_ERR);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
		T_OK(!tp_kernel_has_ours(s, (void *)count_rt));
		send(s, 0);
		T_EQ(rt_calls[s], 1);
	}
	double t0 = t_proc_cpu();
	tp_burn(0.8);
	double want = (t_proc_cpu() - t0) * profil_hz();
	unsigned short before_off = buf[0];
	int sigtrap = sigtrap_variant();
	T_EQ(tp_profil_off(), 0);
	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_NOTE("why: %s; counted before off %u", st.why, before_off);
	tp_note_stats();
	if (sigtrap)
		return 0; /* samples with SIGTRAP: nothing to move */
	if (!strstr(st.why, "claimed by the program, now no free real-time signal"))
		T_FAIL("why does not say no signal was left: %s", st.why);
	/* From the last claim on, the CPU time is counted unsampled. */
	T_COUNT(st.unsampled, want);
	T_EQ(st.lost, 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (TP_TSAN)
		T_SKIP(TP_TSAN_SIGNALS);
	if (argc > 1 && strcmp(argv[1], "exhaust") == 0)
		return exhaust();
	if (argc > 1)
		return profiled(argv[1]);
	int variants = tp_engine_is("perf") ? 2 : 1;
	const char *modes[] = { "PROFIL_PERF_MODE=fasync", "PROFIL_PERF_MODE=sigtrap" };
	const char *cases[] = { "wait", "handler", "most", "threads", "exhaust" };
	for (int v = 0; v < variants; v++) {
		const char *env[] = { modes[v], NULL };
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
			tp_rerun_ok(cases[c], env);
	}
	return 0;
}
