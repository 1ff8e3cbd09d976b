/*
 * sprofil turning on, off and over (spec 3.5): T55 disabling, T57 100
 * on/off cycles (glibc aborts with a double free on the second), T58 a call
 * while on replaces (glibc only turns off), T59 descriptors are copied,
 * T60 profil == one-entry sprofil(PROF_USHORT).  Exact (manual engine).
 */
#include <sys/profil.h>

#include "family.h"

static uint16_t a[32], b[32];

static struct prof region(void *buf, size_t off)
{
	return (struct prof){ .pr_base = buf, .pr_size = 64, .pr_off = off, .pr_scale = 0x10000 };
}

static void t55(void)
{
	struct prof p = region(a, 0x1000);
	struct timeval tv = { 5, 5 };
	fam_manual();
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
	T_EQ(sprofil(NULL, 0, &tv, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(tv.tv_sec, 0);
	T_EQ(tv.tv_usec, 1000000 / profil_hz());
	FAM_INJ_OFF(0x1002, 1);
	T_EQ(a[1], 0);

	/* Every entry ignored (scale 0 or 1): off as well. */
	struct prof q[2] = { region(a, 0x1000), region(b, 0x2000) };
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
	q[0].pr_scale = 0;
	q[1].pr_scale = 1;
	T_EQ(sprofil(q, 2, NULL, PROF_USHORT), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	FAM_INJ_OFF(0x1002, 1);
	FAM_INJ_OFF(0x2002, 1);
	T_EQ(fam_sum(a, 32, 2) + fam_sum(b, 32, 2), 0);
	/* Off while off is fine. */
	T_EQ(sprofil(NULL, 0, NULL, 0), 0);
}

static void t57(void)
{
	struct prof p = region(a, 0x1000);
	fam_manual();
	for (int i = 1; i <= 100; i++) {
		T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
		FAM_INJ(0x1000 + 2 * (i % 32), 1);
		T_EQ(fam_sum(a, 32, 2), i);
		T_EQ(sprofil(NULL, 0, NULL, 0), 0);
		FAM_INJ_OFF(0x1000, 1);
	}
}

static void t58(void)
{
	struct prof p1 = region(a, 0x1000), p2 = region(b, 0x1000);
	fam_manual();
	T_EQ(sprofil(&p1, 1, NULL, PROF_USHORT), 0);
	FAM_INJ(0x1004, 1);
	T_EQ(sprofil(&p2, 1, NULL, PROF_USHORT), 0);
	T_EQ(profil_state(), PROFIL_REGIONS);
	FAM_INJ(0x1004, 1);
	FAM_INJ(0x1006, 1);
	T_EQ(a[2], 1);
	T_EQ(fam_sum(a, 32, 2), 1);
	T_EQ(b[2], 1);
	T_EQ(b[3], 1);
}

static void t59(void)
{
	struct prof *p = malloc(2 * sizeof *p);
	T_OK(p != NULL);
	p[0] = region(a, 0x1000);
	p[1] = region(b, 0x3000);
	fam_manual();
	T_EQ(sprofil(p, 2, NULL, PROF_USHORT), 0);
	memset(p, 0xff, 2 * sizeof *p);
	free(p);
	FAM_INJ(0x1002, 1);
	FAM_INJ(0x3004, 1);
	T_EQ(a[1], 1);
	T_EQ(b[2], 1);
}

/* The same configuration through profil and through a one-entry sprofil. */
static void t60(void)
{
	static const unsigned int scales[] = { 0x10000, 0xC000, 0x8000, 0x1234, 0x3 };
	const size_t off = 0x20000;
	static const uintptr_t d[20] = { 0, 1, 2, 3, 5, 7, 8, 15, 16, 21, 33, 47, 60, 63, 64,
					 65, 100, 127, 0x40000, 0x7ffff };
	fam_manual();
	for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
		uint16_t x[64] = { 0 }, y[64] = { 0 };
		T_EQ(profil(x, sizeof x, off, scales[s]), 0);
		T_EQ(profil_state(), PROFIL_CLASSIC);
		for (int i = 0; i < 20; i++)
			FAM_INJ(off + d[i], 1);
		FAM_INJ(off - 1, 1);
		struct prof p = { .pr_base = y, .pr_size = sizeof y, .pr_off = off,
				  .pr_scale = scales[s] };
		T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
		for (int i = 0; i < 20; i++)
			FAM_INJ(off + d[i], 1);
		FAM_INJ(off - 1, 1);
		if (memcmp(x, y, sizeof x) != 0)
			T_FAIL("scale %#x: profil and sprofil counters differ", scales[s]);
		T_OK(fam_sum(x, 64, 2) > 0);
	}
}

int main(void)
{
	fam_case("T55 disabling", t55);
	fam_case("T57 100 on/off cycles", t57);
	fam_case("T58 call while on replaces", t58);
	fam_case("T59 descriptors copied", t59);
	fam_case("T60 profil == one-entry sprofil", t60);
	return fam_status();
}
