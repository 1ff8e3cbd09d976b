/*
 * T81 exec stops pcsample: the process samples, then execs itself as a
 * helper, which must find profiling OFF and whose first pcsample call
 * returns 0.  The helper also burns 0.2 s of CPU first: it must not be
 * killed by a surviving profiling signal (glibc's defect with profil).
 */
#include <pcsample.h>

#include "family.h"

static int helper(void)
{
	static uintptr_t s[10];
	T_EQ(profil_state(), PROFIL_OFF);
	hot(0.2);
	T_EQ(pcsample(s, 10), 0);
	T_EQ(pcsample(s, 0) >= 0, 1);
	return 0;
}

static void t81(void)
{
	static uintptr_t s[1000];
	T_EQ(pcsample(s, 1000), 0);
	hot(0.1);
	execl("/proc/self/exe", "t-pcsample-exec", "helper", (char *)NULL);
	T_FAIL("execl: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "helper") == 0)
		return helper();
	fam_case("T81 exec stops", t81);
	return fam_status();
}
