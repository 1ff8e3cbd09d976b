/*
 * T12, revised with spec 3.6 on 2026-11-23: a classic scale above 0x10000
 * is valid (glibc, illumos, HP-UX and IRIX accept it; LTP's profil01
 * relies on it), from the off state and in place of an active one, up to
 * 0xFFFFFFFF; the call replaces the previous state like any other.  The
 * mapping itself is t-map-scale-big's; the forms that keep a limit are
 * tested with them (Tru64 extended: t-tru64-errors, AIX: t-aix).
 */
#include <unistd.h>

#include "helpers/tprof.h"

int main(void)
{
	unsigned short a[8] = { 0 }, b[8] = { 0 }, c[8] = { 0 };

	tp_manual();
	T_EQ(profil(a, sizeof a, 0, 2), 0);
	errno = 12345;
	T_EQ(profil(b, sizeof b, 0, 0x10001), 0);
	T_EQ(errno, 12345);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	T_EQ(__profil_inject(5, 1), 0); /* B = floor(5 * 0x10001 / 65536) = 5, I = 2 */
	T_EQ(a[0], 0);
	T_EQ(b[2], 1);

	T_EQ(profil(c, sizeof c, 0, 0xFFFFFFFF), 0);
	T_EQ(__profil_inject(0, 1), 0);
	T_EQ(c[0], 1);
	T_EQ(b[2], 1);

	/* From the off state. */
	T_EQ(tp_profil_off(), 0);
	T_EQ(profil_state(), PROFIL_OFF);
	T_EQ(profil(b, sizeof b, 0, 0x20000), 0);
	T_EQ(profil_state(), PROFIL_CLASSIC);
	T_EQ(__profil_inject(7, 1), 0);
	T_EQ(b[7], 1);
	T_EQ(tp_profil_off(), 0);
	return 0;
}
