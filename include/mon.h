/*
 * <mon.h> - AIX's profiling header, as far as libprofil implements it:
 * struct prof (AIX's layout, unrelated to sprofil's), HISTCOUNTER and the
 * AIX rules for profil() (low 16 bits of the scale, rounded-up index, the
 * AIX on/off state machine).  See profil(3), "AIX forms".
 *
 * profil is a function-like macro here (defined after <unistd.h>, so that
 * glibc's own declaration is unaffected): both AIX call forms,
 *     profil(ShortBuffer, BufferSize, Offset, Scale)
 *     profil(ProfBuffer, -1, 0, 0)
 * compile unchanged.  (profil) and &profil still name the generic function.
 */
#ifndef _LIBPROFIL_MON_H
#define _LIBPROFIL_MON_H 1

#if defined(_PROFIL_H) || defined(_LIBPROFIL_SYS_PROFIL_H)
#error "<mon.h> (AIX) and <sys/profil.h> both define struct prof with different layouts; include only one of them in a translation unit"
#else /* the rest of the header: not compiled after the error */

#include <sys/types.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned short HISTCOUNTER;

struct prof {
	caddr_t p_low;          /* lowest pc of the range */
	caddr_t p_high;         /* end of the range (exclusive); 0 ends the array */
	HISTCOUNTER *p_buff;    /* counters */
	int p_bufsize;          /* size of p_buff in bytes */
	unsigned int p_scale;   /* scale, or (unsigned)-1 for an automatic one */
};
typedef struct prof aix_prof_t;

extern int __profil_aix(void *__buf, unsigned int __bufsiz, unsigned long __offset,
			unsigned int __scale);

#define profil(buf, bufsiz, offset, scale)                                              \
	__profil_aix((void *)(buf), (unsigned int)(bufsiz), (unsigned long)(offset),    \
		     (unsigned int)(scale))

#ifdef __cplusplus
}
#endif

#endif /* conflict */
#endif
