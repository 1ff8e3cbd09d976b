/*
 * sprofil counter overflow (spec 3.7): T21 32-bit saturation with a tick
 * weight, the same for 64-bit counters and the overflow bin; T24 the
 * per-call PROF_OVF_STOP / PROF_OVF_WRAP bits apply to that configuration
 * only, the process policy stays saturate.
 */
#include <sys/profil.h>

#include "family.h"

static void t21(void)
{
	uint32_t c[4] = { 0 };
	uint64_t w[2] = { 0 };
	uint32_t bin[1] = { 0 };
	struct prof p[2] = { { .pr_base = c, .pr_size = sizeof c, .pr_off = 0x1000,
			       .pr_scale = 0x10000 },
			     { .pr_base = bin, .pr_size = 4, .pr_off = 0, .pr_scale = 2 } };
	fam_manual();
	T_EQ(sprofil(p, 2, NULL, PROF_UINT), 0);
	c[0] = 0xFFFFFFF0u;
	FAM_INJ(0x1000, 100);
	T_EQ(c[0], 0xFFFFFFFFu);
	FAM_INJ(0x1000, 1);
	T_EQ(c[0], 0xFFFFFFFFu);
	bin[0] = 0xFFFFFFFEu; /* the bin saturates too (glibc's wraps) */
	FAM_INJ(0x10, 3);
	T_EQ(bin[0], 0xFFFFFFFFu);
	T_EQ(profil_state(), PROFIL_REGIONS);

	struct prof q = { .pr_base = w, .pr_size = sizeof w, .pr_off = 0x1000, .pr_scale = 0x10000 };
	T_EQ(sprofil(&q, 1, NULL, PROF_UINT64), 0);
	w[1] = UINT64_MAX - 5;
	FAM_INJ(0x1008, 100);
	T_EQ(w[1] == UINT64_MAX, 1);
}

static void t24(void)
{
	uint16_t c[4] = { 0 };
	struct prof p = { .pr_base = c, .pr_size = sizeof c, .pr_off = 0x1000, .pr_scale = 0x10000 };
	fam_manual();
	T_EQ(profil_overflow_policy(PROFIL_OVF_QUERY), PROFIL_OVF_SATURATE);
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT | PROF_OVF_STOP), 0);
	c[0] = 32766;
	FAM_INJ(0x1000, 1);
	T_EQ(c[0], 32767);
	T_EQ(profil_state(), PROFIL_REGIONS);
	FAM_INJ(0x1000, 1); /* would pass 32767: counter kept, all off */
	T_EQ(c[0], 32767);
	T_EQ(profil_state(), PROFIL_OFF);
	FAM_INJ_OFF(0x1002, 1);
	T_EQ(c[1], 0);
	T_EQ(profil_overflow_policy(PROFIL_OVF_QUERY), PROFIL_OVF_SATURATE);

	/* The next configuration, without the bit, saturates. */
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
	c[0] = 65534;
	FAM_INJ(0x1000, 1);
	FAM_INJ(0x1000, 1);
	FAM_INJ(0x1000, 1);
	T_EQ(c[0], 65535);
	T_EQ(profil_state(), PROFIL_REGIONS);

	/* PROF_OVF_WRAP for one call, then saturate again. */
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT | PROF_OVF_WRAP), 0);
	c[0] = 65534;
	FAM_INJ(0x1000, 3);
	T_EQ(c[0], 1);
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
	c[0] = 65534;
	FAM_INJ(0x1000, 3);
	T_EQ(c[0], 65535);
}

int main(void)
{
	fam_case("T21 32/64-bit saturation", t21);
	fam_case("T24 per-call overflow flag", t24);
	return fam_status();
}
