/*
 * Which signal profiling uses.  By default the timer engines and perf's
 * fasync variant sample with the highest real-time signal the program left
 * alone: SIGRTMAX in a fresh process; SIGRTMAX-1 when the program gave
 * SIGRTMAX a handler, blocked it, or ignored it while SIGRTMAX-1 is free;
 * SIGRTMAX again when every real-time signal is ignored (an ignored signal
 * is the next best).  profil_stats() reports it (signo, and by name in
 * why).  SIGPROF stays entirely the program's: its handler is never
 * replaced in the kernel and never called.
 *
 * PROFIL_SIGNAL forces one (SIGRTMIN+2, RTMAX-3; read at start-up, so each
 * case runs in a re-executed child): profiling counts at its rate and the
 * library holds that signal while it runs.  perf's sigtrap variant takes
 * SIGTRAP instead (so for perf the child runs once per variant,
 * PROFIL_PERF_MODE=sigtrap and =fasync).  Every disposition the kernel holds
 * is restored after.  An unknown PROFIL_SIGNAL value is ignored and named by
 * profil_stats().
 */
#include <unistd.h>

#include "helpers/tprof.h"

static _Atomic int sigprofs;

static void app_handler(int sig)
{
	(void)sig;
	sigprofs++;
}

static int sigtrap_variant(void)
{
	const char *mode = getenv("PROFIL_PERF_MODE");
	return tp_engine_is("perf") && mode && strcmp(mode, "sigtrap") == 0;
}

/* Profile `sec` of CPU at HZ; the engine must sample with `want`, hold it
 * in the kernel, and count at the rate.  HZ 500 x 0.15 s: 75 ticks
 * expected, over T_COUNT's floor of 50, for a quarter of the CPU time 100
 * Hz needs (the 14 children of the perf run burnt 8.4 s at 0.6 s each,
 * over 180 s of wall time at load 20). */
#define HZ   500
#define BURN 0.15
static int profile(int want, double sec)
{
	static unsigned short buf[4];
	struct sigaction sa, now;
	struct tp_dispositions before, after;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = app_handler;
	sigemptyset(&sa.sa_mask);
	T_OK(sigaction(SIGPROF, &sa, NULL) == 0);
	tp_save_dispositions(&before);

	T_OK(profil_set_hz(HZ) > 0);
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	int sig = tp_sampling_signal();
	if (sigtrap_variant())
		T_EQ(sig, SIGTRAP);
	else
		T_EQ(sig, want);
	T_OK(tp_kernel_has_ours(sig, (void *)app_handler));
	struct tp_kaction k;
	tp_kernel_action(SIGPROF, &k);
	T_OK(k.handler == (void *)app_handler);
	tp_burn(sec);
	T_OK(sigaction(SIGPROF, NULL, &now) == 0);
	T_OK(now.sa_handler == app_handler);
	T_EQ(tp_profil_off(), 0);
	T_COUNT(buf[0], (t_proc_cpu() - t0) * profil_hz());
	T_EQ(sigprofs, 0);
	tp_save_dispositions(&after);
	tp_same_dispositions(&before, &after);

	struct profil_stats st;
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.signo, sig);
	char name[32];
	if (sig == SIGTRAP)
		snprintf(name, sizeof name, "signal SIGTRAP");
	else if (sig == SIGRTMAX)
		snprintf(name, sizeof name, "signal SIGRTMAX");
	else if (sig > SIGRTMAX - 10)
		snprintf(name, sizeof name, "signal SIGRTMAX-%d", SIGRTMAX - sig);
	else
		name[0] = '\0';
	if (!strstr(st.why, name))
		T_FAIL("why does not say \"%s\": %s", name, st.why);
	return 0;
}

static void set_all_rt(void (*fn)(int))
{
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		T_OK(signal(s, fn) != SIG_ERR);
}

/* The default choice, in a fresh process image (it is kept once made). */
static int choice(const char *how)
{
	if (tp_engine_is("perf")) {
		/* The choice is made for fasync; sigtrap uses SIGTRAP. */
		if (!getenv("PROFIL_PERF_MODE"))
			T_SKIP("run with PROFIL_PERF_MODE");
	}
	if (strcmp(how, "fresh") == 0)
		return profile(SIGRTMAX, BURN);
	if (strcmp(how, "handler") == 0) {
		T_OK(signal(SIGRTMAX, app_handler) != SIG_ERR);
		return profile(SIGRTMAX - 1, BURN);
	}
	if (strcmp(how, "blocked") == 0) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGRTMAX);
		T_OK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
		profile(SIGRTMAX - 1, BURN);
		/* Still blocked for the program, and really. */
		T_OK(sigprocmask(SIG_BLOCK, NULL, &set) == 0 && sigismember(&set, SIGRTMAX));
		T_OK(tp_kernel_mask() & TP_BIT(SIGRTMAX));
		return 0;
	}
	if (strcmp(how, "ignored") == 0) {
		T_OK(signal(SIGRTMAX, SIG_IGN) != SIG_ERR);
		return profile(SIGRTMAX - 1, BURN);
	}
	if (strcmp(how, "all-ignored") == 0) {
		set_all_rt(SIG_IGN);
		return profile(SIGRTMAX, BURN);
	}
	T_FAIL("unknown case %s", how);
}

int main(int argc, char **argv)
{
	if (TP_TSAN)
		T_SKIP(TP_TSAN_SIGNALS);
	if (argc > 1 && strcmp(argv[1], "rtmin2") == 0)
		return profile(SIGRTMIN + 2, BURN);
	if (argc > 1 && strcmp(argv[1], "rtmax3") == 0)
		return profile(SIGRTMAX - 3, BURN);
	if (argc > 1 && strcmp(argv[1], "junk") == 0)
		return tp_env_was_rejected("PROFIL_SIGNAL");
	if (argc > 1)
		return choice(argv[1]);

	int variants = tp_engine_is("perf") ? 2 : 1;
	const char *modes[] = { "PROFIL_PERF_MODE=fasync", "PROFIL_PERF_MODE=sigtrap" };
	const char *cases[] = { "fresh", "handler", "blocked", "ignored", "all-ignored" };
	for (int v = 0; v < variants; v++) {
		const char *env[][3] = {
			{ "PROFIL_SIGNAL=SIGRTMIN+2", modes[v], NULL },
			{ "PROFIL_SIGNAL=RTMAX-3", modes[v], NULL },
		};
		tp_rerun_ok("rtmin2", env[0]);
		tp_rerun_ok("rtmax3", env[1]);
		const char *dflt[] = { modes[v], NULL };
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
			tp_rerun_ok(cases[c], dflt);
	}
	const char *junk[] = { "PROFIL_SIGNAL=SIGSEGV", NULL };
	tp_rerun_ok("junk", junk);
	return 0;
}
