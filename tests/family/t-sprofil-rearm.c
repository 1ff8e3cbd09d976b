/*
 * glibc's double-free regression, harder than T57: sprofil re-armed 1000
 * times in a row *while on* (glibc: the second call only turns profiling
 * off, the third aborts with "double free detected").  Each call switches
 * to the other of two buffers; exactly the one injected sample of that
 * round must land in the new buffer and the old one must stay as it was.
 */
#include <sys/profil.h>

#include "family.h"

int main(void)
{
	static uint32_t buf[2][8];
	fam_manual();
	for (int i = 0; i < 1000; i++) {
		int k = i & 1;
		struct prof p = { .pr_base = buf[k], .pr_size = sizeof buf[k], .pr_off = 0x4000,
				  .pr_scale = 0x10000 };
		uint32_t other = buf[!k][i % 8];
		T_EQ(sprofil(&p, 1, NULL, PROF_UINT), 0);
		FAM_INJ(0x4000 + 4 * (size_t)(i % 8), 1);
		T_EQ(fam_sum(buf[k], 8, 4), i / 2 + 1);
		T_EQ(buf[!k][i % 8], other);
		T_EQ(fam_sum(buf[!k], 8, 4), (i + 1) / 2);
	}
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	return 0;
}
