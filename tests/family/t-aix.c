/*
 * AIX profil through <mon.h> (spec 1.6, 3.4, 3.5), written as AIX code is:
 * T67 only the low 16 bits of the scale count, T68 the rounded-up index,
 * T69 the struct prof array form with a terminator, T70 automatic scale,
 * T72 enabling while on is ineffective, T73 turning off with the other
 * syntax is ineffective, T74 the generic profil() selects the array form
 * by its bufsiz sentinel and then follows the generic rules.  Exact.
 */
#include <mon.h>

#include "family.h"

#define X 0x40000UL

static void t67(void)
{
	HISTCOUNTER a[64] = { 0 }, b[64] = { 0 };
	static const unsigned long d[] = { 0, 1, 2, 3, 4, 5, 9, 17, 40, 99, 126, 127, 128 };
	fam_manual();
	/* 0x10000 has low bits 0: off, whether profiling was on or not. */
	T_EQ(profil(a, sizeof a, X, 0x10000), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(profil(a, sizeof a, X, 0xFFFF), 0);
	T_EQ(profil_state(), PROFIL_AIX_CLASSIC);
	T_EQ(profil(a, sizeof a, X, 0x10000), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	/* 0x1FFFF is 0xFFFF. */
	T_EQ(profil(a, sizeof a, X, 0x1FFFF), 0);
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		FAM_INJ(X + d[i], 1);
	T_EQ(profil(a, sizeof a, X, 0), 0);
	T_EQ(profil(b, sizeof b, X, 0xFFFF), 0);
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		FAM_INJ(X + d[i], 1);
	T_EQ(memcmp(a, b, sizeof a), 0);
	/* d = 128: B = 127, ceil(127 / 2) = 64, past the 64 counters. */
	T_EQ(fam_sum(a, 64, 2), sizeof d / sizeof d[0] - 1);
}

static void t68(void)
{
	HISTCOUNTER a[8] = { 0 };
	fam_manual();
	T_EQ(__profil_aix(a, sizeof a, X, 0xFFFF), 0);
	T_EQ(profil_state(), PROFIL_AIX_CLASSIC);
	FAM_INJ(X + 2, 1); /* B = 1, rounded up to the next half word: counter 1 */
	T_EQ(a[0], 0);
	T_EQ(a[1], 1);
	FAM_INJ(X, 1); /* B = 0: counter 0 */
	T_EQ(a[0], 1);
	/* Counted iff ceil(B / 2) < BufferSize / 2: B = 14 is the last. */
	FAM_INJ(X + 14, 1); /* B = 13: counter 7 */
	T_EQ(a[7], 1);
	FAM_INJ(X + 16, 1); /* B = 15: counter 8, past the end */
	T_EQ(fam_sum(a, 8, 2), 3);
	/* Saturation at USHRT_MAX. */
	a[3] = 65534;
	FAM_INJ(X + 6, 5);
	T_EQ(a[3], 65535);
}

/* Scale 2 (also 0x10002, masked): everything in one location. */
static void scale2(void)
{
	HISTCOUNTER a[4] = { 0 };
	fam_manual();
	T_EQ(profil(a, sizeof a, X, 0x10002), 0);
	FAM_INJ(X, 1);
	FAM_INJ(X + 0x100000, 1);
	FAM_INJ(X - 1, 1); /* below the offset: no */
	T_EQ(a[0], 2);
	T_EQ(fam_sum(a, 4, 2), 2);
}

static HISTCOUNTER space[128]; /* one contiguous buffer space, two halves */

static void t69(void)
{
	struct prof p[3] = {
		{ (caddr_t)0x1000, (caddr_t)0x1100, space, 128, 0x8000 },
		{ (caddr_t)0x2000, (caddr_t)0x2100, space + 64, 128, 0x8000 },
		{ (caddr_t)0xdead, 0, (HISTCOUNTER *)0xbad, -7, 0x1234 }, /* terminator */
	};
	fam_manual();
	T_EQ(profil(p, -1, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_AIX_ARRAY);
	FAM_INJ(0x1008, 1); /* B = 4, I = 2 */
	T_EQ(space[2], 1);
	FAM_INJ(0x2002, 1); /* B = 1, rounded up: I = 1 */
	T_EQ(space[64 + 1], 1);
	FAM_INJ(0x2100, 1); /* p_high is not part of the range */
	FAM_INJ(0x10ff, 1); /* last pc of the first range: B = 127, I = 64 >= 64: no */
	FAM_INJ(0x1500, 1);
	FAM_INJ(0xfff, 1);
	T_EQ(fam_sum(space, 128, 2), 2);
}

static void t70(void)
{
	HISTCOUNTER b[32] = { 0 };
	struct prof p[2] = {
		{ (caddr_t)0x1000, (caddr_t)0x2000, b, 64, (unsigned int)-1 },
		{ 0, 0, 0, 0, 0 },
	};
	fam_manual();
	T_EQ(profil(p, -1, 0, 0), 0);
	FAM_INJ(0x1000, 1);
	T_EQ(b[0], 1);
	FAM_INJ(0x1FFF, 1);
	T_EQ(b[31], 1);
	FAM_INJ(0x2000, 1);
	T_EQ(fam_sum(b, 32, 2), 2);
	/* Every pc of the range lands in some counter. */
	for (uintptr_t pc = 0x1000; pc < 0x2000; pc++)
		FAM_INJ(pc, 1);
	T_EQ(fam_sum(b, 32, 2), 2 + 0x1000);
}

static void t72(void)
{
	HISTCOUNTER a[8] = { 0 }, b[8] = { 0 };
	fam_manual();
	T_EQ(__profil_aix(a, sizeof a, X, 0x8000), 0);
	T_EQ(__profil_aix(b, sizeof b, X, 0x8000), 0); /* ineffective */
	FAM_INJ(X + 4, 1);
	T_EQ(a[1], 1);
	T_EQ(fam_sum(b, 8, 2), 0);
	/* also with the array syntax while classic is on */
	struct prof p[2] = { { (caddr_t)X, (caddr_t)(X + 16), b, 16, 0x8000 }, { 0 } };
	T_EQ(__profil_aix(p, (unsigned int)-1, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_AIX_CLASSIC);
	FAM_INJ(X + 4, 1);
	T_EQ(a[1], 2);
	T_EQ(fam_sum(b, 8, 2), 0);
}

static void t73(void)
{
	HISTCOUNTER a[8] = { 0 };
	struct prof on[2] = { { (caddr_t)X, (caddr_t)(X + 16), a, 16, 0x8000 }, { 0 } };
	struct prof off[1] = { { 0 } };
	fam_manual();
	T_EQ(profil(off, -1, 0, 0), 0); /* off while off */
	T_EQ(profil(a, sizeof a, X, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(profil(on, -1, 0, 0), 0);
	T_EQ(profil(a, sizeof a, X, 0), 0); /* classic off: other syntax */
	T_EQ(profil(NULL, 0, 0, 1), 0);
	T_EQ(profil_state(), PROFIL_AIX_ARRAY);
	FAM_INJ(X + 4, 1);
	T_EQ(a[1], 1);
	T_EQ(profil(off, -1, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	FAM_INJ_OFF(X + 4, 1);
	/* and the reverse: classic on, array off is ineffective */
	T_EQ(profil(a, sizeof a, X, 0x8000), 0);
	T_EQ(profil(off, -1, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_AIX_CLASSIC);
	T_EQ(profil(a, sizeof a, X, 1), 0);
	T_EQ(profil_state(), PROFIL_OFF);
}

/* (profil) is glibc's declaration: the generic entry, not the <mon.h> macro. */
static void t74(void)
{
	HISTCOUNTER a[64] = { 0 }, b[64] = { 0 };
	struct prof pa[2] = { { (caddr_t)0x1000, (caddr_t)0x1080, a, 128, 0x8000 }, { 0 } };
	struct prof pb[2] = { { (caddr_t)0x1000, (caddr_t)0x1080, b, 128, 0x8000 }, { 0 } };
	fam_manual();
	T_EQ((profil)((unsigned short *)pa, (size_t)-1, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_AIX_ARRAY);
	FAM_INJ(0x1002, 1); /* B = 1: generic rule rounds down, counter 0 */
	T_EQ(a[0], 1);
	T_EQ((profil)((unsigned short *)pb, 0xFFFFFFFF, 0, 0), 0); /* replaces */
	T_EQ(profil_state(), PROFIL_AIX_ARRAY);
	FAM_INJ(0x1008, 1);
	T_EQ(b[2], 1);
	T_EQ(fam_sum(a, 64, 2), 1);
	/* a generic classic call replaces the array form too */
	T_EQ((profil)(a, sizeof a, 0x1000, 0x10000), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	FAM_INJ(0x1008, 1);
	T_EQ(a[4], 1);
	T_EQ(fam_sum(b, 64, 2), 1);
}

int main(void)
{
	fam_case("T67 scale masking", t67);
	fam_case("T68 AIX round-up", t68);
	fam_case("scale 2, one location", scale2);
	fam_case("T69 array form", t69);
	fam_case("T70 automatic scale", t70);
	fam_case("T72 already on is ineffective", t72);
	fam_case("T73 cross-syntax off is ineffective", t73);
	fam_case("T74 generic sentinels", t74);
	return fam_status();
}
