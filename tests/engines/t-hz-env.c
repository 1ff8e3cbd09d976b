/*
 * T30 [RT] PROFIL_HZ sets the base rate of a program that does not ask for
 * one (read once at start-up, so checked in a re-executed child):
 * PROFIL_HZ=50 gives profil_hz() == 50 and 2 s of CPU give 100 counts
 * (T_COUNT: CPU time x 50).  An out-of-range value is ignored (the default stays) and
 * named by profil_stats().
 */
#include <unistd.h>

#include "helpers/tprof.h"

static int child(void)
{
	static unsigned short buf[4];
	struct profil_stats st;

	T_EQ(profil_hz(), 50);
	tp_profil_on(buf, sizeof buf, 0, 2);
	T_EQ(profil_stats(&st), 0);
	T_EQ(st.hz, 50);
	T_EQ(st.base_hz, 50);
	double t0 = t_proc_cpu();
	tp_burn(2.0);
	T_EQ(tp_profil_off(), 0);
	T_COUNT(buf[0], (t_proc_cpu() - t0) * 50);
	return 0;
}

static int junk_child(void)
{
	T_EQ(profil_hz(), sysconf(_SC_CLK_TCK));
	return tp_env_was_rejected("PROFIL_HZ");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child();
	if (argc > 1 && strcmp(argv[1], "junk") == 0)
		return junk_child();

	const char *env[] = { "PROFIL_HZ=50", NULL };
	tp_rerun_ok("child", env);
	const char *junk[][2] = { { "PROFIL_HZ=0", NULL }, { "PROFIL_HZ=10001", NULL },
				  { "PROFIL_HZ=fast", NULL } };
	for (size_t i = 0; i < 3; i++)
		tp_rerun_ok("junk", junk[i]);
	return 0;
}
