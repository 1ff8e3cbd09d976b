/*
 * T80 [RT] a pcsample session continues across fork (Solaris page, spec
 * 3.8): 0.2 s of CPU before the fork (about 20 samples), then the child
 * burns 0.5 s more and returns about 70 (the pre-fork samples included;
 * bound [50, 90]), while the parent, asleep in waitpid, returns about 20
 * (bound [12, 28]).  Default engine, 100 Hz.
 */
#include <pcsample.h>

#include "family.h"

static void t80(void)
{
	static uintptr_t s[1000];
	int fd[2];
	T_OK(pipe(fd) == 0);
	T_EQ(pcsample(s, 1000), 0);
	hot(0.2);
	pid_t pid = fork();
	T_OK(pid >= 0);
	if (pid == 0) {
		hot(0.5);
		long k = pcsample(s, 0);
		_exit(write(fd[1], &k, sizeof k) == sizeof k ? 0 : 1);
	}
	int st;
	T_OK(waitpid(pid, &st, 0) == pid);
	T_OK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	long child;
	T_EQ(read(fd[0], &child, sizeof child), sizeof child);
	long parent = pcsample(s, 0);
	T_RANGE(child, 50, 90);
	T_RANGE(parent, 12, 28);
}

int main(void)
{
	fam_case("T80 fork continues", t80);
	return fam_status();
}
