/*
 * <sys/profil.h> - libprofil's replacement for glibc's header of the same
 * name.  It is found first because pkg-config puts libprofil's include
 * directory ahead of the system one.
 *
 * Same ABI as glibc (struct prof is 32 bytes on LP64 with members at 0, 8,
 * 16 and 24; PROF_USHORT, PROF_UINT and PROF_FAST keep glibc's values), plus:
 *   - the offset member is reachable as HP-UX's pr_offset as well as pr_off;
 *   - PROF_UINT64 (64-bit counters, HP-UX) and the per-call overflow policy
 *     bits PROF_OVF_WRAP and PROF_OVF_STOP;
 *   - with _PROFIL_STRICT or _HPUX_SOURCE defined, sprofil() is HP-UX's
 *     strict variant (sorted, non-overlapping regions, overflow bin last).
 * See sprofil(3).
 */
#ifndef _PROFIL_H
#define _PROFIL_H 1 /* glibc's guard: never both headers in one unit */

#ifdef _LIBPROFIL_MON_H
#error "<sys/profil.h> and AIX <mon.h> both define struct prof with different layouts; include only one of them in a translation unit"
#else /* the rest of the header: not compiled after the error */
#define _LIBPROFIL_SYS_PROFIL_H 1

#include <features.h>
#include <sys/time.h>
#include <sys/types.h>

struct prof {
	void *pr_base;              /* counter buffer */
	size_t pr_size;             /* its size in bytes */
#if defined(__cplusplus) || defined(__GNUC__) || \
	(defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
	__extension__ union {
		size_t pr_off;      /* lowest pc of the region (IRIX, glibc) */
		size_t pr_offset;   /* the same member, HP-UX spelling */
	};
#else
	size_t pr_off;
#define pr_offset pr_off
#endif
	unsigned long int pr_scale; /* 16.16 fixed point: buffer bytes per text byte */
};

enum {
	PROF_USHORT = 0,        /* 16-bit counters (default) */
#define PROF_USHORT PROF_USHORT
	PROF_UINT = 1 << 0,     /* 32-bit counters */
#define PROF_UINT PROF_UINT
	PROF_FAST = 1 << 1,     /* sample 10 times the base rate */
#define PROF_FAST PROF_FAST
	PROF_UINT64 = 1 << 2,   /* 64-bit counters (HP-UX) */
#define PROF_UINT64 PROF_UINT64
	PROF_OVF_WRAP = 0x100,  /* this call: counters wrap around */
#define PROF_OVF_WRAP PROF_OVF_WRAP
	PROF_OVF_STOP = 0x200   /* this call: stop all profiling on overflow */
#define PROF_OVF_STOP PROF_OVF_STOP
};

__BEGIN_DECLS

#if defined(_PROFIL_STRICT) || defined(_HPUX_SOURCE)
extern int __REDIRECT_NTH(sprofil, (struct prof *__profp, int __profcnt,
				    struct timeval *__tvp, unsigned int __flags),
			  __sprofil_strict);
#else
extern int sprofil(struct prof *__profp, int __profcnt, struct timeval *__tvp,
		   unsigned int __flags) __THROW;
#endif

__END_DECLS

#endif /* !_LIBPROFIL_MON_H */
#endif
