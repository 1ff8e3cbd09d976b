/*
 * T80 [RT] a pcsample session continues across fork (Solaris page, spec
 * 3.8): 0.5 s of CPU before the fork (about 50 samples), then the child
 * burns 0.5 s more and returns about 100 (the pre-fork samples included),
 * while the parent, asleep in waitpid, returns about 50.  Each is checked
 * with T_COUNT against its own process's CPU time since the session began
 * x rate.  Default engine, 100 Hz.
 */
#include <pcsample.h>

#include "family.h"

static void t80(void)
{
	static uintptr_t s[1000];
	int fd[2];
	T_OK(pipe(fd) == 0);
	double t0 = t_proc_cpu();
	T_EQ(pcsample(s, 1000), 0);
	hot(0.5);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		/* The child's CPU clock starts at 0: the time before the fork
		 * is the parent's, measured there. */
		hot(0.5);
		struct { long k; double cpu; } r = { pcsample(s, 0), t_proc_cpu() };
		_exit(write(fd[1], &r, sizeof r) == sizeof r ? 0 : 1);
	}
	double before = t_proc_cpu() - t0;
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	T_OK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct { long k; double cpu; } child;
	T_EQ(read(fd[0], &child, sizeof child), sizeof child);
	long parent = pcsample(s, 0);
	double cpu = t_proc_cpu() - t0;
	T_NOTE("parent cpu %.3f s (%.3f s before the fork), child %.3f s", cpu, before,
	       child.cpu);
	T_COUNT(child.k, (before + child.cpu) * profil_hz());
	T_COUNT(parent, cpu * profil_hz());
}

int main(void)
{
	fam_case("T80 fork continues", t80);
	return fam_status();
}
