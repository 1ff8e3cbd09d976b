/*
 * T40 sprofil region fault: a region whose buffer is PROT_NONE is accepted
 * (HP-UX: "silently disabled" at the first faulting update); the first
 * sample that hits it turns the whole configuration off, so later samples
 * in the healthy region are not counted either.  No crash.
 */
#include <sys/profil.h>

#include "family.h"

static void t40(void)
{
	uint16_t good[16] = { 0 };
	uint16_t *bad = fam_pages(1, PROT_NONE);
	struct prof p[2] = { { .pr_base = good, .pr_size = sizeof good, .pr_off = 0x1000,
			       .pr_scale = 0x10000 },
			     { .pr_base = bad, .pr_size = 32, .pr_off = 0x2000, .pr_scale = 0x10000 } };
	fam_manual();
	T_EQ(sprofil(p, 2, NULL, PROF_USHORT), 0);
	FAM_INJ(0x1002, 1);
	T_EQ(good[1], 1);
	FAM_INJ(0x2004, 1); /* faults: everything off */
	T_EQ(profil_state(), PROFIL_OFF);
	FAM_INJ_OFF(0x1002, 1);
	FAM_INJ_OFF(0x2004, 1);
	T_EQ(good[1], 1);
	/* Profiling can be turned on again afterwards. */
	T_EQ(sprofil(p, 1, NULL, PROF_USHORT), 0);
	FAM_INJ(0x1002, 1);
	T_EQ(good[1], 2);
}

int main(void)
{
	fam_case("T40 sprofil region fault", t40);
	return fam_status();
}
