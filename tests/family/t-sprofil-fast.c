/*
 * T27 [RT] PROF_FAST: tvp is {0, 1000} (ten times the 100 Hz base rate) and
 * one second of CPU burnt in hot gives 1000 weighted ticks: T_COUNT around
 * the CPU time measured x 1000, whatever the kernel's tick rate (a 250 Hz
 * kernel delivers 4 ticks per signal; tick weighting restores the total).
 * Default engine.
 */
#include <sys/profil.h>

#include "family.h"

int main(void)
{
	static uint32_t region[1024], bin[1];
	size_t len = (size_t)(__stop_fam_hot - __start_fam_hot);
	T_OK(len > 0 && len <= sizeof region); /* 1:1 scale: 4 text bytes per counter */
	struct prof p[2] = {
		{ .pr_base = region, .pr_size = (len + 3) / 4 * 4,
		  .pr_off = (uintptr_t)__start_fam_hot, .pr_scale = 0x10000 },
		{ .pr_base = bin, .pr_size = 4, .pr_off = 0, .pr_scale = 2 },
	};
	struct timeval tv = { 99, 99 };
	if (getenv("PROFIL_HZ"))
		T_SKIP("PROFIL_HZ is set in the environment");
	double t0 = t_proc_cpu();
	T_EQ(sprofil(p, 2, &tv, PROF_UINT | PROF_FAST), 0);
	T_EQ(tv.tv_sec, 0);
	T_EQ(tv.tv_usec, 1000);
	hot(1.0);
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
	double cpu = t_proc_cpu() - t0;
	unsigned long long in_hot = fam_sum(region, 1024, 4), total = in_hot + bin[0];
	T_NOTE("cpu %.3f s, %llu in hot", cpu, in_hot);
	T_COUNT(total, cpu * 1000);
	T_OK(in_hot >= total * 9 / 10); /* the burn loop is hot's */
	return 0;
}
