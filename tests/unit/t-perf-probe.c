/*
 * The perf engine's probe never raises a signal: 100000 probes at 10 kHz in
 * a child whose SIGTRAP is SIG_DFL (as at a program's start-up, before the
 * library installs its handler), and the child lives.
 *
 * The probe opens a test event on the calling thread.  Opened live, it can
 * overflow before it is closed, and the sigtrap variant's SIGTRAP then
 * kills the process (issue 8, item 3: about 2 launches in 1000).  The
 * window is a few microseconds per probe, so 100000 probes catch a live
 * probe event with near certainty; a probe opened disabled never counts.
 * tests/engines/t-launch checks the same end to end in fresh processes.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"

#include "test.h"

#define PROBES 100000

static int child(const char *mode)
{
	struct profil_run run = { .hz = 10000, .signo = SIGPROF };
	strcpy(run.perf_mode, mode);
	signal(SIGTRAP, SIG_DFL);
	for (int i = 0; i < PROBES; i++) {
		char why[128] = "";
		int r = profil__engine_perf.probe(&run, why, sizeof why);
		if (r < 0) {
			if (i == 0)
				T_SKIP("perf engine cannot run here: %s", why);
			T_FAIL("probe %d failed: %s", i, why);
		}
	}
	return 0;
}

int main(void)
{
	const char *modes[] = { "sigtrap", "fasync" };
	for (int m = 0; m < 2; m++) {
		fflush(NULL);
		pid_t pid = fork();
		T_OK(pid >= 0);
		if (pid == 0)
			_exit(child(modes[m]));
		int st;
		T_OK(waitpid(pid, &st, 0) == pid);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
			T_SKIP("the child skipped (see above)");
		if (WIFSIGNALED(st))
			T_FAIL("%s probes: killed by signal %d (%s)", modes[m], WTERMSIG(st),
			       strsignal(WTERMSIG(st)));
		T_EQ(WEXITSTATUS(st), 0);
	}
	return 0;
}
