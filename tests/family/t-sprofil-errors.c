/*
 * sprofil argument errors in default mode (spec 3.6): T52 flags, T53 sizes,
 * T54 counts, T56 EFAULT.  Every rejected call must leave the previous
 * state exactly as it was: a region installed first keeps counting.
 */
#include <sys/profil.h>

#include "family.h"

static uint16_t a[32];

static void install_keep(void)
{
	struct prof k = { .pr_base = fam_keep, .pr_size = sizeof fam_keep, .pr_off = FAM_KEEP_PC,
			  .pr_scale = 0x10000 };
	fam_manual();
	T_EQ(sprofil(&k, 1, NULL, PROF_USHORT), 0);
}

/* The call failed with err and the state installed by install_keep is
 * still the one counting. */
#define FAILS(call, err)                                                                   \
	do {                                                                               \
		FAM_FAILS(call, err, PROFIL_REGIONS);                                      \
		fam_keep_counts();                                                         \
	} while (0)

static void t52(void)
{
	struct prof p = { .pr_base = a, .pr_size = sizeof a, .pr_off = 0x1000, .pr_scale = 0x10000 };
	install_keep();
	FAILS(sprofil(&p, 1, NULL, 0x8), EINVAL);
	FAILS(sprofil(&p, 1, NULL, 0x80000000u), EINVAL);
	FAILS(sprofil(&p, 1, NULL, PROF_UINT | PROF_UINT64), EINVAL);
	FAILS(sprofil(&p, 1, NULL, PROF_OVF_WRAP | PROF_OVF_STOP), EINVAL);
	/* The known bits alone are fine. */
	T_EQ(sprofil(&p, 1, NULL, PROF_UINT | PROF_FAST | PROF_OVF_WRAP), 0);
}

static void t53(void)
{
	struct prof p[2] = {
		{ .pr_base = a, .pr_size = 0, .pr_off = 0x1000, .pr_scale = 0x10000 },
		{ .pr_base = a, .pr_size = 6, .pr_off = 0x8000, .pr_scale = 0x10000 },
	};
	install_keep();
	FAILS(sprofil(&p[0], 1, NULL, PROF_USHORT), EINVAL);  /* size 0 */
	FAILS(sprofil(&p[1], 1, NULL, PROF_UINT), EINVAL);    /* 6 % 4 */
	FAILS(sprofil(&p[1], 1, NULL, PROF_UINT64), EINVAL);  /* 6 % 8 */
	p[1].pr_size = 5;
	FAILS(sprofil(&p[1], 1, NULL, PROF_USHORT), EINVAL);  /* 5 % 2 */
	/* Covered text would run past the top of the address space. */
	struct prof top = { .pr_base = a, .pr_size = 64, .pr_off = UINTPTR_MAX - 16,
			    .pr_scale = 0x10000 };
	FAILS(sprofil(&top, 1, NULL, PROF_USHORT), EINVAL);
	/* pr_scale beyond 32 bits. */
	struct prof big = { .pr_base = a, .pr_size = 64, .pr_off = 0x1000,
			    .pr_scale = 0x100000000UL };
	FAILS(sprofil(&big, 1, NULL, PROF_USHORT), EINVAL);
	/* Two overflow bins. */
	uint16_t b1[1], b2[1];
	struct prof bins[2] = { { .pr_base = b1, .pr_size = 2, .pr_off = 0, .pr_scale = 2 },
				{ .pr_base = b2, .pr_size = 2, .pr_off = 0, .pr_scale = 2 } };
	FAILS(sprofil(bins, 2, NULL, PROF_USHORT), EINVAL);
	/* A bin shorter than one element. */
	uint32_t w[1];
	struct prof sbin = { .pr_base = w, .pr_size = 2, .pr_off = 0, .pr_scale = 2 };
	FAILS(sprofil(&sbin, 1, NULL, PROF_UINT), EINVAL);

	/* An ignored entry (scale 0) may have size 0. */
	p[0].pr_scale = 0;
	p[1] = (struct prof){ .pr_base = a, .pr_size = sizeof a, .pr_off = 0x8000, .pr_scale = 0x10000 };
	T_EQ(sprofil(p, 2, NULL, PROF_USHORT), 0);
	T_EQ(profil_state(), PROFIL_REGIONS);
	FAM_INJ(0x8002, 1);
	T_EQ(a[1], 1);
}

static void t54(void)
{
	struct prof p = { .pr_base = a, .pr_size = sizeof a, .pr_off = 0x1000, .pr_scale = 0x10000 };
	install_keep();
	FAILS(sprofil(&p, -1, NULL, PROF_USHORT), EINVAL);
	FAILS(sprofil(&p, 65537, NULL, PROF_USHORT), E2BIG);
	FAILS(sprofil(NULL, -5, NULL, PROF_USHORT), EINVAL);
}

static void t56(void)
{
	size_t pg = (size_t)getpagesize();
	char *none = fam_pages(1, PROT_NONE);
	char *ro = fam_pages(2, PROT_READ | PROT_WRITE);
	struct prof p = { .pr_base = a, .pr_size = sizeof a, .pr_off = 0x1000, .pr_scale = 0x10000 };
	install_keep();
	FAILS(sprofil((struct prof *)none, 1, NULL, PROF_USHORT), EFAULT);
	FAILS(sprofil(NULL, 1, NULL, PROF_USHORT), EFAULT);
	/* An array whose second entry lies on an inaccessible page. */
	T_OK(mprotect(ro + pg, pg, PROT_NONE) == 0);
	struct prof *edge = (struct prof *)(ro + pg) - 1;
	*edge = p;
	FAILS(sprofil(edge, 2, NULL, PROF_USHORT), EFAULT);
	/* tvp on a read-only page, and on an inaccessible one. */
	struct timeval *tv = (struct timeval *)ro;
	tv->tv_sec = 77;
	tv->tv_usec = 77;
	T_OK(mprotect(ro, pg, PROT_READ) == 0);
	FAILS(sprofil(&p, 1, tv, PROF_USHORT), EFAULT);
	FAILS(sprofil(edge, 1, tv, PROF_USHORT), EFAULT); /* array readable, tvp not */
	FAILS(sprofil(&p, 1, (struct timeval *)none, PROF_USHORT), EFAULT);
	FAILS(sprofil(NULL, 0, tv, 0), EFAULT); /* not even turned off */
	T_EQ(tv->tv_sec, 77);
	T_EQ(tv->tv_usec, 77);
}

int main(void)
{
	fam_case("T52 flag errors", t52);
	fam_case("T53 size errors", t53);
	fam_case("T54 count errors", t54);
	fam_case("T56 EFAULT", t56);
	return fam_status();
}
