/*
 * T31 [RT] fork keeps profiling on in parent and child (every seed system;
 * glibc's child is not profiled).  The child burns 1 s and reports, through
 * a pipe, how much its copy of the counter grew and the CPU time it spent:
 * its CPU time x rate (T_COUNT).  The parent sleeps meanwhile, and its own
 * counter moves only by what the CPU time of its read and waitpid allows
 * (T_COUNT_MAX: at most a tick or two).  Afterwards the parent still
 * counts.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tprof.h"

struct report {
	unsigned grew;
	double cpu;
};

int main(void)
{
	static unsigned short buf[4];
	int fd[2];

	T_OK(pipe(fd) == 0);
	tp_profil_on(buf, sizeof buf, 0, 2);
	tp_burn(0.1);
	fflush(NULL);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		double t0 = t_proc_cpu();
		unsigned at_fork = buf[0];
		T_EQ(profil_state(), PROFIL_CLASSIC);
		tp_burn(1.0);
		T_EQ(tp_profil_off(), 0);
		struct report r = { (unsigned short)(buf[0] - at_fork), t_proc_cpu() - t0 };
		T_OK(write(fd[1], &r, sizeof r) == sizeof r);
		_exit(0);
	}
	double t0 = t_proc_cpu();
	unsigned short snap = buf[0];
	struct report child = { 0, 0 };
	T_OK(read(fd[0], &child, sizeof child) == sizeof child);
	int status;
	T_OK(waitpid(pid, &status, 0) == pid);
	tp_child_ok(status);
	T_NOTE("parent %.6f s of CPU while the child ran; child %.3f s", t_proc_cpu() - t0,
	       child.cpu);
	T_COUNT_MAX(buf[0] - snap, (t_proc_cpu() - t0) * profil_hz());
	T_COUNT(child.grew, child.cpu * profil_hz());

	T_EQ(profil_state(), PROFIL_CLASSIC);
	snap = buf[0];
	t0 = t_proc_cpu();
	tp_burn(0.5);
	T_EQ(tp_profil_off(), 0); /* credits what the thread is owed */
	T_COUNT((unsigned short)(buf[0] - snap), (t_proc_cpu() - t0) * profil_hz());
	return 0;
}
