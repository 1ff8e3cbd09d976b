/*
 * T32 [RT] exec turns profiling off.  A child enables profiling, burns
 * until a count arrived and execs this program again (through the library's execve); the
 * new image must find profiling off, neither the library's sampling
 * signal nor SIGPROF pending, both at their default action in the kernel,
 * no interval or POSIX timer left running, and survive 1 s of CPU
 * (glibc's ITIMER_PROF survives exec and kills it).  It exits 0.
 * The same through execvp and execl, with 0.2 s of CPU (a surviving 100 Hz
 * timer would strike within 10 ms).
 */
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tprof.h"

static int after_exec(double burn, int sig)
{
	sigset_t pending;
	struct sigaction sa;
	struct itimerval it;
	struct tp_kaction k;

	T_EQ(profil_state(), PROFIL_OFF);
	T_OK(sigpending(&pending) == 0);
	T_OK(!sigismember(&pending, SIGPROF));
	T_OK(!sigismember(&pending, sig));
	T_OK(sigaction(SIGPROF, NULL, &sa) == 0);
	T_OK(sa.sa_handler == SIG_DFL);
	tp_kernel_action(sig, &k);
	T_OK(k.handler == SIG_DFL);
	T_OK(getitimer(ITIMER_PROF, &it) == 0);
	T_OK(it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0);
	int timers = tp_count_timers();
	if (timers >= 0)
		T_EQ(timers, 0);
	tp_burn(burn);
	T_OK(sigpending(&pending) == 0);
	T_OK(!sigismember(&pending, SIGPROF));
	T_OK(!sigismember(&pending, sig));
	return 0;
}

static void run(int how)
{
	static unsigned short buf[4];
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		tp_profil_on(buf, sizeof buf, 0, 2);
		tp_burn_until_counted(buf);
		char sig[16];
		snprintf(sig, sizeof sig, "%d", tp_sampling_signal());
		char *argv[] = { "t-exec", "after-exec", how ? "0.2" : "1.0", sig, NULL };
		if (how == 0)
			execve("/proc/self/exe", argv, environ);
		else if (how == 1)
			execvp("/proc/self/exe", argv);
		else
			execl("/proc/self/exe", "t-exec", "after-exec", "0.2", sig, (char *)NULL);
		T_FAIL("exec: %s", strerror(errno));
	}
	int status;
	T_OK(waitpid(pid, &status, 0) == pid);
	tp_child_ok(status);
}

int main(int argc, char **argv)
{
	if (argc > 3 && strcmp(argv[1], "after-exec") == 0)
		return after_exec(atof(argv[2]), atoi(argv[3]));
	for (int how = 0; how < 3; how++)
		run(how);
	return 0;
}
