/*
 * unwind-generic.c - architectures without arch/unwind-<arch>.c: the
 * walker records the interrupted pc and an unknown marker (sig/unwind.c
 * checks PROFIL_UNWIND_ARCH).  What a port needs is in docs/design.md,
 * "Stacks: unwinding".
 */
#include "unwind-arch.h"

#if !PROFIL_UNWIND_ARCH
#include "guard.h"

void profil__uregs_from_uc(const void *uc, struct profil_uregs *r)
{
	r->pc = profil_uc_pc(uc);
	r->sp = r->fp = 0;
	r->fp_ok = false;
}

bool profil__usigframe(uintptr_t pc, uintptr_t sp, struct profil_uregs *r)
{
	(void)pc, (void)sp, (void)r;
	return false;
}
#endif
