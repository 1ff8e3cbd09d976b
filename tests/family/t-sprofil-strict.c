/*
 * T51: HP-UX strict mode errors through __sprofil_strict (what
 * <sys/profil.h> names sprofil under _PROFIL_STRICT or _HPUX_SOURCE; that
 * redirection itself is tests/compat/t-strict-select.sh).  Each input that
 * strict mode rejects with EINVAL is accepted by the default sprofil,
 * except the size limit, which only strict mode has.  A rejected call
 * leaves the previous state in place.
 */
#include <sys/profil.h>

#include "family.h"

int __sprofil_strict(struct prof *profp, int profcnt, struct timeval *tvp, unsigned int flags);

static uint16_t a[32], b[32], bin[2];

#define R(buf, off) { .pr_base = (buf), .pr_size = 64, .pr_off = (off), .pr_scale = 0x10000 }
#define BIN(size)   { .pr_base = bin, .pr_size = (size), .pr_off = 0, .pr_scale = 2 }

/* Strict rejects (EINVAL, previous state kept), default accepts. */
static void rejected(struct prof *p, int n, unsigned int flags)
{
	uint16_t keep[4] = { 0 };
	struct prof k = { .pr_base = keep, .pr_size = sizeof keep, .pr_off = 0x900000,
			  .pr_scale = 0x10000 };
	fam_manual();
	T_EQ(__sprofil_strict(&k, 1, NULL, PROF_USHORT), 0);
	errno = 0;
	T_EQ(__sprofil_strict(p, n, NULL, flags), -1);
	T_EQ(errno, EINVAL);
	FAM_INJ(0x900002, 1);
	T_EQ(keep[1], 1);
	T_EQ(sprofil(p, n, NULL, flags), 0);
	T_EQ(profil_state(), PROFIL_REGIONS);
	FAM_INJ(0x900002, 1);
	T_EQ(keep[1], 1); /* replaced */
}

static void unsorted(void)
{
	struct prof p[2] = { R(b, 0x40000), R(a, 0x10000) };
	rejected(p, 2, PROF_USHORT);
}

static void overlapping(void)
{
	struct prof p[2] = { R(a, 0x10000), R(b, 0x10020) }; /* a covers 64 bytes */
	rejected(p, 2, PROF_USHORT);
}

static void equal_offsets(void)
{
	struct prof p[2] = { R(a, 0x10000), R(b, 0x10000) };
	rejected(p, 2, PROF_USHORT);
}

static void bin_not_last(void)
{
	struct prof p[3] = { R(a, 0x10000), BIN(2), R(b, 0x40000) };
	rejected(p, 3, PROF_USHORT);
}

static void bin_too_long(void)
{
	struct prof p[2] = { R(a, 0x10000), BIN(4) };
	rejected(p, 2, PROF_USHORT);
}

static void fast_flag(void)
{
	struct prof p[1] = { R(a, 0x10000) };
	rejected(p, 1, PROF_FAST);
	rejected(p, 1, PROF_UINT | PROF_FAST);
}

static void ovf_flags(void)
{
	struct prof p[1] = { R(a, 0x10000) };
	rejected(p, 1, PROF_OVF_WRAP);
	rejected(p, 1, PROF_OVF_STOP);
}

/* pr_size at most floor(2^47 * pr_scale / 65536): 2^32 bytes at scale 2.
 * Nothing is injected, so the small real buffer is never reached. */
static void size_limit(void)
{
	struct prof p = { .pr_base = a, .pr_size = (size_t)1 << 32, .pr_off = 0x1000,
			  .pr_scale = 2 };
	fam_manual();
	T_EQ(__sprofil_strict(&p, 1, NULL, PROF_USHORT), 0);
	T_EQ(profil_state(), PROFIL_REGIONS);
	T_EQ(__sprofil_strict(NULL, 0, NULL, 0), 0);
	p.pr_size += 2;
	errno = 0;
	T_EQ(__sprofil_strict(&p, 1, NULL, PROF_USHORT), -1);
	T_EQ(errno, EINVAL);
	T_EQ(profil_state(), PROFIL_OFF);
}

/* What strict mode must still accept: a sorted, disjoint array with the bin
 * last and one element long, each width flag, and profcnt 0 to turn off. */
static void accepted(void)
{
	static uint32_t w[16];
	static uint64_t bin64[1];
	struct prof p[3] = { R(a, 0x10000), R(b, 0x10040), BIN(2) };
	fam_manual();
	T_EQ(__sprofil_strict(p, 3, NULL, PROF_USHORT), 0);
	FAM_INJ(0x10040, 1);
	FAM_INJ(0x5, 1);
	T_EQ(b[0], 1);
	T_EQ(bin[0], 1);
	struct prof q[2] = { { .pr_base = w, .pr_size = sizeof w, .pr_off = 0x1000,
			       .pr_scale = 0x10000 },
			     { .pr_base = bin64, .pr_size = 8, .pr_off = 0, .pr_scale = 2 } };
	T_EQ(__sprofil_strict(q, 1, NULL, PROF_UINT), 0);
	T_EQ(__sprofil_strict(q, 2, NULL, PROF_UINT64), 0);
	FAM_INJ(0x20, 1);
	T_EQ(bin64[0], 1);
	T_EQ(__sprofil_strict(NULL, 0, NULL, 0), 0);
	T_EQ(profil_state(), PROFIL_OFF);
}

int main(void)
{
	fam_case("T51 unsorted", unsorted);
	fam_case("T51 overlapping", overlapping);
	fam_case("T51 equal offsets", equal_offsets);
	fam_case("T51 bin not last", bin_not_last);
	fam_case("T51 bin longer than one element", bin_too_long);
	fam_case("T51 PROF_FAST", fast_flag);
	fam_case("T51 overflow extension bits", ovf_flags);
	fam_case("T51 size limit 2^47", size_limit);
	fam_case("T51 valid input accepted", accepted);
	return fam_status();
}
