/*
 * <sys/profil_args.h> - Tru64's extended profil() form:
 *     profil(args, count, (void *)-1, 0)
 * with count struct profil_args ranges (up to 64) and 32-bit counters.
 * See profil(3), "Tru64 extended form".  Also reached through
 * <sys/resource.h>, where Tru64 declared it.
 *
 * profil is a function-like macro here (after <unistd.h>, which declares
 * the real function) so that a struct profil_args pointer and a (void *)-1
 * or literal -1 offset compile without warnings.
 */
#ifndef _LIBPROFIL_PROFIL_ARGS_H
#define _LIBPROFIL_PROFIL_ARGS_H 1

#include <stddef.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

struct profil_args {
	unsigned int *buffer;   /* 32-bit counters */
	void *highpc;           /* end of the range (exclusive) */
	void *lowpc;            /* start of the range */
	void *offset;           /* pc that maps to buffer[0]; <= lowpc */
	unsigned int scale;     /* 16.16 fixed point; 0 or 1: range off */
};

extern int __profil_any(void *__buf, size_t __bufsiz, size_t __offset,
			unsigned long __scale);

#define profil(buf, bufsiz, offset, scale)                                              \
	__profil_any((void *)(buf), (size_t)(bufsiz), (size_t)(offset),                 \
		     (unsigned long)(scale))

#ifdef __cplusplus
}
#endif

#endif
