/*
 * sprofil mapping, counter widths and the overflow bin (spec 4 F):
 * T43 two regions, T44 PROF_UINT index, T22 PROF_UINT64 index, T45 overflow
 * bin, T46 pc outside every region without a bin (glibc crashes there),
 * T47 pc below the lowest region with a bin.  All exact (manual engine).
 * Also the choices of spec 3.4 between the systems: the multiply-first
 * index for scales that are not powers of two (glibc divides first),
 * scales above 0x10000 (HP-UX's table goes to 131072), and an overflow bin
 * anywhere in the array in default mode (glibc; HP-UX wants it last).
 */
#include <sys/profil.h>

#include "family.h"

static uint16_t a16[32], b16[32], bin16[1];

static void set_two(struct prof p[2])
{
	p[0] = (struct prof){ .pr_base = a16, .pr_size = 64, .pr_off = 0x10000, .pr_scale = 0x10000 };
	p[1] = (struct prof){ .pr_base = b16, .pr_size = 64, .pr_off = 0x40000, .pr_scale = 0x10000 };
}

static void t43(void)
{
	struct prof p[2];
	fam_manual();
	set_two(p);
	T_EQ(sprofil(p, 2, NULL, PROF_USHORT), 0);
	T_EQ(profil_state(), PROFIL_REGIONS);
	FAM_INJ(0x10004, 1);
	FAM_INJ(0x40006, 1);
	T_EQ(a16[2], 1);
	T_EQ(b16[3], 1);
	T_EQ(fam_sum(a16, 32, 2), 1);
	T_EQ(fam_sum(b16, 32, 2), 1);
}

static void t44(void)
{
	uint32_t c[16] = { 0 };
	struct prof p = { .pr_base = c, .pr_size = sizeof c, .pr_off = 0x5000, .pr_scale = 0x10000 };
	fam_manual();
	T_EQ(sprofil(&p, 1, NULL, PROF_UINT), 0);
	FAM_INJ(0x5000 + 9, 1); /* B = 9, I = 9 / 4 = 2 */
	T_EQ(c[2], 1);
	T_EQ(fam_sum(c, 16, 4), 1);
}

static void t22(void)
{
	uint64_t c[8] = { 0 };
	struct prof p = { .pr_base = c, .pr_size = sizeof c, .pr_off = 0x5000, .pr_scale = 0x10000 };
	fam_manual();
	T_EQ(sprofil(&p, 1, NULL, PROF_UINT64), 0);
	FAM_INJ(0x5000 + 17, 1); /* B = 17, I = 17 / 8 = 2 */
	T_EQ(c[0], 0);
	T_EQ(c[1], 0);
	T_EQ(c[2], 1);
	T_EQ(c[3], 0);
	T_EQ(fam_sum(c, 8, 8), 1);
}

static void with_bin(void)
{
	struct prof p[3];
	fam_manual();
	set_two(p);
	p[2] = (struct prof){ .pr_base = bin16, .pr_size = 2, .pr_off = 0, .pr_scale = 2 };
	T_EQ(sprofil(p, 3, NULL, PROF_USHORT), 0);
}

static void t45(void)
{
	with_bin();
	FAM_INJ(0x30000, 1); /* between the regions */
	FAM_INJ(0x40040, 1); /* just past the second region */
	T_EQ(bin16[0], 2);
	T_EQ(fam_sum(a16, 32, 2) + fam_sum(b16, 32, 2), 0);
	FAM_INJ(0x1003e, 1); /* last byte of the first region: not the bin */
	T_EQ(a16[31], 1);
	T_EQ(bin16[0], 2);
}

static void t46(void)
{
	struct prof p[2];
	fam_manual();
	set_two(p);
	T_EQ(sprofil(p, 2, NULL, PROF_USHORT), 0);
	FAM_INJ(0x1000, 1);           /* below the lowest region */
	FAM_INJ(0xffff, 1);           /* one below */
	FAM_INJ(0x40040, 1);          /* one past the highest */
	FAM_INJ(UINTPTR_MAX, 1);      /* top of the address space */
	FAM_INJ(0, 1);
	T_EQ(fam_sum(a16, 32, 2) + fam_sum(b16, 32, 2), 0);
	T_EQ(profil_state(), PROFIL_REGIONS);
}

static void t47(void)
{
	with_bin();
	FAM_INJ(0x100, 1);
	FAM_INJ(0xffff, 1);
	T_EQ(bin16[0], 2);
	T_EQ(fam_sum(a16, 32, 2) + fam_sum(b16, 32, 2), 0);
}

/* Multiply first: I = floor(floor(d * scale / 65536) / E). */
static void rounding(void)
{
	uint16_t h[8] = { 0 };
	uint32_t w[8] = { 0 };
	struct prof p = { .pr_base = h, .pr_size = sizeof h, .pr_off = 0x8000, .pr_scale = 0xC000 };
	fam_manual();
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
	FAM_INJ(0x8000 + 3, 1); /* B = 2: counter 1 (divide-first: 0) */
	T_EQ(h[0], 0);
	T_EQ(h[1], 1);
	p = (struct prof){ .pr_base = w, .pr_size = sizeof w, .pr_off = 0x8000, .pr_scale = 0xC000 };
	T_EQ(sprofil(&p, 1, NULL, PROF_UINT), 0);
	FAM_INJ(0x8000 + 6, 1); /* B = 4: counter 1 (divide-first: 0) */
	T_EQ(w[0], 0);
	T_EQ(w[1], 1);
}

/* 131072 = 2.0: two counter bytes per text byte (HP-UX's table). */
static void large_scale(void)
{
	uint16_t h[8] = { 0 };
	struct prof p = { .pr_base = h, .pr_size = sizeof h, .pr_off = 0x8000, .pr_scale = 131072 };
	fam_manual();
	T_EQ(sprofil(&p, 1, NULL, PROF_USHORT), 0);
	FAM_INJ(0x8000 + 3, 1); /* B = 6: counter 3 */
	T_EQ(h[3], 1);
	FAM_INJ(0x8000 + 7, 1); /* B = 14: counter 7, the last */
	T_EQ(h[7], 1);
	FAM_INJ(0x8000 + 8, 1); /* B = 16: past the end */
	T_EQ(fam_sum(h, 8, 2), 2);
}

static void bin_first(void)
{
	struct prof p[3];
	fam_manual();
	set_two(p + 1);
	p[0] = (struct prof){ .pr_base = bin16, .pr_size = 2, .pr_off = 0, .pr_scale = 2 };
	T_EQ(sprofil(p, 3, NULL, PROF_USHORT), 0);
	FAM_INJ(0x30000, 1);
	FAM_INJ(0x10, 1); /* below every region */
	T_EQ(bin16[0], 2);
	FAM_INJ(0x10002, 1);
	T_EQ(a16[1], 1);
	T_EQ(bin16[0], 2);
}

int main(void)
{
	fam_case("T43 two regions", t43);
	fam_case("T44 PROF_UINT index", t44);
	fam_case("T22 PROF_UINT64 index", t22);
	fam_case("T45 overflow bin", t45);
	fam_case("T46 no bin, pc outside", t46);
	fam_case("T47 below lowest, with bin", t47);
	fam_case("multiply-first index", rounding);
	fam_case("scale above 0x10000", large_scale);
	fam_case("bin first in the array", bin_first);
	return fam_status();
}
