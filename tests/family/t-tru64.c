/*
 * Tru64 extended profil (spec 1.5, 3.3, 3.4), written as Tru64 code is:
 * <sys/resource.h>, struct profil_args, profil(args, n, (void *)-1, 0).
 * T62 two ranges given in decreasing lowpc order, T64 stop and switch
 * between the classic and the extended form, T65 range boundaries
 * (lowpc counted, highpc not) and increasing order accepted.  Exact.
 */
#include <sys/resource.h>

#include "family.h"

static unsigned int hi_buf[64], lo_buf[64];

static void two_ranges(struct profil_args a[2], int decreasing)
{
	struct profil_args hi = { hi_buf, (void *)0x20100, (void *)0x20000, (void *)0x20000, 0x10000 };
	struct profil_args lo = { lo_buf, (void *)0x10100, (void *)0x10000, (void *)0x10000, 0x10000 };
	a[0] = decreasing ? hi : lo;
	a[1] = decreasing ? lo : hi;
}

static void t62(void)
{
	struct profil_args a[2];
	two_ranges(a, 1);
	fam_manual();
	T_EQ(profil(a, 2, (void *)-1, 0), 0);
	T_EQ(profil_state(), PROFIL_TRU64);
	FAM_INJ(0x20008, 1); /* B = 8: 4-byte element 2 */
	T_EQ(hi_buf[2], 1);
	FAM_INJ(0x10004, 1);
	T_EQ(lo_buf[1], 1);
	FAM_INJ(0x30000, 1);
	FAM_INJ(0x18000, 1);
	T_EQ(fam_sum(hi_buf, 64, 4), 1);
	T_EQ(fam_sum(lo_buf, 64, 4), 1);
}

static void t64(void)
{
	struct profil_args a[2];
	unsigned short classic[16] = { 0 };
	two_ranges(a, 1);
	fam_manual();
	T_EQ(profil(a, 2, -1, 0), 0); /* literal -1, as Tru64 sources write it */
	T_EQ(profil(0, 0, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	FAM_INJ_OFF(0x20008, 1);

	/* classic replaces extended ... */
	T_EQ(profil(a, 2, (void *)-1, 0), 0);
	T_EQ(profil(classic, sizeof classic, 0x20000, 0x10000), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	FAM_INJ(0x20008, 1);
	T_EQ(classic[4], 1);
	T_EQ(fam_sum(hi_buf, 64, 4), 0);
	/* ... and extended replaces classic */
	T_EQ(profil(a, 2, (void *)-1, 0), 0);
	T_EQ(profil_state(), PROFIL_TRU64);
	FAM_INJ(0x20008, 1);
	T_EQ(classic[4], 1);
	T_EQ(hi_buf[2], 1);
	/* profil(0,0,0,0) stops either kind; count 0 too */
	T_EQ(profil(0, 0, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(profil(a, 2, (void *)-1, 0), 0);
	T_EQ(profil(a, 0, (void *)-1, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	/* all ranges with scale 0 or 1: off */
	T_EQ(profil(a, 2, (void *)-1, 0), 0);
	struct profil_args none[2] = { a[0], a[1] };
	none[0].scale = 0;
	none[1].scale = 1;
	T_EQ(profil(none, 2, (void *)-1, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
}

static void t65(void)
{
	struct profil_args a[2];
	two_ranges(a, 0); /* increasing order is accepted too */
	fam_manual();
	T_EQ(profil(a, 2, (void *)-1, 0), 0);
	FAM_INJ(0x10000, 1); /* lowpc: counted */
	T_EQ(lo_buf[0], 1);
	FAM_INJ(0x100ff, 1); /* highpc - 1: counted, last element */
	T_EQ(lo_buf[0x3f], 1);
	FAM_INJ(0x10100, 1); /* highpc: not counted */
	FAM_INJ(0xffff, 1);
	T_EQ(fam_sum(lo_buf, 64, 4), 2);
	FAM_INJ(0x200ff, 1);
	FAM_INJ(0x20100, 1);
	T_EQ(fam_sum(hi_buf, 64, 4), 1);

	/* offset below lowpc: the buffer starts at offset, counting starts at
	 * lowpc.  Scale 2: the whole range goes to element 0. */
	unsigned int b[8] = { 0 }, z[2] = { 0 };
	struct profil_args c[2] = {
		{ b, (void *)0x50010, (void *)0x50008, (void *)0x50000, 0x10000 },
		{ z, (void *)0x60000, (void *)0x58000, (void *)0x40000, 2 },
	};
	T_EQ(profil(c, 2, (void *)-1, 0), 0);
	FAM_INJ(0x50004, 1); /* below lowpc: no */
	FAM_INJ(0x50008, 1);
	T_EQ(b[2], 1);
	T_EQ(fam_sum(b, 8, 4), 1);
	FAM_INJ(0x58000, 1);
	FAM_INJ(0x5ffff, 1);
	FAM_INJ(0x60000, 1);
	T_EQ(z[0], 2);
	T_EQ(z[1], 0);
}

/* Overlapping ranges (the page forbids them) are accepted: the greatest
 * lowpc wins, as for sprofil. */
static void overlap(void)
{
	unsigned int outer[64] = { 0 }, inner[16] = { 0 };
	struct profil_args a[2] = {
		{ outer, (void *)0x10100, (void *)0x10000, (void *)0x10000, 0x10000 },
		{ inner, (void *)0x10040, (void *)0x10020, (void *)0x10020, 0x10000 },
	};
	fam_manual();
	T_EQ(profil(a, 2, (void *)-1, 0), 0);
	FAM_INJ(0x10024, 1);
	T_EQ(inner[1], 1);
	FAM_INJ(0x10040, 1);
	T_EQ(outer[16], 1);
	FAM_INJ(0x1001c, 1);
	T_EQ(outer[7], 1);
	T_EQ(fam_sum(outer, 64, 4), 2);
	T_EQ(fam_sum(inner, 16, 4), 1);
}

int main(void)
{
	fam_case("T62 two ranges", t62);
	fam_case("T64 stop and switch", t64);
	fam_case("T65 boundaries", t65);
	fam_case("overlapping ranges", overlap);
	return fam_status();
}
