/*
 * profil.c - profil(): argument checks and the choice between its three
 * calling forms; the counting itself is the shared accounting path.
 *
 * Dispatch (spec 3.3), in this order:
 *   offset == (size_t)-1                        Tru64 extended form (tru64.c)
 *   bufsiz == (size_t)-1 or bufsiz == 0xFFFFFFFF AIX array form (aix.c)
 *   otherwise                                   classic form (classic.c)
 */
#include <stdint.h>

#include "config.h"
#include "forms.h"
#include "session.h"

int profil__install_built(int r, struct profil_cfg *c)
{
	if (r < 0)
		return r;
	if ((r = profil__install(c, PROFIL_CALL_OTHER)) < 0)
		profil__cfg_free(c);
	return r;
}

static int dispatch(void *buf, size_t bufsiz, size_t offset, unsigned long scale)
{
	struct profil_cfg *c;
	int r;
	/* Off: a Tru64 call with no range, a classic one with no buffer or a
	 * scale below 2 (an AIX array is not read). */
	if (profil__sealed())
		return profil__sealed_answer(offset == SIZE_MAX ? bufsiz == 0
					     : bufsiz == SIZE_MAX || bufsiz == 0xFFFFFFFFu
						     ? false
						     : !buf || scale < 2);
	if (offset == SIZE_MAX)
		r = profil__tru64_cfg(buf, bufsiz, scale, &c);
	else if (bufsiz == SIZE_MAX || bufsiz == 0xFFFFFFFFu)
		r = profil__aix_array_cfg(buf, false, &c);
	else /* every classic prototype (glibc, Tru64) takes an unsigned int */
		r = profil__classic_cfg(buf, bufsiz, offset, (unsigned int)scale, PROFIL_CLASSIC,
					PROFIL_ROUND_DOWN, &c);
	return profil__install_built(r, c);
}

PROFIL_API int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale)
{
	return (int)PROFIL_PUBLIC(dispatch(buf, bufsiz, offset, scale));
}

/* Generic entry with pointer-tolerant types, reached through the Tru64
 * <sys/resource.h> macro (its fourth argument is Tru64's flags). */
PROFIL_API int __profil_any(void *buf, size_t bufsiz, size_t offset, unsigned long scale)
{
	return (int)PROFIL_PUBLIC(dispatch(buf, bufsiz, offset, scale));
}
