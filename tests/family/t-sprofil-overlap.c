/*
 * sprofil region selection (spec 3.4, default mode): T48 overlap (the
 * region with the greatest start that covers the pc wins), T49 equal
 * offsets (the earlier array entry wins), T50 unsorted input is accepted
 * and behaves like the sorted array.  Exact (manual engine).
 */
#include <sys/profil.h>

#include "family.h"

static uint16_t A[0x4000], B[0x800];

static void t48(void)
{
	/* A covers [0x1000, 0x9000), B covers [0x2000, 0x3000) (1:1 scale). */
	struct prof p[2] = {
		{ .pr_base = A, .pr_size = sizeof A, .pr_off = 0x1000, .pr_scale = 0x10000 },
		{ .pr_base = B, .pr_size = sizeof B, .pr_off = 0x2000, .pr_scale = 0x10000 },
	};
	fam_manual();
	T_EQ(sprofil(p, 2, NULL, PROF_USHORT), 0);
	FAM_INJ(0x2800, 1);
	T_EQ(B[0x400], 1);
	FAM_INJ(0x5000, 1);
	T_EQ(A[0x2000], 1);
	FAM_INJ(0x3000, 1); /* first pc past B: A again */
	T_EQ(A[0x1000], 1);
	FAM_INJ(0x2000, 1); /* pc == B's offset: B (HP-UX says "less than") */
	T_EQ(B[0], 1);
	FAM_INJ(0x2fff, 1); /* last pc of B */
	T_EQ(B[0x7ff], 1);
	FAM_INJ(0x1fff, 1); /* just below B: A */
	T_EQ(A[0x7ff], 1);
	T_EQ(fam_sum(A, 0x4000, 2), 3);
	T_EQ(fam_sum(B, 0x800, 2), 3);
}

static void equal(int first_is_a)
{
	uint16_t a[8] = { 0 }, b[8] = { 0 };
	struct prof p[2] = {
		{ .pr_base = a, .pr_size = sizeof a, .pr_off = 0x7000, .pr_scale = 0x10000 },
		{ .pr_base = b, .pr_size = sizeof b, .pr_off = 0x7000, .pr_scale = 0x10000 },
	};
	if (!first_is_a) {
		struct prof t = p[0];
		p[0] = p[1];
		p[1] = t;
	}
	fam_manual();
	T_EQ(sprofil(p, 2, NULL, PROF_USHORT), 0);
	FAM_INJ(0x7004, 1);
	T_EQ((first_is_a ? a : b)[2], 1);
	T_EQ(fam_sum(first_is_a ? b : a, 8, 2), 0);
}

static void t49a(void)
{
	equal(1);
}

static void t49b(void)
{
	equal(0);
}

/* The same pcs against the sorted and the reversed array of T43's regions. */
static void t50(void)
{
	static const uintptr_t pcs[] = { 0x10000, 0x10004, 0x1003f, 0x10040, 0x3ffff,
					 0x40000, 0x40006, 0x4003f, 0x40040, 0x100 };
	uint16_t s1[32] = { 0 }, s2[32] = { 0 }, u1[32] = { 0 }, u2[32] = { 0 };
	struct prof sorted[2] = {
		{ .pr_base = s1, .pr_size = 64, .pr_off = 0x10000, .pr_scale = 0x10000 },
		{ .pr_base = s2, .pr_size = 64, .pr_off = 0x40000, .pr_scale = 0x10000 },
	};
	struct prof unsorted[2] = {
		{ .pr_base = u2, .pr_size = 64, .pr_off = 0x40000, .pr_scale = 0x10000 },
		{ .pr_base = u1, .pr_size = 64, .pr_off = 0x10000, .pr_scale = 0x10000 },
	};
	fam_manual();
	T_EQ(sprofil(sorted, 2, NULL, PROF_USHORT), 0);
	for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++)
		FAM_INJ(pcs[i], 1);
	T_EQ(sprofil(unsorted, 2, NULL, PROF_USHORT), 0);
	for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++)
		FAM_INJ(pcs[i], 1);
	T_EQ(memcmp(s1, u1, sizeof s1), 0);
	T_EQ(memcmp(s2, u2, sizeof s2), 0);
	T_EQ(fam_sum(s1, 32, 2), 3);
	T_EQ(fam_sum(s2, 32, 2), 3);
}

int main(void)
{
	fam_case("T48 overlap resolution", t48);
	fam_case("T49 equal offsets (a first)", t49a);
	fam_case("T49 equal offsets (b first)", t49b);
	fam_case("T50 unsorted accepted", t50);
	return fam_status();
}
