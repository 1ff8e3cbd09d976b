/*
 * T63 Tru64 extended-form errors (spec 3.6): count 65 E2BIG, count -1
 * EINVAL, flags != 0 EINVAL, lowpc >= highpc EINVAL, offset above lowpc
 * EINVAL, scale above 0x10000 EINVAL, unreadable args EFAULT.  A rejected
 * call leaves the previous state counting.
 */
#include <sys/resource.h>

#include "family.h"

static unsigned int buf[64];

#define FAILS(call, err)                                                                   \
	do {                                                                               \
		FAM_FAILS(call, err, PROFIL_CLASSIC);                                      \
		fam_keep_counts();                                                         \
	} while (0)

static void t63(void)
{
	static struct profil_args a[65];
	for (int i = 0; i < 65; i++)
		a[i] = (struct profil_args){ buf, (void *)(0x100000 - 0x1000 * (uintptr_t)i + 0x100),
					     (void *)(0x100000 - 0x1000 * (uintptr_t)i),
					     (void *)(0x100000 - 0x1000 * (uintptr_t)i), 0x10000 };
	fam_manual();
	T_EQ(profil(fam_keep, sizeof fam_keep, FAM_KEEP_PC, 0x10000), 0);
	FAILS(profil(a, 65, (void *)-1, 0), E2BIG);
	FAILS(profil(a, -1, (void *)-1, 0), EINVAL);
	FAILS(profil(a, 1, (void *)-1, 1), EINVAL);
	struct profil_args bad = a[0];
	bad.lowpc = bad.highpc;
	FAILS(profil(&bad, 1, (void *)-1, 0), EINVAL);
	bad.lowpc = (char *)bad.highpc + 1;
	FAILS(profil(&bad, 1, (void *)-1, 0), EINVAL);
	bad = a[0];
	bad.offset = (char *)bad.lowpc + 1;
	FAILS(profil(&bad, 1, (void *)-1, 0), EINVAL);
	bad = a[0];
	bad.scale = 0x10001;
	FAILS(profil(&bad, 1, (void *)-1, 0), EINVAL);
	void *none = fam_pages(1, PROT_NONE);
	FAILS(profil(none, 1, (void *)-1, 0), EFAULT);
	FAILS(profil(NULL, 1, (void *)-1, 0), EFAULT);
	/* The 64-range maximum itself is fine. */
	T_EQ(profil(a, 64, (void *)-1, 0), 0);
	T_EQ(profil_state(), PROFIL_TRU64);
}

int main(void)
{
	fam_case("T63 Tru64 errors", t63);
	return fam_status();
}
