/*
 * classic.c - the classic form's builder (forms.h): one region, one
 * counter per `scale`-sized step of text.  Its own file, not profil.c's:
 * the AIX entry (aix.c) builds classic configurations too, and profil.c
 * dispatches to aix.c, so the builder living in profil.c made the two
 * call each other.
 */
#include <errno.h>
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
