/*
 * SIGPROF is not the only profiling signal: with PROFIL_SIGNAL=SIGRTMIN+2
 * (read at library start-up, so checked in a re-executed child) profiling
 * counts at its rate, while SIGPROF stays entirely the program's: its
 * handler is never replaced and never called.  The timer engines, and perf
 * in its fasync variant, take the chosen signal while profiling runs; perf's
 * sigtrap variant takes SIGTRAP instead (so for perf the child runs once
 * per variant, PROFIL_PERF_MODE=sigtrap and =fasync).  Every disposition is
 * restored after.  An unknown PROFIL_SIGNAL value is ignored and named by
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

static int child(void)
{
	static unsigned short buf[4];
	struct sigaction sa, now;
	struct tp_dispositions before, after;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = app_handler;
	sigemptyset(&sa.sa_mask);
	T_OK(sigaction(SIGPROF, &sa, NULL) == 0);
	tp_save_dispositions(&before);

	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	T_OK(sigaction(SIGPROF, NULL, &now) == 0);
	T_OK(now.sa_handler == app_handler);
	const char *mode = getenv("PROFIL_PERF_MODE");
	int sig = tp_engine_is("perf") && strcmp(mode, "sigtrap") == 0 ? SIGTRAP : SIGRTMIN + 2;
	T_OK(sigaction(sig, NULL, &now) == 0);
	T_OK(now.sa_handler != SIG_DFL && (now.sa_flags & SA_SIGINFO));
	tp_burn(0.5);
	T_OK(sigaction(SIGPROF, NULL, &now) == 0);
	T_OK(now.sa_handler == app_handler);
	T_EQ(tp_profil_off(), 0);
	T_COUNT(buf[0], (t_proc_cpu() - t0) * profil_hz());
	T_EQ(sigprofs, 0);
	tp_save_dispositions(&after);
	tp_same_dispositions(&before, &after);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child();
	if (argc > 1 && strcmp(argv[1], "junk") == 0)
		return tp_env_was_rejected("PROFIL_SIGNAL");

	const char *env[][3] = {
		{ "PROFIL_SIGNAL=SIGRTMIN+2", "PROFIL_PERF_MODE=sigtrap", NULL },
		{ "PROFIL_SIGNAL=SIGRTMIN+2", "PROFIL_PERF_MODE=fasync", NULL },
	};
	for (int i = 0; i < (tp_engine_is("perf") ? 2 : 1); i++) {
		tp_rerun_ok("child", env[i]);
	}
	const char *junk[] = { "PROFIL_SIGNAL=SIGSEGV", NULL };
	tp_rerun_ok("junk", junk);
	return 0;
}
