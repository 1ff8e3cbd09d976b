/*
 * pcsample, exact cases (spec 3.9): T78 an invalid count is EINVAL and the
 * running session goes on, T79 pcsample and profil replace each other (the
 * count restarts at 0 after profil), T83 weighted storage never exceeds the
 * capacity, T42 a store that faults stops sampling and the count is the
 * number of pcs really stored.  Manual engine.
 */
#include <limits.h>
#include <pcsample.h>

#include "family.h"

static void t78(void)
{
	uintptr_t s[100];
	fam_manual();
	T_EQ(pcsample(s, 100), 0);
	FAM_INJ(0x1000, 1);
	FAM_INJ(0x1001, 2);
	errno = 0;
	T_EQ(pcsample(s, -1), -1);
	T_EQ(errno, EINVAL);
	errno = 0;
	T_EQ(pcsample(s, LONG_MIN), -1);
	T_EQ(errno, EINVAL);
	errno = 0;
	T_EQ(pcsample(s, LONG_MAX), -1); /* LONG_MAX * 8 bytes overflows */
	T_EQ(errno, EINVAL);
	T_EQ(profil_state(), PROFIL_PCSAMPLE);
	FAM_INJ(0x1002, 1);
	T_EQ(pcsample(s, 0), 4);
	T_EQ(s[0], 0x1000);
	T_EQ(s[1], 0x1001);
	T_EQ(s[2], 0x1001);
	T_EQ(s[3], 0x1002);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(pcsample(s, 0), 0); /* the count is returned once */
}

static void t79(void)
{
	uintptr_t s[10] = { 0 };
	unsigned short h[8] = { 0 };
	fam_manual();
	T_EQ(pcsample(s, 10), 0);
	FAM_INJ(0x2000, 2);
	T_EQ(profil(h, sizeof h, 0x2000, 0x10000), 0); /* replaces pcsample */
	T_EQ(profil_state(), PROFIL_CLASSIC);
	FAM_INJ(0x2002, 1);
	T_EQ(h[1], 1);
	T_EQ(s[2], 0);
	T_EQ(pcsample(s, 0), 0); /* profil came in between: count 0 */
	T_EQ(profil_state(), PROFIL_OFF);

	T_EQ(profil(h, sizeof h, 0x2000, 0x10000), 0);
	T_EQ(pcsample(s, 10), 0); /* stops profil */
	T_EQ(profil_state(), PROFIL_PCSAMPLE);
	FAM_INJ(0x2004, 1);
	T_EQ(h[2], 0);
	T_EQ(s[0], 0x2004);
	/* a new pcsample session returns the previous one's count */
	T_EQ(pcsample(s, 10), 1);
	T_EQ(pcsample(s, 0), 0);
}

static void t83(void)
{
	uintptr_t s[8];
	for (int i = 0; i < 8; i++)
		s[i] = 0x5a5a;
	fam_manual();
	T_EQ(pcsample(s, 5), 0);
	FAM_INJ(0x1234, 3);
	T_EQ(s[0], 0x1234);
	T_EQ(s[1], 0x1234);
	T_EQ(s[2], 0x1234);
	T_EQ(s[3], 0x5a5a);
	FAM_INJ(0x5678, 4); /* only 2 fit */
	T_EQ(s[3], 0x5678);
	T_EQ(s[4], 0x5678);
	for (int i = 5; i < 8; i++)
		T_EQ(s[i], 0x5a5a);
	T_EQ(profil_state(), PROFIL_OFF); /* full */
	FAM_INJ_OFF(0x9999, 1);
	T_EQ(pcsample(s, 0), 5);
}

static void t42(void)
{
	size_t pg = (size_t)getpagesize();
	char *p = fam_pages(2, PROT_READ | PROT_WRITE);
	T_OK(mprotect(p + pg, pg, PROT_NONE) == 0);
	uintptr_t *s = (uintptr_t *)(p + pg) - 5; /* slots 5..9 are inaccessible */
	fam_manual();
	T_EQ(pcsample(s, 10), 0);
	for (int i = 0; i < 10; i++)
		__profil_inject(0x3000 + (uintptr_t)i, 1);
	T_EQ(profil_state(), PROFIL_OFF);
	for (int i = 0; i < 5; i++)
		T_EQ(s[i], 0x3000 + (uintptr_t)i);
	T_EQ(pcsample(s, 0), 5);
}

int main(void)
{
	fam_case("T78 invalid count", t78);
	fam_case("T79 mutual exclusion", t79);
	fam_case("T83 weighted storage", t83);
	fam_case("T42 pcsample fault", t42);
	return fam_status();
}
