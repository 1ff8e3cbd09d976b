/*
 * unwind.c - placeholder walker: the interrupted pc only, then a marker
 * saying the rest is unknown.  Stands until the table walker lands, so
 * that the recording of stacks can be built and tested against the
 * contract in unwind.h.
 */
#include "unwind.h"

#include "../arch/guard.h"

int profil__unwind(const void *uc, uintptr_t *pcs, int max)
{
	if (max <= 0)
		return 0;
	pcs[0] = profil_uc_pc(uc);
	if (max == 1)
		return 1;
	pcs[1] = PCPROF_FRAME_UNKNOWN;
	return 2;
}
