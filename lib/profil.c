/*
 * profil.c - profil(): argument checks and the choice between its three
 * calling forms; the counting itself is the shared accounting path.
 *
 * Dispatch (spec 3.3), in this order:
 *   offset == (size_t)-1                        Tru64 extended form (tru64.c)
 *   bufsiz == (size_t)-1 or bufsiz == 0xFFFFFFFF AIX array form (aix.c)
 *   otherwise                                   classic form (below)
 */
#include <stdint.h>

#include "config.h"
#include "forms.h"
#include "session.h"

int profil__classic_cfg(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale,
			int kind, int round, struct profil_cfg **out)
{
	*out = NULL;
	/* Off: a NULL buffer (glibc) or scale 0 or 1 (every seed system). */
	if (!buf || scale < 2)
		return 0;
	/* Any larger scale is valid; above 0x10000 each text byte has a
	 * counter of its own or more.  glibc, illumos, HP-UX and IRIX accept
	 * such scales and programs use them (LTP's profil01 passes 0x20000);
	 * only BSD and XNU say EINVAL (spec 3.6).  The bin arithmetic is
	 * exact in 128 bits for any scale and pc (sample.h). */
	uint64_t n = bufsiz / 2; /* an odd trailing byte is never written */
	int r = profil__check_writable(buf, n * 2);
	if (r < 0)
		return r;

	struct profil_cfg *c = profil__cfg_new(kind, 1, profil__policy(), profil__base_hz());
	if (!c)
		return -ENOMEM;
	struct profil_region *reg = &c->regions[0];
	profil__region_init(reg, 0, offset, buf, n, scale, 2);
	reg->round = (uint8_t)round;
	reg->all_to_zero = scale == 2; /* IRIX, Tru64, AIX, illumos: counter 0 */
	return profil__cfg_done(c, out);
}

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
