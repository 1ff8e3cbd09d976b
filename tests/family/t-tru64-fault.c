/*
 * T41 Tru64 per-range fault: a fault while updating one range's buffer
 * turns off profiling for that range only (Tru64 page).  Range A's buffer
 * is PROT_NONE: injecting into A does not crash and the state stays TRU64;
 * range B keeps counting; A stays dead even after its buffer is fixed.
 */
#include <sys/resource.h>

#include "family.h"

static void t41(void)
{
	unsigned int *a_buf = fam_pages(1, PROT_READ | PROT_WRITE);
	unsigned int b_buf[64] = { 0 };
	T_OK(mprotect(a_buf, (size_t)getpagesize(), PROT_NONE) == 0);
	struct profil_args r[2] = {
		{ a_buf, (void *)0x20100, (void *)0x20000, (void *)0x20000, 0x10000 },
		{ b_buf, (void *)0x10100, (void *)0x10000, (void *)0x10000, 0x10000 },
	};
	fam_manual();
	T_EQ(profil(r, 2, (void *)-1, 0), 0);
	FAM_INJ(0x20004, 1);
	T_EQ(profil_state(), PROFIL_TRU64);
	FAM_INJ(0x10004, 1);
	T_EQ(b_buf[1], 1);
	T_OK(mprotect(a_buf, (size_t)getpagesize(), PROT_READ | PROT_WRITE) == 0);
	FAM_INJ(0x20004, 1);
	T_EQ(a_buf[1], 0);
	FAM_INJ(0x10008, 1);
	T_EQ(b_buf[2], 1);
	T_EQ(profil_state(), PROFIL_TRU64);
}

int main(void)
{
	fam_case("T41 Tru64 per-range fault", t41);
	return fam_status();
}
