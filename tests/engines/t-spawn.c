/*
 * T33 [RT] children made with posix_spawn and system() from a profiled
 * process run to completion normally (they burn CPU, so an inherited
 * profiling timer would kill them with SIGPROF), while the parent keeps
 * counting at its rate: its own CPU time (0.6 s burnt, the children's
 * time is theirs) x rate, T_COUNT.
 */
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/tprof.h"

int main(int argc, char **argv)
{
	static unsigned short buf[4];

	if (argc > 1 && strcmp(argv[1], "burn") == 0) {
		tp_burn(0.3);
		return 0;
	}
	double t0 = t_proc_cpu();
	tp_profil_on(buf, sizeof buf, 0, 2);
	tp_burn(0.3);

	pid_t pid;
	char *args[] = { "t-spawn", "burn", NULL };
	T_EQ(posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ), 0);
	int status;
	T_OK(waitpid(pid, &status, 0) == pid);
	tp_child_ok(status);
	T_EQ(profil_state(), PROFIL_CLASSIC);

	char cmd[64];
	ssize_t n = readlink("/proc/self/exe", cmd, sizeof cmd - 8);
	T_OK(n > 0 && (size_t)n < sizeof cmd - 8);
	memcpy(cmd + n, " burn", 6);
	T_EQ(system(cmd), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);

	tp_burn(0.3);
	T_EQ(tp_profil_off(), 0);
	T_COUNT(buf[0], (t_proc_cpu() - t0) * profil_hz());
	return 0;
}
