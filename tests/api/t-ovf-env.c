/*
 * T23 PROFIL_OVERFLOW=wrap selects the wrap policy for a program that never
 * calls profil_overflow_policy (checked in a re-executed child, since the
 * library reads its environment once at start-up); an invalid policy value
 * is EINVAL and changes nothing.
 */
#include <unistd.h>

#include "helpers/tprof.h"

static int child(void)
{
	unsigned short buf[2] = { 65534, 0 };

	T_EQ(profil_overflow_policy(PROFIL_OVF_QUERY), PROFIL_OVF_WRAP);
	tp_manual();
	T_EQ(profil(buf, sizeof buf, 0, 2), 0);
	for (int i = 0; i < 3; i++)
		T_EQ(__profil_inject(0x100, 1), 0);
	T_EQ(buf[0], 1);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	return 0;
}

static int junk_child(void)
{
	T_EQ(profil_overflow_policy(PROFIL_OVF_QUERY), PROFIL_OVF_SATURATE);
	return tp_env_was_rejected("PROFIL_OVERFLOW");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child();
	if (argc > 1 && strcmp(argv[1], "junk") == 0)
		return junk_child();

	T_EQ(profil_overflow_policy(PROFIL_OVF_QUERY), PROFIL_OVF_SATURATE);
	const int bad[] = { -1, 4, 0x100, 99 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		errno = 0;
		T_EQ(profil_overflow_policy(bad[i]), -1);
		T_EQ(errno, EINVAL);
		T_EQ(profil_overflow_policy(PROFIL_OVF_QUERY), PROFIL_OVF_SATURATE);
	}
	const char *env[] = { "PROFIL_OVERFLOW=wrap", NULL };
	tp_rerun_ok("child", env);

	/* An invalid value in the environment is ignored (default policy) and
	 * reported by profil_stats. */
	const char *junk[] = { "PROFIL_OVERFLOW=sometimes", NULL };
	tp_rerun_ok("junk", junk);
	return 0;
}
