/*
 * T71 AIX errors (spec 3.6): p_high not ascending EINVAL, a p_buff on a
 * PROT_NONE page EFAULT, an unreadable ProfBuffer EFAULT, also p_low >=
 * p_high and a negative p_bufsize EINVAL, a NULL ShortBuffer EFAULT.  The
 * state stays OFF after each.
 */
#include <mon.h>

#include "family.h"

#define FAILS(call, err) FAM_FAILS(call, err, PROFIL_OFF)

static void t71(void)
{
	HISTCOUNTER a[32], b[32];
	HISTCOUNTER *none = fam_pages(1, PROT_NONE);
	struct prof desc[3] = {
		{ (caddr_t)0x2000, (caddr_t)0x2100, a, 64, 0x8000 },
		{ (caddr_t)0x1000, (caddr_t)0x1100, b, 64, 0x8000 },
		{ 0 },
	};
	fam_manual();
	FAILS(profil(desc, -1, 0, 0), EINVAL);
	FAILS((profil)((unsigned short *)desc, (size_t)-1, 0, 0), EINVAL);
	desc[1].p_high = desc[0].p_high; /* equal is not ascending */
	FAILS(profil(desc, -1, 0, 0), EINVAL);

	struct prof one[2] = { { (caddr_t)0x1000, (caddr_t)0x1100, none, 64, 0x8000 }, { 0 } };
	FAILS(profil(one, -1, 0, 0), EFAULT);
	FAILS(profil(none, -1, 0, 0), EFAULT);
	FAILS(profil(NULL, -1, 0, 0), EFAULT);
	FAILS(profil(none, 64, 0x1000, 0x8000), EFAULT);
	FAILS(profil(NULL, 64, 0x1000, 0x8000), EFAULT);

	one[0].p_buff = a;
	one[0].p_low = one[0].p_high;
	FAILS(profil(one, -1, 0, 0), EINVAL);
	one[0].p_low = (caddr_t)0x1000;
	one[0].p_bufsize = -2;
	FAILS(profil(one, -1, 0, 0), EINVAL);
	one[0].p_bufsize = 64;
	T_EQ(profil(one, -1, 0, 0), 0);
	T_EQ(profil_state(), PROFIL_AIX_ARRAY);
}

int main(void)
{
	fam_case("T71 AIX errors", t71);
	return fam_status();
}
