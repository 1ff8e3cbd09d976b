/*
 * T31 [RT] fork keeps profiling on in parent and child (every seed system;
 * glibc's child is not profiled).  The child burns 1 s and reports, through
 * a pipe, how much its copy of the counter grew: 1 s x rate within the
 * spec's 25 %.  The parent sleeps meanwhile, and its own counter does not
 * move: at most one tick, for the microseconds of CPU its read and waitpid
 * take.  Afterwards the parent still counts.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tprof.h"

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
		unsigned at_fork = buf[0];
		T_EQ(profil_state(), PROFIL_CLASSIC);
		tp_burn(1.0);
		unsigned grew = buf[0] - at_fork;
		T_OK(write(fd[1], &grew, sizeof grew) == sizeof grew);
		_exit(0);
	}
	unsigned short snap = buf[0];
	unsigned grew = 0;
	T_OK(read(fd[0], &grew, sizeof grew) == sizeof grew);
	int status;
	T_OK(waitpid(pid, &status, 0) == pid);
	tp_child_ok(status);
	T_RANGE(buf[0] - snap, 0, 1);
	TP_NEAR(grew, 1.0 * profil_hz(), 0.25);

	T_EQ(profil_state(), PROFIL_CLASSIC);
	snap = buf[0];
	tp_burn(0.3);
	TP_NEAR(buf[0] - snap, 0.3 * profil_hz(), 0.25);
	return 0;
}
